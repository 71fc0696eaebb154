"""Comments made at the source, brought in with the items a pull reads: read only for items
whose comment count (Jira: the count and the last edit, as one mark) moved there, or, where
the count alone cannot show an edit (Azure DevOps), that have a new revision there changing
none of their synced fields; every changed item when the source gives no count. Each is
stored once by its id there, as the safe HTML of its rich text (`comment_html`), and told in
the item's thread when it has one (never on the first import); edited there, its message here
is edited; deleted there, deleted (`comments_shown` keeps the thread in step). A comment sent
from here is known by its id and never comes back in, nor do its edits there (a person's
message in Teams is theirs); one whose answer was lost is left there for its push to find
(`comment_tries`)."""

from collections.abc import Sequence
from typing import Any

from sqlalchemy import delete, insert, select, update

from bot.db.tables import DiscussionMessage, SyncComment, SyncRecord
from bot.db.uow import UnitOfWork
from bot.discussions import service as discussions
from bot.messaging import Messenger
from bot.projects.sources import SourceKind
from bot.sync.engine import inbound
from bot.sync.engine.comment_html import reply_html
from bot.sync.engine.comment_tries import UNKNOWN_AUTHOR, reads_as, waiting
from bot.sync.engine.comments_shown import show, stand_in_id, told
from bot.sync.engine.context import ProjectContext
from bot.sync.links import COMMENTED
from bot.sync.source import Source, SourceComment, SourceItem

# Sources whose comment count does not move on an edit: an item changed there has its
# comments read again.
COUNTS_ONLY = frozenset({SourceKind.AZURE_DEVOPS})


async def to_read(uow: UnitOfWork, ctx: ProjectContext, items: Sequence[SourceItem]) -> list[str]:
    """The ids of the items whose comments are read: their count (or mark) there moved since
    the last read, or the source gives none, or (`COUNTS_ONLY`) the item has a revision there
    that changed none of its synced fields."""
    if ctx.source not in COMMENTED:
        return []
    synced = [item for item in items if item.item_type in ctx.kinds]
    if not synced:
        return []
    records = {
        row["source_item_id"]: row
        for row in await uow.rows(
            select(
                SyncRecord.source_item_id,
                SyncRecord.comment_count,
                SyncRecord.version,
                SyncRecord.seen,
            ).where(
                SyncRecord.project_id == ctx.project_id,
                SyncRecord.source_item_id.in_([item.id for item in synced]),
            )
        )
    }
    edits_unseen = ctx.source in COUNTS_ONLY
    return [
        item.id
        for item in synced
        if item.comment_count is None
        or item.comment_count != _count_read(records.get(item.id))
        or (edits_unseen and _changed_there(item, records.get(item.id)))
    ]


def _count_read(record: Any) -> int:
    return int(record["comment_count"] or 0) if record is not None else 0


def _changed_there(item: SourceItem, record: Any) -> bool:
    """Whether a linked item has a new revision there that changed none of its synced fields
    (an edit of one of its comments, perhaps): not a change sent from here, whose version is
    kept already, nor a change of its fields, which a pull reads without its comments (under a
    source's throttling, every request a pull adds is one more that may have to wait)."""
    if record is None or record["version"] in (None, item.version):
        return False
    return bool(record["seen"] == inbound.seen_of(item))


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
    """The item's comments read there (None: not read): the new ones stored, those edited or
    deleted there changed here, and, with a `messenger` (not on the first import), the item's
    thread brought in step."""
    if comments is None:
        return
    kept = {
        row["source_comment_id"]: row
        for row in await uow.rows(
            select(
                SyncComment.message_id.label("row_id"),
                SyncComment.source_comment_id,
                SyncComment.tried_at,
                DiscussionMessage.message_id,
                DiscussionMessage.body,
                DiscussionMessage.deleted_at,
            )
            .join(DiscussionMessage, DiscussionMessage.id == SyncComment.message_id)
            .where(SyncComment.item_id == item_id, SyncComment.source_comment_id.is_not(None))
        )
    }
    tried = await waiting(uow, item_id=item_id, tried=True)
    tells = messenger is not None
    for comment in comments:
        author = comment.author.display_name if comment.author else UNKNOWN_AUTHOR
        body = reply_html(author, comment.text)
        mine = kept.get(comment.id)
        if mine is not None:
            if _theirs(mine) and mine["body"] != body:
                await _revised(uow, mine, body, tells=tells)
            continue
        if any(reads_as(comment, waiting_one) for waiting_one in tried):
            continue
        member = ctx.people.match(comment.author) if comment.author else None
        row_id, thread = await discussions.record_source_comment(
            uow,
            item_id=item_id,
            message_id=stand_in_id(comment.id),
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
        if tells and thread is not None:
            await show(uow, message_id=row_id)
    there = {comment.id for comment in comments}
    for source_comment_id, gone in kept.items():
        if source_comment_id not in there and _theirs(gone):
            await _revised(uow, gone, None, tells=tells)
            await uow.execute(delete(SyncComment).where(SyncComment.message_id == gone["row_id"]))
    await ctx.people.keep(uow)
    await uow.execute(
        update(SyncRecord)
        .where(SyncRecord.item_id == item_id)
        .values(comment_count=source_item.comment_count)
    )


def _theirs(kept: Any) -> bool:
    """A comment that came from the source, still shown here (a comment made here is a
    person's message in Teams: the source's edits of it stay there)."""
    return kept["tried_at"] is None and kept["deleted_at"] is None


async def _revised(uow: UnitOfWork, kept: Any, body: str | None, *, tells: bool) -> None:
    """Edited there (`body`, its new HTML) or deleted there (None); the thread follows."""
    at = uow.clock.now()
    await discussions.revise_source_comment(uow, row_id=kept["row_id"], body=body, at=at)
    if tells and told(kept["message_id"]):
        await show(uow, message_id=kept["row_id"])
