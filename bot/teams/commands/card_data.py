"""What cards need read through the services: an item with its channel's statuses, a form's
choices, a channel choice for a chat; and the caller acting in a chosen channel."""

from collections.abc import Awaitable, Callable
from dataclasses import replace

from bot.db.statements import Row
from bot.db.uow import UnitOfWork
from bot.directory.access import resolve_channel, resolve_channel_by_id
from bot.directory.users import list_team_members
from bot.fields.catalog import PRIORITY, SEVERITY, STATUS, load_statuses, shown_values
from bot.fields.schemas import StatusOut
from bot.items import read
from bot.items.schemas import DETAILS, TaskDetails
from bot.items.shortcuts import Whereabouts
from bot.schemas import ItemKind
from bot.sync import whereabouts
from bot.sync_records import item_sync
from bot.sync_records.schemas import ItemSyncStatus
from bot.teams.context import BotContext
from bot.teams.links import item_link
from bot.timestamps import parse_timestamp
from cards import changes
from cards.changes import Note
from cards.choice import Place
from cards.form import ChannelChoices
from cards.item import item_card, kind_of
from cards.layout import Card, Problem
from cards.listing import ListRow

# A change to an item, given it as it was; it may name another item to show, or, having found
# nothing to do, say why (a Note in place of "Nothing changed").
Change = Callable[[UnitOfWork, TaskDetails], Awaitable[str | Note | None]]


def status_shown(status: Row) -> StatusOut:
    """A status as cards read it: names, order, kind and category; no OData links to show."""
    fields = ("name", "color", "category", "description", "primary", "order", "value", "type")
    return StatusOut.model_validate(
        {
            "@odata.context": "",
            "@odata.editLink": "",
            "@odata.id": "",
            "_id": status.id,
            "createdAt": status.created_at,
            "updatedAt": status.updated_at,
            **{field: getattr(status, field) for field in fields},
        }
    )


def details_model(kind: ItemKind, row: read.Details) -> TaskDetails:
    return DETAILS[kind].model_validate(row)


def list_row(row: read.Details) -> ListRow:
    """A list card's row from an item's details, read by their API names."""
    return ListRow(
        id=row["_id"],
        internal_id=row["internalId"],
        name=row["name"],
        status=row["status"],
        channel_id=row["channelId"],
        assignees=[user["displayName"] for user in row["assignedTo"]],
        priority=row["priority"],
        due_date=parse_timestamp(row["dueDate"]) if row["dueDate"] else None,
        # The Done rule keeps a completed date exactly while the item is in a Done status.
        done=row["completedDate"] is not None,
    )


async def choices(uow: UnitOfWork, *, kind: ItemKind) -> ChannelChoices:
    """The channel's values of the kind's fields, in order, and its team's members."""
    assert uow.channel is not None
    values = await shown_values(uow, channel_id=uow.channel.channel_id, kind=kind)

    def of(field: str) -> list[Row]:
        return [value for value in values if value.field == field]

    return ChannelChoices(
        statuses=[status_shown(status) for status in of(STATUS)],
        priorities=[value.name for value in of(PRIORITY)],
        severities=[value.name for value in of(SEVERITY)],
        members=await list_team_members(uow, scope=uow.channel),
    )


async def statuses(uow: UnitOfWork, *, kind: ItemKind) -> list[StatusOut]:
    """The channel's statuses of the kind: all an item card shows beside the item."""
    assert uow.channel is not None
    rows = await load_statuses(uow, channel_id=uow.channel.channel_id, kind=kind)
    return [status_shown(status) for status in rows]


async def details(uow: UnitOfWork, *, kind: ItemKind, item_id: str) -> TaskDetails:
    """An item of the unit of work's channel, as it stands now."""
    return details_model(kind, await read.get_details(uow, kind=kind, item_id=item_id))


async def item_view(
    uow: UnitOfWork,
    *,
    kind: ItemKind,
    item_id: str,
    public_url: str,
    discussion_url: str | None = None,
    note: Note | None = None,
    problem: Problem | None = None,
) -> Card:
    """The item card of an item of the unit of work's channel, as it stands now."""
    return await card_of(
        uow,
        await details(uow, kind=kind, item_id=item_id),
        public_url=public_url,
        discussion_url=discussion_url,
        note=note,
        problem=problem,
    )


async def card_of(
    uow: UnitOfWork,
    item: TaskDetails,
    *,
    public_url: str,
    discussion_url: str | None = None,
    note: Note | None = None,
    problem: Problem | None = None,
) -> Card:
    """The item card of an item already read, opening its page under `public_url`: `note` says
    what was done, `problem` what could not be; times relative to the unit of work's clock; a
    synced item says where it lives and its sync problem."""
    unmapped = item.sync.status == ItemSyncStatus.MAPPING_NOTFOUND
    state = await item_sync.source_state(uow, item.id) if unmapped else None
    return item_card(
        item,
        statuses=await statuses(uow, kind=kind_of(item)),
        item_url=item_link(public_url, kind_of(item), item.id),
        discussion_url=discussion_url,
        now=uow.clock.now(),
        note=note,
        problem=problem,
        synced=whereabouts.synced_at(item, source_state=state),
    )


async def changed_view(
    uow: UnitOfWork, *, kind: ItemKind, item_id: str, change: Change, public_url: str
) -> Card:
    """Apply `change` to the item and answer with its card saying what the change did, down to
    "Nothing changed"; a change that names another item shows that one (a clone, its copy)."""
    assert uow.actor is not None, "someone makes every change"
    actor = uow.actor.display_name
    before = await details(uow, kind=kind, item_id=item_id)
    outcome = await change(uow, before)
    if isinstance(outcome, Note):
        return await card_of(uow, before, public_url=public_url, note=outcome)
    shown = outcome or item_id
    after = await details(uow, kind=kind, item_id=shown)
    if shown != item_id:
        return await card_of(
            uow, after, public_url=public_url, note=changes.copied(actor, before, after)
        )
    note = changes.change(actor, before, after, actor_id=uow.actor.user_id)
    return await card_of(uow, after, public_url=public_url, note=note)


async def created_view(uow: UnitOfWork, *, kind: ItemKind, item_id: str, public_url: str) -> Card:
    """The card of an item just created, saying so."""
    assert uow.actor is not None, "someone creates every item"
    item = await details(uow, kind=kind, item_id=item_id)
    note = changes.created(uow.actor.display_name, item)
    return await card_of(uow, item, public_url=public_url, note=note)


def place(where: Whereabouts) -> Place:
    return Place(where.team_id, where.channel_id, where.team_name, where.channel_name)


async def in_channel(ctx: BotContext, *, team_id: str | None, channel_id: str) -> BotContext:
    """The caller acting in a channel a card or a choice named, checked like any request."""
    async with ctx.work(write=False) as uow:
        if team_id:
            scope = await resolve_channel(
                uow, user_id=ctx.actor.user_id, team_id=team_id, channel_id=channel_id
            )
        else:
            scope = await resolve_channel_by_id(
                uow, user_id=ctx.actor.user_id, channel_id=channel_id
            )
    return replace(ctx, channel=scope)
