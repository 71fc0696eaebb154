"""`settings`: the channel's notification rules, each with a switch, and its noise settings in a
form; the card's buttons switch a rule and save the form through the services the API uses,
with the API's own checks. Every answer is the settings card again, with a line saying what
changed, or why nothing did (beside the field the form got wrong, as it was typed)."""

import re
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from bot.db.uow import UnitOfWork
from bot.directory import channel_settings
from bot.directory.schemas import ChannelSettingsPatch
from bot.errors import BadRequest, DomainError
from bot.events import notification_rules
from bot.events import service as events
from bot.events.schemas import DefinitionPatch
from bot.teams.commands import card_data, grammar
from bot.teams.context import BotContext
from cards import verbs
from cards.layout import Card
from cards.settings import Note, Typed, settings_card

SETTINGS_IN_A_CHANNEL = (
    "Settings belong to a channel: say settings in a channel where I am installed."
)
NOT_SAVED = "Nothing was saved: see the fields marked below."
NEEDED_FOR_QUIET_HOURS = "Needed for quiet hours (or leave all three empty)"
_WHOLE = re.compile(r"-?[0-9]{1,18}")  # longer is no setting's value: left as text, refused
# Where the form shows what the API's checks say of each field of the body.
_INPUT_OF = {
    ("dueSoonMinutes",): verbs.DUE_SOON,
    ("digestWindowSeconds",): verbs.DIGEST_WINDOW,
    ("digestThreshold",): verbs.DIGEST_THRESHOLD,
    ("quietHours", "start"): verbs.QUIET_START,
    ("quietHours", "end"): verbs.QUIET_END,
    ("quietHours", "timeZone"): verbs.QUIET_TIME_ZONE,
}


async def settings(ctx: BotContext, _command: grammar.ChannelSettings) -> Card:
    if ctx.channel is None:
        raise BadRequest(SETTINGS_IN_A_CHANNEL)
    async with ctx.work(write=False) as uow:
        return await _card(uow, ctx)


async def switch_rule(ctx: BotContext, data: verbs.SwitchRule, _raw: Mapping[str, Any]) -> Card:
    """Switch one rule as `PATCH /odata/eventDefinitions({id})` `{"enable": …}` would."""
    ctx = await card_data.in_channel(ctx, team_id=None, channel_id=data.channel_id)
    switched = "on" if data.enable else "off"
    try:
        async with ctx.work() as uow:
            patch = DefinitionPatch(enable=data.enable)
            rule = await events.update_definition(
                uow, definition_id=data.definition_id, patch=patch
            )
            note = Note(f"{ctx.actor.display_name} switched {switched} “{rule.name}”.")
    except DomainError as exc:  # the rule was deleted meanwhile, say
        note = Note(exc.said, refused=True)
    async with ctx.work(write=False) as uow:
        return await _card(uow, ctx, note=note)


async def save(ctx: BotContext, data: verbs.SaveSettings, _raw: Mapping[str, Any]) -> Card:
    """Apply the form as `PATCH /api/channel/settings` would, every field sent; a refusal
    answers the form again as typed, with what is wrong beside each field."""
    ctx = await card_data.in_channel(ctx, team_id=None, channel_id=data.channel_id)
    try:
        patch = ChannelSettingsPatch.model_validate(_body_of(data))
    except ValidationError as exc:
        async with ctx.work(write=False) as uow:
            typed = Typed(data.typed(), _errors(exc))
            return await _card(uow, ctx, note=Note(NOT_SAVED, refused=True), typed=typed)
    async with ctx.work() as uow:
        await channel_settings.update_settings(uow, patch=patch, settings=ctx.settings)
        note = Note(f"{ctx.actor.display_name} saved the settings.")
        return await _card(uow, ctx, note=note)


async def _card(
    uow: UnitOfWork, ctx: BotContext, *, note: Note | None = None, typed: Typed | None = None
) -> Card:
    assert ctx.channel is not None
    rules, total = await notification_rules.list_rules(uow)
    current = await channel_settings.read_settings(uow, settings=ctx.settings)
    return settings_card(
        channel_id=ctx.channel.teams_channel_id,
        rules=rules,
        total=total,
        current=current,
        note=note,
        typed=typed,
    )


def _body_of(data: verbs.SaveSettings) -> dict[str, Any]:
    """The form as the API's body: numbers as typed read as numbers, an empty input null
    (the installation's setting), quiet hours null when all three are empty."""
    quiet = {
        key: value.strip()
        for key, value in (
            ("start", data.quiet_start),
            ("end", data.quiet_end),
            ("timeZone", data.quiet_time_zone),
        )
        if value is not None
    }
    return {
        "dueSoonMinutes": _number(data.due_soon_minutes),
        "digestWindowSeconds": _number(data.digest_window_seconds),
        "digestThreshold": _number(data.digest_threshold),
        "quietHours": quiet or None,
    }


def _number(typed: str | None) -> int | str | None:
    """A whole number as typed, as a number; anything else stays text, for the checks to refuse
    as the API refuses it."""
    if typed is None:
        return None
    text = typed.strip()
    return int(text) if _WHOLE.fullmatch(text) else text


def _errors(exc: ValidationError) -> dict[str, str]:
    """What is wrong, by the form's input id (the first problem of each)."""
    errors: dict[str, str] = {}
    for error in exc.errors(include_url=False):
        where = _INPUT_OF.get(tuple(str(part) for part in error["loc"]), verbs.QUIET_HOURS)
        message = NEEDED_FOR_QUIET_HOURS if error["type"] == "missing" else error["msg"]
        errors.setdefault(where, message)
    return errors
