"""Who an item is assigned to: `assign bug 4 to Grace` adds her, keeping the others (as the
card's "Assign to me" adds the caller), `unassign bug 4 from Grace` takes her off, and the path
form `bug/update/4/assigned/Grace` makes her the only one. A person is named by @mention, `me`,
a UPN or id, or a teammate's name; a name several teammates answer to asks which one."""

from collections.abc import Callable
from dataclasses import dataclass

from bot.db.uow import UnitOfWork
from bot.directory.schemas import UserOut
from bot.directory.users import user_out
from bot.errors import Invalid, NotFound
from bot.items import read, shortcuts
from bot.items import service as items
from bot.items.rules import not_a_member, resolve_assignees
from bot.items.schemas import TaskDetails
from bot.schemas import ItemKind
from bot.teams import people
from bot.teams.commands import card_data, grammar
from bot.teams.commands.card_data import Change
from bot.teams.commands.item_commands import apply_change, channel_of_number, patch_of
from bot.teams.context import BotContext
from cards import changes
from cards.changes import Note
from cards.choice import person_choice
from cards.layout import Card

NOBODY_CALLED = "Nobody on this team is called “{name}”: check the name, or @mention them."
NAME_SHOWN_MAX = 60


@dataclass(frozen=True)
class _Found:
    """The person a command names, and the caller acting in the item's channel."""

    ctx: BotContext
    user: UserOut


async def assign(ctx: BotContext, command: grammar.Assign) -> Card:
    kind, number = command.kind, command.internal_id
    if command.only:
        form = f"{kind.value}/update/{number}/assigned/{{}}"
    else:
        form = f"assign {kind.value} {number} to {{}}"
    found = await _person(ctx, kind, number, command.assignee, form)
    if not isinstance(found, _Found):
        return found
    user_id, name = found.user.id, found.user.display_name
    change = only(kind, user_id, name) if command.only else joining(kind, user_id, name)
    return await apply_change(found.ctx, kind, number, change)


async def unassign(ctx: BotContext, command: grammar.Unassign) -> Card:
    kind, number = command.kind, command.internal_id
    form = f"unassign {kind.value} {number} from {{}}"
    who = command.assignee
    located = await channel_of_number(ctx, kind, number, form.format(_reference(ctx, who)[0]))
    if not isinstance(located, BotContext):
        return located
    # One of the item's assignees first: someone who has left the team can still be taken off.
    assignee = await _assignee_named(located, kind, number, who)
    if assignee is not None:
        change = leaving(kind, assignee.id, assignee.display_name)
        return await apply_change(located, kind, number, change)
    found = await _person(located, kind, number, who, form)
    if not isinstance(found, _Found):
        return found
    change = leaving(kind, found.user.id, found.user.display_name)
    return await apply_change(found.ctx, kind, number, change)


def joining(kind: ItemKind, user_id: str, name: str) -> Change:
    """The person added to the item's assignees, nobody else taken off; already one: said so."""

    async def change(uow: UnitOfWork, before: TaskDetails) -> Note | None:
        assigned = [user.id for user in before.assigned_to]
        if user_id in assigned:
            return changes.already_assigned(name, before)
        await _assign(uow, kind, before.id, [*assigned, user_id])
        return None

    return change


def leaving(kind: ItemKind, user_id: str, name: str) -> Change:
    """The person taken off the item's assignees, the others kept; not one: said so."""

    async def change(uow: UnitOfWork, before: TaskDetails) -> Note | None:
        assigned = [user.id for user in before.assigned_to]
        if user_id not in assigned:
            return changes.not_assigned(name, before)
        await _assign(uow, kind, before.id, [other for other in assigned if other != user_id])
        return None

    return change


def only(kind: ItemKind, user_id: str, name: str) -> Change:
    """The person as the item's one assignee; already so: said so."""

    async def change(uow: UnitOfWork, before: TaskDetails) -> Note | None:
        if [user.id for user in before.assigned_to] == [user_id]:
            return changes.already_assigned(name, before)
        await _assign(uow, kind, before.id, [user_id])
        return None

    return change


async def _assign(uow: UnitOfWork, kind: ItemKind, item_id: str, user_ids: list[str]) -> None:
    patch = patch_of(kind, assignedTo=user_ids)
    await items.update_item(uow, kind=kind, item_id=item_id, patch=patch)


async def _person(
    ctx: BotContext, kind: ItemKind, number: int, who: grammar.Assignee, form: str
) -> _Found | Card:
    """The team member `who` names, in the channel of the item numbered `number`; a card
    asking which channel, or which namesake, runs the command `form` names a person in."""
    ref, said = _reference(ctx, who)
    located = await channel_of_number(ctx, kind, number, form.format(ref))
    if not isinstance(located, BotContext):
        return located
    if isinstance(who, str) and not people.is_reference(who):
        chosen = await _teammate(located, who, command_for=lambda user: form.format(user.username))
        return _Found(located, chosen) if isinstance(chosen, UserOut) else chosen
    async with located.work(write=False) as uow:
        try:
            [user] = await resolve_assignees(uow, refs=[ref])
        except Invalid:
            # A mention reaches the service as an Entra id: name the person as the caller did.
            raise not_a_member(said) from None
    return _Found(located, user_out(user))


async def _assignee_named(
    ctx: BotContext, kind: ItemKind, number: int, who: grammar.Assignee
) -> UserOut | None:
    """The one assignee of the item that `who` names (by mention, `me`, UPN, id or name), if
    exactly one does; only the item's own assignees are looked at, so nobody else is named."""
    async with ctx.work(write=False) as uow:
        item_id = await shortcuts.item_id_by_number(uow, kind=kind, internal_id=number)
        details = card_data.details_model(
            kind, await read.get_details(uow, kind=kind, item_id=item_id)
        )
    assigned = details.assigned_to
    if isinstance(who, str) and not people.is_reference(who):
        found = people.called(assigned, who)
    else:
        ref = _reference(ctx, who)[0]
        found = [
            user
            for user in assigned
            if ref in (user.id, user.source_id, user.email) or ref.lower() == user.username
        ]
    return found[0] if len(found) == 1 else None


async def _teammate(
    ctx: BotContext, name: str, *, command_for: Callable[[UserOut], str]
) -> UserOut | Card:
    """The one member of the channel's team called `name`; several: a card asking which."""
    assert ctx.channel is not None
    async with ctx.work(write=False) as uow:
        found = await people.named(uow, name=name)
    if not found:
        raise NotFound(NOBODY_CALLED.format(name=name[:NAME_SHOWN_MAX]))
    if len(found) == 1:
        return found[0]
    return person_choice(
        f"Several people on this team are called “{name[:NAME_SHOWN_MAX]}”: which one?",
        command_for=command_for,
        people=found,
        team_id=ctx.channel.teams_team_id,
        channel_id=ctx.channel.teams_channel_id,
    )


def _reference(ctx: BotContext, who: grammar.Assignee) -> tuple[str, str]:
    """The reference a mention, `me` or a UPN gives the service, and how the caller named it;
    nobody is looked up here, so a refusal cannot name a user the caller did not."""
    if isinstance(who, grammar.Me):
        return ctx.actor.user_id, ctx.actor.username
    if isinstance(who, str):
        return who, who
    return who.aad_object_id or who.teams_id, who.name
