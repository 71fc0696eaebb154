"""A comment sent from here whose answer was lost (a 5xx once it was made there, a hang, a
crash) is looked for at the source before it is sent again, as a lost create is: no source takes
an idempotency key for comments. Until it is found, a pull leaves a comment there that reads as
it alone, rather than storing it as the source's and telling it in the thread."""

from datetime import timedelta

from sqlalchemy import select

from bot.db.statements import Row
from bot.db.tables import DiscussionMessage, SyncComment
from bot.db.uow import UnitOfWork
from bot.sync.source import SourceComment

UNKNOWN_AUTHOR = "Someone"
SLACK = timedelta(minutes=5)  # the clocks here and at the source may differ


async def waiting(uow: UnitOfWork, *, item_id: str, tried: bool = False) -> list[Row]:
    """The item's comments waiting to go out (`tried`: those already sent once), oldest first:
    each with its `message_id`, `text`, `author` and `tried_at`."""
    statement = (
        select(
            SyncComment.message_id,
            SyncComment.text,
            SyncComment.tried_at,
            DiscussionMessage.author_name.label("author"),
        )
        .join(DiscussionMessage, DiscussionMessage.id == SyncComment.message_id)
        .where(SyncComment.item_id == item_id, SyncComment.source_comment_id.is_(None))
        .order_by(DiscussionMessage.created_at, DiscussionMessage.id)
    )
    if tried:
        statement = statement.where(SyncComment.tried_at.is_not(None))
    return await uow.rows(statement)


def author_of(comment: Row) -> str:
    return str(comment["author"] or UNKNOWN_AUTHOR)


def reads_as(found: SourceComment, comment: Row) -> bool:
    """Whether a comment there reads as this one sent from here (made since it was first
    sent, its author's name and its words in it, whatever markup the source added)."""
    tried_at = comment["tried_at"]
    if tried_at is None or found.created_at < tried_at - SLACK:
        return False
    said = " ".join(found.text.split())
    return author_of(comment) in said and " ".join((comment["text"] or "").split()) in said
