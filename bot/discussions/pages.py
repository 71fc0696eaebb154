"""A page of a discussion (root and replies, or the replies alone), its count read with the
item's look-up. The statements are built once per shape (which list, which options), the item,
channel and kind bound per request: building them afresh was a large share of a page's time."""

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import Select, bindparam, select

from bot.db.expressions import one_of
from bot.db.statements import Prepared
from bot.db.tables import Item
from bot.db.uow import UnitOfWork
from bot.discussions.service import (
    MESSAGE,
    MESSAGES,
    Place,
    item_thread_statement,
    place_of,
    scope_of,
    thread_of,
)
from bot.errors import NotFound
from bot.ids import is_id
from bot.lru import LeastRecentlyUsed
from bot.odata.query import Query, apply, count_statement, page
from bot.schemas import ItemKind

_ITEM, _CHANNEL, _KIND = "item_id", "channel_id", "kind"
_STATEMENTS: LeastRecentlyUsed[tuple[Any, ...], Prepared] = LeastRecentlyUsed(256)


@dataclass(frozen=True, slots=True)
class Listing:
    place: Place
    root_id: str | None  # None: the item has no thread (its comments came from its source)
    rows: list[Any]
    count: int | None
    more: bool


async def list_messages(
    uow: UnitOfWork, *, kind: ItemKind, item_id: str, query: Query, replies_only: bool
) -> Listing:
    """A page of the discussion (root and replies, or replies alone) and the count if asked."""
    assert query.filter is None and query.after is None, "discussion lists take neither"
    found = None
    if is_id(item_id):
        values = {_ITEM: item_id, _CHANNEL: scope_of(uow).channel_id, _KIND: kind.value}
        # The count rides along with the item's look-up: one statement fewer per page.
        found = await uow.row(_item_statement(query, replies_only), values)
    if found is None:
        raise NotFound(f"{kind.type_label} '{item_id}' not found.")
    where = {**found, "scope": scope_of(uow)}
    if where["conversation_id"] is None and replies_only:
        listing = await _before_the_thread(uow, query, values, where)
        if listing is not None:
            return listing
    thread = thread_of(kind, item_id, where)  # not discussed at all: a 404 that says so
    rows, more = page(await uow.rows(_page_statement(query, replies_only), values), query)
    count = found["total"] if query.count else None
    return Listing(thread.place, thread.root_id, rows, count, more)


async def _before_the_thread(
    uow: UnitOfWork, query: Query, values: dict[str, Any], where: dict[str, Any]
) -> Listing | None:
    """The comments of an item with no thread: those its source brought in (every message it
    has; they become the thread's replies once it starts). None when it has none."""
    counted = await uow.row(_item_statement(replace(query, count=True), False), values)
    total = counted["total"] if counted is not None else 0
    if not total:
        return None
    rows, more = page(await uow.rows(_page_statement(query, False), values), query)
    return Listing(place_of(where), None, rows, total if query.count else None, more)


def _messages(replies_only: bool) -> Select[Any]:
    statement = select(MESSAGES).where(MESSAGE.item_id == bindparam(_ITEM))
    return statement.where(MESSAGE.reply_to_id.is_not(None)) if replies_only else statement


def _page_statement(query: Query, replies_only: bool) -> Prepared:
    key = ("page", replies_only, query.order, query.top, query.skip)
    return _STATEMENTS.get(key) or _STATEMENTS.put(
        key, Prepared(apply(_messages(replies_only), query))
    )


def _item_statement(query: Query, replies_only: bool) -> Prepared:
    key = ("item", replies_only, query.count)
    found = _STATEMENTS.get(key)
    if found is None:
        statement = item_thread_statement(bindparam(_ITEM), bindparam(_CHANNEL), bindparam(_KIND))
        if query.count:
            total = count_statement(_messages(replies_only), query).scalar_subquery()
            statement = statement.add_columns(total.label("total"))
        found = _STATEMENTS.put(key, Prepared(statement))
    return found


async def messages_of(uow: UnitOfWork, *, item_ids: Sequence[str]) -> dict[str, list[Any]]:
    """The stored messages (roots and replies, oldest first) of the channel's items among
    `item_ids`, by item: an export's page of items in one statement."""
    found: dict[str, list[Any]] = {}
    if item_ids:
        statement = (
            select(MESSAGES)
            .join(Item, Item.id == MESSAGE.item_id)
            .where(one_of(MESSAGE.item_id, item_ids), Item.channel_id == scope_of(uow).channel_id)
            .order_by(MESSAGE.item_id, MESSAGE.created_at, MESSAGE.id)
        )
        for row in await uow.rows(statement):
            found.setdefault(row["item_id"], []).append(row)
    return found
