"""Comments made at the source, brought in with the items a pull reads: read only for items
whose comment count moved there (or every changed item, when the source gives no count),
stored once each by their id there, and told in the item's thread when it has one (never on
the first import). A comment sent from here is known by its id and never comes back in; one
whose answer was lost is left there for its push to find (`comment_tries`)."""

from collections.abc import Sequence

from sqlalchemy import insert, select, update

from bot.db.tables import SyncComment, SyncRecord
from bot.db.uow import UnitOfWork
from bot.discussions import service as discussions
from bot.messaging import Commented, Messenger
from bot.sync.engine.comment_tries import UNKNOWN_AUTHOR, reads_as, waiting
from bot.sync.engine.context import ProjectContext
from bot.sync.links import COMMENTED
from bot.sync.source import Source, SourceComment, SourceItem

MESSAGE_PREFIX = "source-"  # a comment from the source has no Teams id: its id stands in


async def to_read(uow: UnitOfWork, ctx: ProjectContext, items: Sequence[SourceItem]) -> list[str]:
    """The ids of the items whose comments are read: their count there moved since the last
    read (or the source gives none)."""
    if ctx.source not in COMMENTED:
        return []
    synced = [item for item in items if item.item_type in ctx.kinds]
    if not synced:
        return []
    counts = {
        row["source_item_id"]: row["comment_count"]
        for row in await uow.rows(
            select(SyncRecord.source_item_id, SyncRecord.comment_count).where(
                SyncRecord.project_id == ctx.project_id,
                SyncRecord.source_item_id.in_([item.id for item in synced]),
            )
        )
    }
    return [
        item.id
        for item in synced
        if item.comment_count is None or item.comment_count != (counts.get(item.id) or 0)
    ]


async def read(source: Source, item_ids: Sequence[str]) -> dict[str, Sequence[SourceComment]]:
    """The comments of these items, read outside any transaction."""
    return {item_id: await source.comments(item_id) for item_id in item_ids}


async def store(
    uow: UnitOfWork,
    ctx: ProjectContext,
    *,
    item_id: str,
    source_item: SourceItem,
    comments: Sequence[SourceComment] | None,
    messenger: Messenger | None,
) -> None:
    """The item's comments read there (None: not read), the new ones stored and, with a
    `messenger`, told in the item's thread."""
    if comments is None:
        return
    known = set(
        await uow.values(
            select(SyncComment.source_comment_id).where(
                SyncComment.item_id == item_id, SyncComment.source_comment_id.is_not(None)
            )
        )
    )
    tried = await waiting(uow, item_id=item_id, tried=True)
    for comment in comments:
        if comment.id in known or any(reads_as(comment, mine) for mine in tried):
            continue
        author = comment.author.display_name if comment.author else UNKNOWN_AUTHOR
        member = ctx.people.match(comment.author) if comment.author else None
        body = discussions.comment_body(author, comment.text)
        row_id, thread = await discussions.record_source_comment(
            uow,
            item_id=item_id,
            message_id=f"{MESSAGE_PREFIX}{comment.id}"[:64],
            author_name=author,
            author_user_id=member.user_id if member else None,
            body=body,
            at=comment.created_at,
        )
        await uow.execute(
            insert(SyncComment).values(
                message_id=row_id, item_id=item_id, source_comment_id=comment.id, text=None
            )
        )
        if messenger is not None and thread is not None:
            await messenger.tell(uow, conversation_id=thread, said=Commented(body))
    await ctx.people.keep(uow)
    await uow.execute(
        update(SyncRecord)
        .where(SyncRecord.item_id == item_id)
        .values(comment_count=source_item.comment_count)
    )
