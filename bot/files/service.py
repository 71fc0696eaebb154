"""Attachments: the rows in the database, the bytes in the file store. A file is moved into
place inside the transaction that adds its row (and removed again if that fails); files of rows
a transaction drops are removed only after it commits."""

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from sqlalchemy import Table, delete, insert, select

from bot.db.expressions import one_of
from bot.db.tables import Attachment, Item
from bot.db.uow import ChannelScope, UnitOfWork
from bot.errors import Invalid, NotFound
from bot.files.links import DownloadLinks
from bot.files.schemas import NATIVE_SOURCE
from bot.files.store import FileStore
from bot.files.upload import Upload
from bot.ids import is_id
from bot.odata.query import Query, apply, count_statement, page
from bot.schemas import ItemKind

ATTACHMENT = Attachment.__table__.c
ITEM_PATH = "/api/files/{item}"
FILE_PATH = "/api/files/{item}/{attachment}"


@dataclass(frozen=True)
class StoredFile:
    """Where an attachment's bytes are, and how to serve them."""

    path: Path
    filename: str
    content_type: str


async def find_item(uow: UnitOfWork, *, item_id: str, for_update: bool = False) -> ItemKind:
    """The kind of the channel's bug or task `item_id`, or a 404 (never another channel's)."""
    kind = None
    if is_id(item_id):
        statement = select(Item.kind).where(
            Item.id == item_id, Item.channel_id == _scope(uow).channel_id
        )
        kind = await uow.value(statement.with_for_update() if for_update else statement)
    if kind is None:
        raise NotFound(f"Item '{item_id}' not found.")
    return ItemKind(kind)


async def add_attachment(
    uow: UnitOfWork, *, item_id: str, upload: Upload, store: FileStore, links: DownloadLinks
) -> dict[str, Any]:
    """Attach a received upload to the item: its row, and its file moved into place."""
    scope = _scope(uow)
    sent_channel = upload.fields.get("channelId")
    if sent_channel and sent_channel != scope.teams_channel_id:
        raise Invalid("channelId", "is not the request's channel (x-svc-channelId)")
    # Locked, so a delete of the item running meanwhile either sees this file or refuses it.
    await find_item(uow, item_id=item_id, for_update=True)
    row = {
        "id": upload.attachment_id,
        "item_id": item_id,
        "channel_id": scope.channel_id,
        "filename": upload.filename,
        "content_type": upload.content_type,
        "size": upload.size,
        "created_by": uow.actor.user_id if uow.actor else None,
        "created_at": uow.clock.now(),
    }
    await uow.execute(insert(cast(Table, Attachment.__table__)).values(row))
    await store.place(upload.temporary, upload.attachment_id)
    return shown(row, links)


async def list_attachments(
    uow: UnitOfWork, *, item_id: str, query: Query, links: DownloadLinks
) -> tuple[list[dict[str, Any]], int | None, bool]:
    """A page of the item's attachments (oldest first by default), the count, more to come."""
    await find_item(uow, item_id=item_id)
    statement = _of_channel(uow).where(ATTACHMENT.item_id == item_id)
    rows, more = page(await uow.rows(apply(statement, query)), query)
    count = await uow.value(count_statement(statement, query)) if query.count else None
    return [shown(row, links) for row in rows], count, more


async def delete_attachment(
    uow: UnitOfWork, *, item_id: str, attachment_id: str, store: FileStore
) -> None:
    """Remove the attachment's row; its file goes once the transaction has committed."""
    await find_item(uow, item_id=item_id, for_update=True)
    deleted = []
    if is_id(attachment_id):
        deleted = await uow.execute(
            delete(Attachment)
            .where(
                Attachment.id == attachment_id,
                Attachment.item_id == item_id,
                Attachment.channel_id == _scope(uow).channel_id,
            )
            .returning(Attachment.id)
        )
    if not deleted:
        raise NotFound(f"Attachment '{attachment_id}' not found.")
    uow.on_commit(lambda: store.remove_later([attachment_id]))


async def forget_items_files(uow: UnitOfWork, *, item_ids: Sequence[str], store: FileStore) -> None:
    """For items being deleted: drop their attachments' rows now, their files after commit."""
    gone = await uow.execute(
        delete(Attachment).where(one_of(Attachment.item_id, item_ids)).returning(Attachment.id)
    )
    ids = [row["id"] for row in gone]
    if ids:
        uow.on_commit(lambda: store.remove_later(ids))


async def stored_file(
    uow: UnitOfWork, *, attachment_id: str, store: FileStore, item_id: str | None = None
) -> StoredFile:
    """The attachment's bytes: by a checked download link (any channel), or within the request's
    channel and item."""
    statement = select(*ATTACHMENT).where(ATTACHMENT.id == attachment_id)
    if item_id is not None:
        statement = statement.where(
            ATTACHMENT.item_id == item_id, ATTACHMENT.channel_id == _scope(uow).channel_id
        )
    row = await uow.row(statement) if is_id(attachment_id) else None
    if row is None:
        raise NotFound(f"Attachment '{attachment_id}' not found.")
    return StoredFile(store.path_of(row["id"]), row["filename"], row["content_type"])


async def item_attachments(
    uow: UnitOfWork, *, item_id: str, links: DownloadLinks
) -> list[dict[str, Any]]:
    """Every attachment of one item, oldest first, as item details embed them."""
    statement = (
        _of_channel(uow)
        .where(ATTACHMENT.item_id == item_id)
        .order_by(ATTACHMENT.created_at, ATTACHMENT.id)
    )
    return [shown(row, links) for row in await uow.rows(statement)]


async def attachments_of(uow: UnitOfWork, *, item_ids: Sequence[str]) -> dict[str, list[Any]]:
    """The attachment rows of the channel's items among `item_ids`, oldest first, by item (an
    export's page of items: one statement, not one per item)."""
    found: dict[str, list[Any]] = {}
    if item_ids:
        statement = (
            _of_channel(uow)
            .where(one_of(ATTACHMENT.item_id, item_ids))
            .order_by(ATTACHMENT.created_at, ATTACHMENT.id)
        )
        for row in await uow.rows(statement):
            found.setdefault(row["item_id"], []).append(row)
    return found


def shown(row: Any, links: DownloadLinks) -> dict[str, Any]:
    """The API's Attachment shape of a row."""
    path = FILE_PATH.format(item=row["item_id"], attachment=row["id"])
    return {
        "_id": row["id"],
        "source": NATIVE_SOURCE,
        "sourceId": row["id"],
        "sourceUrl": links.base_url + path,
        "downloadUrl": links.url(row["id"]),
        "filename": row["filename"],
        "size": row["size"],
    }


def _of_channel(uow: UnitOfWork) -> Any:
    return select(*ATTACHMENT).where(ATTACHMENT.channel_id == _scope(uow).channel_id)


def _scope(uow: UnitOfWork) -> ChannelScope:
    assert uow.channel is not None, "attachments are reached in a channel"
    return uow.channel
