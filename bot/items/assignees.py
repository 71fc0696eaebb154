"""The one writer of `item_assignees`.

Each row carries copies of its item's kind, channel and creation time, which the personal views
sort and check by (`bot.me.queries`). The copies are taken by the database from the items table
in the very statement that inserts the row, and the item never changes those columns afterwards,
so they cannot drift; `tests/items/test_assignee_copies.py` compares them after every kind of write.
"""

from collections.abc import Sequence
from typing import cast

from sqlalchemy import Integer, String, Table, bindparam, delete, insert, select

from bot.db.tables import Item, ItemAssignee
from bot.uow import UnitOfWork

_COLUMNS = ("item_id", "user_id", "position", "kind", "channel_id", "created_at")


async def set_assignees(
    uow: UnitOfWork, *, item_ids: Sequence[str], user_ids: Sequence[str], replace: bool
) -> None:
    """Give each of the items (already stored) these assignees, in this order; `replace` removes
    the ones they had first (a new item has none)."""
    if not item_ids:
        return
    if replace:
        await uow.session.execute(delete(ItemAssignee).where(ItemAssignee.item_id.in_(item_ids)))
    # One set-based statement per assignee (a list names a few), each covering every item.
    rows = select(
        Item.id,
        bindparam("user_id", type_=String()),
        bindparam("position", type_=Integer()),
        Item.kind,
        Item.channel_id,
        Item.created_at,
    ).where(Item.id.in_(item_ids))
    # The Core table: given parameters, an ORM insert would take them for rows to insert.
    statement = insert(cast(Table, ItemAssignee.__table__)).from_select(_COLUMNS, rows)
    for position, user_id in enumerate(user_ids):
        await uow.session.execute(statement, {"user_id": user_id, "position": position})
