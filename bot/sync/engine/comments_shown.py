"""A comment made at the source, shown in the item's thread as it stands now: told as a reply
(Teams' id for it kept, so it can be changed later), then replaced when it is edited there and
deleted when it is deleted there. One job per change, queued in the pull's transaction; it
reads the message when it runs, so a job waiting shows the latest words, and a change that
arrives while the reply is being posted is shown by the same job right after."""

from typing import Any

from sqlalchemy import select

from bot.clock import Clock
from bot.db.tables import DiscussionMessage, ItemThread
from bot.db.uow import UnitOfWork, unit_of_work
from bot.discussions import service as discussions
from bot.jobs.kinds import JobKind, Payload
from bot.jobs.queue import ClaimedJob
from bot.jobs.worker import Worker
from bot.messaging import Commented, Messenger

STANDS_IN = "source-"  # a comment not told in Teams yet: its id there stands for Teams' id


class CommentJob(Payload):
    message_id: str  # the stored message's row id


SHOW = JobKind("sync.comment_shown", CommentJob)


def stand_in_id(source_comment_id: str) -> str:
    """The message id a comment from the source has until Teams gives it one."""
    return f"{STANDS_IN}{source_comment_id}"[:64]


def told(message_id: str) -> bool:
    return not message_id.startswith(STANDS_IN)


async def show(uow: UnitOfWork, *, message_id: str) -> None:
    """Have the thread show the comment as stored now, once `uow` commits."""
    await SHOW.enqueue(uow, CommentJob(message_id=message_id))


class CommentsShown:
    def __init__(self, sessions: Any, clock: Clock, messenger: Messenger) -> None:
        self._sessions, self._clock, self._messenger = sessions, clock, messenger

    def register(self, worker: Worker) -> None:
        worker.register(SHOW, self.run)

    async def run(self, job: ClaimedJob[CommentJob]) -> None:
        row_id = job.payload.message_id
        shown: str | None = None  # the words just told, when they were
        while (message := await self._read(row_id)) is not None:
            conversation, teams_id = message["conversation_id"], message["message_id"]
            if not told(teams_id):
                if message["deleted_at"] is not None:
                    return  # deleted there before it was told
                said = Commented(message["body"])
                sent = await self._messenger.reply(conversation_id=conversation, said=said)
                if sent.activity_id is None or not await self._told(row_id, teams_id, sent):
                    return
                shown = message["body"]
                continue  # changed while it was told? shown now
            if message["deleted_at"] is not None:
                await self._messenger.remove(conversation_id=conversation, activity_id=teams_id)
            elif message["body"] != shown:
                said = Commented(message["body"])
                await self._messenger.update(
                    conversation_id=conversation, activity_id=teams_id, said=said
                )
            return

    async def _read(self, row_id: str) -> Any:
        async with unit_of_work(self._sessions, self._clock, write=False) as uow:
            return await uow.row(
                select(
                    DiscussionMessage.message_id,
                    DiscussionMessage.body,
                    DiscussionMessage.deleted_at,
                    ItemThread.conversation_id,
                )
                .join(ItemThread, ItemThread.item_id == DiscussionMessage.item_id)
                .where(DiscussionMessage.id == row_id, ItemThread.conversation_id.is_not(None))
            )

    async def _told(self, row_id: str, stood_for: str, sent: Any) -> bool:
        async with unit_of_work(self._sessions, self._clock) as uow:
            return await discussions.record_source_comment_told(
                uow, row_id=row_id, stood_for=stood_for, teams_id=str(sent.activity_id)
            )
