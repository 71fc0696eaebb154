"""Posts a request waits for (a discussion's start, a comment): the messenger's sends, with every
refusal or failure of the Bot Connector turned into a 502 for the caller instead of a retry."""

from typing import Any

from msrest.exceptions import ClientRequestError, HttpOperationError

from bot.errors import BadGateway
from bot.jobs.worker import PermanentFailure, RetryLater
from bot.messaging import Said, Sent, ThreadRoot
from bot.teams.outbound.messenger import TeamsMessenger

REFUSED = "Microsoft Teams did not take the message ({why}); nothing was posted. Try again."


class WaitedPosts:
    """The `Teams` that `bot.discussions.threads` posts through."""

    def __init__(self, messenger: TeamsMessenger) -> None:
        self._messenger = messenger

    async def start(self, *, channel_id: str, said: Said) -> Sent:
        try:
            return await self._messenger.start(channel_id=channel_id, said=said)
        except _FAILURES as exc:
            raise BadGateway(REFUSED.format(why=_why(exc))) from exc

    async def reply(self, *, conversation_id: str, said: Said) -> Sent:
        try:
            return await self._messenger.reply(conversation_id=conversation_id, said=said)
        except _FAILURES as exc:
            raise BadGateway(REFUSED.format(why=_why(exc))) from exc

    def describe(self, root: ThreadRoot) -> dict[str, Any]:
        return self._messenger.describe(root)


_FAILURES = (RetryLater, PermanentFailure, HttpOperationError, ClientRequestError, OSError)


def _why(exc: Exception) -> str:
    status = getattr(getattr(exc, "response", None), "status_code", None)
    if status is not None:
        return f"it answered {status}"
    if isinstance(exc, RetryLater | PermanentFailure):
        return str(exc)
    return "it could not be reached"
