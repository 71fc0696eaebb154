"""The caller's items across channels, for lists in 1:1 and group chats: the personal views'
service (`bot/me/`) under the chat's page arguments."""

from dataclasses import dataclass

from odata_query import ast

from bot.db.uow import UnitOfWork
from bot.items import read
from bot.me import service as me
from bot.me.queries import my_items as my_items_set
from bot.odata.model import SortKey
from bot.odata.query import built_query
from bot.schemas import ItemKind


@dataclass(frozen=True)
class MyPage:
    rows: list[read.Details]  # the details shape plus teamName and channelName, newest first
    more: bool
    total: int


async def my_items(
    uow: UnitOfWork,
    *,
    kind: ItemKind,
    condition: ast._Node | None,
    skip: int,
    top: int,
    recently_changed: bool = False,
) -> MyPage:
    """Items of `kind` assigned to the caller in every channel they may read, that also meet
    `condition` (a $filter's syntax tree): newest first, or the most recently changed first."""
    items_set = my_items_set(kind)
    order = (SortKey(items_set.properties["updatedAt"], descending=True),)
    query = built_query(
        condition,
        items_set,
        order=order if recently_changed else (),
        top=top,
        skip=skip,
        count=True,
    )
    found = await me.list_my_items(uow, kind=kind, query=query)
    return MyPage(found.rows, found.last_read is not None, found.count or 0)
