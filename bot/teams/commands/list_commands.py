"""List commands: `bugs`, `bugs/my`, `bugs/name/…`, … as a page of the list card.

The chat's filters are built as OData syntax trees, checked and translated like the REST API's
filters, with no text to quote and parse again. In a chat, lists show the caller's items across
their channels (the personal view).
"""

from functools import reduce

from odata_query import ast

from bot.db.uow import UnitOfWork
from bot.directory.users import find_user
from bot.errors import NotFound
from bot.items import read
from bot.items.queries import entity_set
from bot.lru import LeastRecentlyUsed
from bot.odata.model import SortKey
from bot.odata.parse import check_characters
from bot.odata.query import Query, built_query
from bot.schemas import ItemKind
from bot.teams.commands import card_data, grammar, my_items
from bot.teams.context import BotContext
from cards.layout import Card, Problem
from cards.listing import MAX_ROWS, ItemList, QuickFilters, list_card

QUERIES_KEPT = 1024  # channel list queries, by kind, filter and first row
_QUERIES: LeastRecentlyUsed[tuple[ItemKind, str, int], Query] = LeastRecentlyUsed(QUERIES_KEPT)
_ASSIGNEE = ast.Identifier("a")  # in `assignedTo/any(a: …)`
# `completedDate eq null`: the Done rule fills an item's completed date as it moves into a Done
# status and clears it as it leaves one, whichever door the change came through, so it marks
# the items done in any channel (a chat's list spans several, each with its own statuses).
_NOT_DONE = ast.Compare(ast.Eq(), ast.Identifier("completedDate"), ast.Null())


async def list_card_for(
    ctx: BotContext,
    command: grammar.ListItems,
    *,
    text: str,
    skip: int,
    problem: Problem | None = None,
) -> Card:
    """One page of the list the command asks for, from row `skip`; `problem`, what a click on
    the list could not do, above its buttons."""
    kind = command.kind
    total: int | None
    async with ctx.work(write=False) as uow:
        condition = await _filter(uow, ctx, command)
        if ctx.channel is None:
            mine = await my_items.my_items(
                uow, kind=kind, condition=condition, skip=skip, top=MAX_ROWS
            )
            rows, more, total = mine.rows, mine.more, mine.total
        else:
            query = _channel_query(kind, condition, skip)
            found = await read.list_items(uow, kind=kind, query=query)
            rows, more, total = found.rows, found.last_read is not None, found.count
    page = ItemList(
        title=_title(command, in_chat=ctx.channel is None),
        kind=kind,
        items=[card_data.list_row(row) for row in rows],
        command=text,
        channel_id=ctx.channel.teams_channel_id if ctx.channel else None,
        skip=skip,
        more=more,
        total=total,
        filters=_quick_filters(command, in_chat=ctx.channel is None),
        now=ctx.clock.now(),
    )
    return list_card(page, problem=problem)


def _quick_filters(command: grammar.ListItems, *, in_chat: bool) -> QuickFilters:
    """Mine, Open and All as commands, and the one the list shows; in a chat every list is the
    caller's, so there is no Mine."""
    plural = command.kind.plural
    mine, open_, all_ = None if in_chat else f"my {plural}", f"open {plural}", plural
    current = next(
        (each for each in (mine, open_, all_) if each and grammar.parse(each) == command), None
    )
    return QuickFilters(mine=mine, open=open_, all=all_, current=current)


def _channel_query(kind: ItemKind, condition: ast._Node | None, skip: int) -> Query:
    """A page of a channel's list, filtered by `condition`, the highest number (the newest, in
    the order people know them) first. Kept: people repeat the same few commands, and
    translating a filter costs more than building the card."""
    key = (kind, repr(condition), skip)
    kept = _QUERIES.get(key)
    if kept is not None:
        return kept
    entity = entity_set(kind)
    newest_first = (SortKey(entity.properties["internalId"], descending=True),)
    query = built_query(condition, entity, order=newest_first, top=MAX_ROWS, skip=skip, count=True)
    return _QUERIES.put(key, query)


async def _filter(uow: UnitOfWork, ctx: BotContext, command: grammar.ListItems) -> ast._Node | None:
    """The command's conditions as one filter (None: every item)."""
    parts: list[ast._Node] = []
    if command.mine and ctx.channel is not None:  # a chat's lists are the caller's already
        parts.append(_assigned_to_user(ctx.actor.user_id))
    if command.open:
        parts.append(_NOT_DONE)
    if command.name:
        parts.append(name_contains(command.name))
    if command.status:
        parts.append(_lower_equals(ast.Identifier("status"), command.status))
    if command.priority:
        parts.append(_lower_equals(ast.Identifier("priority"), command.priority))
    if isinstance(command.assignee, grammar.Mention):
        ref = command.assignee.aad_object_id or command.assignee.teams_id
        try:
            user = await find_user(uow, ref=ref)
        except NotFound:
            raise NotFound(f"I don't know {command.assignee.name}.") from None
        parts.append(_assigned_to_user(user.id))
    elif command.assignee:
        username, email = (ast.Attribute(_ASSIGNEE, name) for name in ("username", "email"))
        who = command.assignee
        either = ast.BoolOp(ast.Or(), _lower_equals(username, who), _lower_equals(email, who))
        parts.append(_assigned_to(either))
    if not parts:
        return None
    return reduce(lambda left, right: ast.BoolOp(ast.And(), left, right), parts)


def name_contains(text: str) -> ast._Node:
    """`contains(tolower(name), '<text>')`: the title holds the text, whatever the case."""
    return ast.Call(ast.Identifier("contains"), [_lower(ast.Identifier("name")), _typed(text)])


def _lower_equals(node: ast._Node, text: str) -> ast._Node:
    """`tolower(<node>) eq '<text>'`."""
    return ast.Compare(ast.Eq(), _lower(node), _typed(text))


def _lower(node: ast._Node) -> ast._Node:
    return ast.Call(ast.Identifier("tolower"), [node])


def _typed(text: str) -> ast.String:
    """What the user typed, folded as the comparison folds it; refused as in a $filter."""
    check_characters(text)
    return ast.String(text.casefold())


def _assigned_to_user(user_id: str) -> ast._Node:
    """`assignedTo/any(a: a/_id eq '<user_id>')`."""
    return _assigned_to(ast.Compare(ast.Eq(), ast.Attribute(_ASSIGNEE, "_id"), ast.String(user_id)))


def _assigned_to(condition: ast._Node) -> ast._Node:
    return ast.CollectionLambda(
        ast.Identifier("assignedTo"), ast.Any(), ast.Lambda(_ASSIGNEE, condition)
    )


def _title(command: grammar.ListItems, *, in_chat: bool) -> str:
    noun = command.kind.plural.capitalize()
    if command.open:
        noun = f"Open {command.kind.plural}"
    if in_chat or command.mine:
        mine = f"My open {command.kind.plural}" if command.open else f"My {command.kind.plural}"
        noun = mine + (" across channels" if in_chat else "")
    if command.name:
        return f"{noun} named “{command.name}”"
    if command.status:
        return f"{noun} in status “{command.status}”"
    if command.priority:
        return f"{noun} of priority “{command.priority}”"
    if command.assignee:
        name = command.assignee if isinstance(command.assignee, str) else command.assignee.name
        return f"{noun} assigned to {name}"
    return noun
