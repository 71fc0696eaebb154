"""The one writer of `item_assignees`, and the column that reads an item's assignees with it.

Each row carries copies of its item's kind, channel and creation time, which the personal views
sort and check by (`bot.me.queries`). The copies are taken by the database from the items table
in the very statement that inserts the row, and the item never changes those columns afterwards,
so they cannot drift; `tests/items/test_assignee_copies.py` compares them after every kind of write.
"""

from collections.abc import Sequence
from typing import Any, cast

import orjson
from sqlalchemy import (
    ColumnElement,
    Integer,
    String,
    Table,
    bindparam,
    delete,
    func,
    insert,
    select,
)
from sqlalchemy.dialects.postgresql import aggregate_order_by
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.visitors import InternalTraversal
from sqlalchemy.types import TypeDecorator

from bot.db.expressions import one_of
from bot.db.tables import Item, ItemAssignee
from bot.uow import UnitOfWork

_COLUMNS = ("item_id", "user_id", "position", "kind", "channel_id", "created_at")
# An alias: the personal views read items from the caller's own assignments already.
_ASSIGNED = cast(Table, ItemAssignee.__table__).alias("assigned")


def assignee_ids(item_id: ColumnElement[str]) -> ColumnElement[list[str]]:
    """The user ids assigned to the item `item_id` names, in their order, as a column of the
    item's row: lists read them in the same statement as the items."""
    return _AssigneeIds(item_id)


async def set_assignees(
    uow: UnitOfWork, *, item_ids: Sequence[str], user_ids: Sequence[str], replace: bool
) -> None:
    """Give each of the items (already stored) these assignees, in this order; `replace` removes
    the ones they had first (a new item has none)."""
    if not item_ids:
        return
    if replace:
        await uow.session.execute(
            delete(ItemAssignee).where(one_of(ItemAssignee.item_id, item_ids))
        )
    if not user_ids:  # most creates: not even the statement is worth building
        return
    # One set-based statement per assignee (a list names a few), each covering every item.
    rows = select(
        Item.id,
        bindparam("user_id", type_=String()),
        bindparam("position", type_=Integer()),
        Item.kind,
        Item.channel_id,
        Item.created_at,
    ).where(one_of(Item.id, item_ids))
    # The Core table: given parameters, an ORM insert would take them for rows to insert.
    statement = insert(cast(Table, ItemAssignee.__table__)).from_select(_COLUMNS, rows)
    for position, user_id in enumerate(user_ids):
        await uow.session.execute(statement, {"user_id": user_id, "position": position})


class _IdsInOrder(TypeDecorator[list[str]]):
    """PostgreSQL's array as it is; SQLite's JSON `[[position, id], …]` put in order."""

    impl = String
    cache_ok = True

    def process_result_value(self, value: Any, dialect: Dialect) -> list[str]:
        if value is None or value == "[]":  # most items have no assignee
            return []
        if isinstance(value, str):
            return [user_id for _position, user_id in sorted(orjson.loads(value))]
        return list(value)


class _AssigneeIds(ColumnElement[list[str]]):
    type = _IdsInOrder()
    inherit_cache = True
    _traverse_internals = [("item_id", InternalTraversal.dp_clauseelement)]

    def __init__(self, item_id: ColumnElement[str]) -> None:
        self.item_id = item_id

    @property
    def _from_objects(self) -> list[Any]:  # the FROM the item id needs
        return self.item_id._from_objects


@compiles(_AssigneeIds, "postgresql")
def _assignee_ids_postgresql(element: _AssigneeIds, compiler: SQLCompiler, **kw: Any) -> str:
    ordered = aggregate_order_by(_ASSIGNED.c.user_id, _ASSIGNED.c.position)
    ids = select(func.array_agg(ordered)).where(_ASSIGNED.c.item_id == element.item_id)
    return str(compiler.process(ids.scalar_subquery(), **kw))


@compiles(_AssigneeIds, "sqlite")
def _assignee_ids_sqlite(element: _AssigneeIds, compiler: SQLCompiler, **kw: Any) -> str:
    # SQLite 3.40 has no ORDER BY inside an aggregate: positions travel along, Python sorts.
    pairs = func.json_group_array(func.json_array(_ASSIGNED.c.position, _ASSIGNED.c.user_id))
    ids = select(pairs).where(_ASSIGNED.c.item_id == element.item_id)
    return str(compiler.process(ids.scalar_subquery(), **kw))
