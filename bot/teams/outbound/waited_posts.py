"""Posts a request waits for (a discussion's start, a comment): the notifier's sends, with every
refusal or failure of the Bot Connector turned into a 502 for the caller instead of a retry."""

from typing import Any

from msrest.exceptions import ClientRequestError, HttpOperationError

from bot.errors import BadGateway
from bot.jobs.worker import PermanentFailure, RetryLater
from bot.messaging import Sent
from bot.teams.outbound.notifier import Notifier

REFUSED = "Microsoft Teams did not take the message ({why}); nothing was posted. Try again."


class WaitedPosts:
    """The `Teams` that `bot.discussions.threads` posts through."""

    def __init__(self, notifier: Notifier) -> None:
        self._notifier = notifier

    async def start_thread(self, *, channel_id: str, activity: dict[str, Any]) -> Sent:
        try:
            return await self._notifier.start_thread(channel_id=channel_id, activity=activity)
        except _FAILURES as exc:
            raise BadGateway(REFUSED.format(why=_why(exc))) from exc

    async def reply(self, *, conversation_id: str, activity: dict[str, Any]) -> Sent:
        try:
            return await self._notifier.reply(conversation_id=conversation_id, activity=activity)
        except _FAILURES as exc:
            raise BadGateway(REFUSED.format(why=_why(exc))) from exc


_FAILURES = (RetryLater, PermanentFailure, HttpOperationError, ClientRequestError, OSError)


def _why(exc: Exception) -> str:
    status = getattr(getattr(exc, "response", None), "status_code", None)
    if status is not None:
        return f"it answered {status}"
    if isinstance(exc, RetryLater | PermanentFailure):
        return str(exc)
    return "it could not be reached"
