"""The domain's `Messenger` (`bot.messaging`) in Teams: what the domain says becomes the card
`bot.teams.outbound.sayings` makes of it, queued or sent by the notifier."""

from typing import Any

from bot.db.uow import UnitOfWork
from bot.messaging import Commented, Said, Sent, ThreadReply, ThreadRoot, mention_tag
from bot.teams.outbound.notifier import Notifier, message, queue_new_thread, queue_reply
from bot.teams.outbound.sayings import card_of, description_of


class TeamsMessenger:
    """`public_url` is the base of the items' links on the cards."""

    def __init__(self, notifier: Notifier, *, public_url: str) -> None:
        self._notifier, self._public_url = notifier, public_url

    async def post(self, uow: UnitOfWork, *, channel_id: str, said: Said) -> None:
        await queue_new_thread(uow, channel_id=channel_id, activity=self._message(said))

    async def tell(self, uow: UnitOfWork, *, conversation_id: str, said: Said) -> None:
        await queue_reply(uow, conversation_id=conversation_id, activity=self._message(said))

    async def start(self, *, channel_id: str, said: Said) -> Sent:
        return await self._notifier.start_thread(
            channel_id=channel_id, activity=self._message(said)
        )

    async def reply(self, *, conversation_id: str, said: Said) -> Sent:
        return await self._notifier.reply(
            conversation_id=conversation_id, activity=self._message(said)
        )

    async def update(self, *, conversation_id: str, activity_id: str, said: Said) -> Sent:
        return await self._notifier.update(
            conversation_id=conversation_id, activity_id=activity_id, activity=self._message(said)
        )

    async def remove(self, *, conversation_id: str, activity_id: str) -> None:
        await self._notifier.remove(conversation_id=conversation_id, activity_id=activity_id)

    def describe(self, root: ThreadRoot) -> dict[str, Any]:
        return description_of(root, public_url=self._public_url)

    def _message(self, said: Said) -> dict[str, Any]:
        if isinstance(said, Commented):  # words, as a comment posted through the API is
            return {"type": "message", "text": said.body, "textFormat": "xml"}
        if isinstance(said, ThreadReply):
            return _reply(said)
        return message(card=card_of(said, public_url=self._public_url))


def _reply(said: ThreadReply) -> dict[str, Any]:
    """The reply activity: the line as HTML, each mention as a Teams mention entity."""
    return {
        "type": "message",
        "textFormat": "xml",
        "text": said.html,
        "entities": [
            {
                "type": "mention",
                "mentioned": {"id": person["id"], "name": person["name"]},
                "text": mention_tag(person["name"]),
            }
            for person in said.mentions
        ],
    }
