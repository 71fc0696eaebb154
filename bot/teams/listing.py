"""List commands: `bugs`, `bugs/my`, `bugs/name/…`, … as a page of the list card.

The chat's filters are written as OData and parsed like the REST API's, so they pass the same
validation; user text is quoted as an OData string. In a chat, lists show the caller's items
across their channels (the personal view).
"""

from functools import lru_cache

from bot.db.uow import UnitOfWork
from bot.directory.users import find_user
from bot.errors import NotFound
from bot.items import read
from bot.items.queries import entity_set
from bot.odata.query import Query, parse_query
from bot.schemas import ItemKind
from bot.teams import grammar, personal, views
from bot.teams.context import BotContext
from cards.layout import Card
from cards.listing import MAX_ROWS, ItemList, list_card

# The highest number first: the newest, in the order people know them.
NEWEST_FIRST = "internalId desc"
QUERIES_KEPT = 1024  # parsed list queries, by kind, filter and first row


def quoted(text: str) -> str:
    """`text` as an OData string literal."""
    return "'" + text.replace("'", "''") + "'"


async def list_card_for(
    ctx: BotContext, command: grammar.ListItems, *, text: str, skip: int
) -> Card:
    """One page of the list the command asks for, from row `skip`."""
    kind = command.kind
    total: int | None
    async with ctx.work(write=False) as uow:
        condition = await _filter(uow, ctx, command)
        if ctx.channel is None:
            mine = await personal.my_items(
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
        items=[views.list_row(row) for row in rows],
        command=text,
        channel_id=ctx.channel.teams_channel_id if ctx.channel else None,
        skip=skip,
        more=more,
        total=total,
    )
    return list_card(page)


@lru_cache(maxsize=QUERIES_KEPT)
def _channel_query(kind: ItemKind, condition: str | None, skip: int) -> Query:
    """A page of a channel's list, filtered by `condition`. Kept: people repeat the same few
    commands, and parsing and translating a filter costs more than building the card."""
    params = {"$top": str(MAX_ROWS), "$skip": str(skip), "$count": "true", "$orderby": NEWEST_FIRST}
    if condition:
        params["$filter"] = condition
    return parse_query(params, entity_set(kind))


async def _filter(uow: UnitOfWork, ctx: BotContext, command: grammar.ListItems) -> str | None:
    """The command's conditions as one OData $filter (None: every item)."""
    parts = []
    if command.mine and ctx.channel is not None:  # a chat's lists are the caller's already
        parts.append(f"assignedTo/any(a: a/_id eq {quoted(ctx.actor.user_id)})")
    if command.name:
        parts.append(f"contains(tolower(name), {quoted(command.name.casefold())})")
    if command.status:
        parts.append(f"tolower(status) eq {quoted(command.status.casefold())}")
    if command.priority:
        parts.append(f"tolower(priority) eq {quoted(command.priority.casefold())}")
    if isinstance(command.assignee, grammar.Mention):
        ref = command.assignee.aad_object_id or command.assignee.teams_id
        try:
            user = await find_user(uow, ref=ref)
        except NotFound:
            raise NotFound(f"I don't know {command.assignee.name}.") from None
        parts.append(f"assignedTo/any(a: a/_id eq {quoted(user.id)})")
    elif command.assignee:
        who = quoted(command.assignee.casefold())
        parts.append(
            f"assignedTo/any(a: tolower(a/username) eq {who} or tolower(a/email) eq {who})"
        )
    return " and ".join(f"({part})" for part in parts) or None


def _title(command: grammar.ListItems, *, in_chat: bool) -> str:
    noun = command.kind.plural.capitalize()
    if in_chat or command.mine:
        noun = f"My {command.kind.plural}" + (" across channels" if in_chat else "")
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
