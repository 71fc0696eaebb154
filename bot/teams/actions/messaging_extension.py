"""The messaging extension: "Find a bug/task" search, "Create a bug from this message", and
unfurling the app's own item links."""

import logging
import re
from collections.abc import Iterable, Mapping
from typing import Any

from botbuilder.core import CardFactory, TurnContext
from botbuilder.schema import Activity, ActivityTypes, ThumbnailCard
from odata_query import ast
from pydantic import ValidationError

from bot.discussions.plain import plain_text
from bot.errors import BadRequest, DomainError, NotFound
from bot.fields.schemas import StatusOut
from bot.items import read, shortcuts
from bot.items.queries import entity_set
from bot.items.schemas import TaskDetails
from bot.odata.query import built_query
from bot.schemas import ItemKind
from bot.sync import whereabouts
from bot.teams import links
from bot.teams.actions import card_actions
from bot.teams.commands import card_data, my_items
from bot.teams.commands.list_commands import name_contains
from bot.teams.context import BotContext
from bot.teams.outbound.card_replies import ADAPTIVE
from bot.teams.problems import problem_of
from cards import verbs
from cards.form import Prefill, item_form
from cards.item import facts, item_card, kind_of
from cards.layout import Card

log = logging.getLogger(__name__)

SEARCHES = {"findBug": ItemKind.BUG, "findTask": ItemKind.TASK}
INITIAL_RUN = "initialRun"  # the parameter Teams sends, alone, when a search opens
CREATE_FROM_MESSAGE = "createBugFromMessage"
PAGE_MAX = 25
TITLE_MAX = 255
IN_A_CHANNEL = "Use this in a channel where the app is installed: bugs belong to a channel."
NOT_AN_ITEM_LINK = "This link names no bug or task of this app."
DIALOG_TITLE = "Create a bug"


def _result(attachments: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "composeExtension": {
            "type": "result",
            "attachmentLayout": "list",
            "attachments": attachments,
        }
    }


def message(text: str) -> dict[str, Any]:
    """What a search or unfurl answers when there is nothing to show but a sentence."""
    return {"composeExtension": {"type": "message", "text": text}}


def _attachment(item: TaskDetails, card: Card) -> dict[str, Any]:
    """The item card to insert, and a thumbnail to preview it: with no tap action of its own,
    as tapping a preview is how Teams inserts the card (the card opens the item)."""
    summary = " · ".join(
        value for label, value in facts(item) if label in ("Status", "Assigned to")
    )
    preview = ThumbnailCard(title=f"#{item.internal_id} {item.name}", text=summary)
    return {
        "contentType": ADAPTIVE,
        "content": card,
        "preview": CardFactory.thumbnail_card(preview).serialize(),
    }


async def query(ctx: BotContext, value: Mapping[str, Any]) -> dict[str, Any]:
    """Items whose title contains the text, or whose number it is; with nothing typed (the
    first open), the caller's own items, the most recently changed first."""
    kind = SEARCHES.get(str(value.get("commandId")))
    if kind is None:
        raise BadRequest("Unknown search command.")
    said = _typed(value.get("parameters") or ())
    options = value.get("queryOptions") or {}
    skip, count = int(options.get("skip") or 0), int(options.get("count") or PAGE_MAX)
    top = max(1, min(count, PAGE_MAX))
    condition: ast._Node | None = None
    if said.lstrip("#").isdigit() and len(said) < 10:
        number = ast.Integer(str(int(said.lstrip("#"))))
        condition = ast.Compare(ast.Eq(), ast.Identifier("internalId"), number)
    elif said:
        condition = name_contains(said)
    statuses: list[StatusOut] = []
    async with ctx.work(write=False) as uow:
        if ctx.channel is None or not said:
            # Across the caller's channels, whose statuses differ: the cards offer none.
            found = await my_items.my_items(
                uow, kind=kind, condition=condition, skip=skip, top=top, recently_changed=not said
            )
            rows = found.rows
        else:
            query = built_query(condition, entity_set(kind), top=top, skip=skip, count=False)
            rows = (await read.list_items(uow, kind=kind, query=query)).rows
            statuses = await card_data.statuses(uow, kind=kind)
    results = []
    for row in rows:
        item = card_data.details_model(kind, row)
        results.append(_attachment(item, _item_card(ctx, item, statuses)))
    return _result(results)


def _typed(parameters: Iterable[Mapping[str, Any]]) -> str:
    """The search text; empty on the first open, where Teams sends only `initialRun`."""
    for parameter in parameters:
        if parameter.get("name") and parameter.get("name") != INITIAL_RUN:
            return str(parameter.get("value") or "").strip()
    return ""


async def fetch_task(
    ctx: BotContext, value: Mapping[str, Any], *, bot_id: str | None
) -> dict[str, Any]:
    """The bug form in a dialog, prefilled from the message (the bot's @mentions left out):
    first line as title, all as text."""
    if value.get("commandId") != CREATE_FROM_MESSAGE:
        raise BadRequest("Unknown action command.")
    if ctx.channel is None:
        raise BadRequest(IN_A_CHANNEL)
    payload = _object(value.get("messagePayload"))
    markup = str(_object(payload.get("body")).get("content") or "")
    text = plain_text(without_bot_mentions(markup, payload.get("mentions"), bot_id=bot_id))
    title = text.split("\n", 1)[0][:TITLE_MAX]
    async with ctx.work(write=False) as uow:
        choices = await card_data.choices(uow, kind=ItemKind.BUG)
    card = item_form(
        ItemKind.BUG,
        channel_id=ctx.channel.teams_channel_id,
        choices=choices,
        prefill=Prefill(title=title, description=text),
        in_dialog=True,
    )
    return _dialog(card)


def _dialog(card: Card) -> dict[str, Any]:
    """The answer that opens the dialog with the card, or keeps it open with this one."""
    content = {"contentType": ADAPTIVE, "content": card}
    return {"task": {"type": "continue", "value": {"title": DIALOG_TITLE, "card": content}}}


async def submit_action(
    turn_context: TurnContext, ctx: BotContext, value: Mapping[str, Any]
) -> dict[str, Any] | None:
    """Create the bug, reply in the message's thread with its card, and close the dialog (no
    body: Teams' "no response"); a refusal keeps the dialog open on the form as typed, the
    problem beside its input. A bug created whose card cannot be posted is still reported
    created: its card comes back for the user to insert, so nobody retries into a duplicate."""
    if ctx.channel is None:
        raise BadRequest(IN_A_CHANNEL)
    typed = value.get("data")
    typed = typed if isinstance(typed, dict) else {}
    # The dialog creates a bug in the channel it was opened in, whatever the data says.
    target = verbs.FormTarget(
        verb=verbs.Verb.SAVE_ITEM, kind=ItemKind.BUG, channel_id=ctx.channel.teams_channel_id
    )
    try:
        data = verbs.SaveItem.model_validate({**typed, **target.model_dump()})
        created = await card_actions.create_from_form(ctx, data)
    except (DomainError, ValidationError) as exc:
        problem = problem_of(exc)
        return _dialog(await card_actions.form_again(ctx, target, typed, problem, in_dialog=True))
    conversation = turn_context.activity.conversation
    root = thread_root(
        conversation.id if conversation else "", _object(value.get("messagePayload"))
    )
    try:
        await _reply_in_thread(turn_context, ctx.channel.teams_channel_id, root, created.card)
    except Exception as exc:
        log.warning(
            "bug #%d was created, but its card could not be posted in the thread of %s: %s",
            created.number,
            root or "the channel",
            exc,
        )
        return _created(created)
    return None


def thread_root(conversation_id: str, payload: Mapping[str, Any]) -> str:
    """The root of the thread the message is in: a reply names it (its `replyToId`, and the
    thread's conversation `<channel>;messageid=<root>`); a root is its own."""
    _, _, in_conversation = conversation_id.partition(";messageid=")
    return str(payload.get("replyToId") or in_conversation or payload.get("id") or "")


def without_bot_mentions(markup: str, mentions: Any, *, bot_id: str | None) -> str:
    """The message's HTML without its `<at id="…">` tags that mention the bot (`bot_id`, the
    activity's recipient, `28:<app id>`); people mentioned stay."""
    if not bot_id or not isinstance(mentions, list):
        return markup
    app_id = bot_id.removeprefix("28:")
    for mention in mentions:
        if not isinstance(mention, Mapping):
            continue
        application = _object(_object(mention.get("mentioned")).get("application"))
        if application.get("id") not in (app_id, bot_id):
            continue
        tag_id = re.escape(str(mention.get("id")))
        markup = re.sub(rf"<at\b[^>]*\bid=[\"']?{tag_id}[\"']?[^>]*>.*?</at>", " ", markup)
    return markup


def _created(created: card_actions.CreatedItem) -> dict[str, Any]:
    """The bug's card, to insert in the message, saying it was created."""
    preview = ThumbnailCard(title=f"Created bug #{created.number}: {created.title}")
    attachment = {
        "contentType": ADAPTIVE,
        "content": created.card,
        "preview": CardFactory.thumbnail_card(preview).serialize(),
    }
    return _result([attachment])


def _object(value: Any) -> dict[str, Any]:
    """A JSON object of the invoke, or nothing: a client may send anything in its place."""
    return value if isinstance(value, dict) else {}


async def _reply_in_thread(turn_context: TurnContext, channel: str, root: str, card: Card) -> None:
    """A direct reply under the thread's root (no queued notifier job: the user waits for it)."""
    reference = TurnContext.get_conversation_reference(turn_context.activity)
    if root:
        reference.conversation.id = f"{channel};messageid={root}"
    reply = TurnContext.apply_conversation_reference(
        Activity(type=ActivityTypes.message, attachments=[CardFactory.adaptive_card(card)]),
        reference,
    )
    reply.reply_to_id = root or None
    await turn_context.adapter.send_activities(turn_context, [reply])


async def query_link(ctx: BotContext, value: Mapping[str, Any]) -> dict[str, Any]:
    """An item link pasted in a message: the item card, if the link is the app's own and the
    caller may read the item (a 404 otherwise)."""
    named = links.parse_item_link(ctx.public_url, str(value.get("url") or ""))
    if named is None:
        raise NotFound(NOT_AN_ITEM_LINK)
    kind, item_id = named
    async with ctx.work(write=False) as uow:
        found, where = await shortcuts.locate_item(uow, item_id=item_id)
    if found is not kind:
        raise NotFound(NOT_AN_ITEM_LINK)
    ctx = await card_data.in_channel(ctx, team_id=where.team_id, channel_id=where.channel_id)
    async with ctx.work(write=False) as uow:
        item = card_data.details_model(
            kind, await read.get_details(uow, kind=kind, item_id=item_id)
        )
        statuses = await card_data.statuses(uow, kind=kind)
    return _result([_attachment(item, _item_card(ctx, item, statuses))])


def _item_card(ctx: BotContext, item: TaskDetails, statuses: list[StatusOut]) -> dict[str, Any]:
    url = links.item_link(ctx.public_url, kind_of(item), item.id)
    synced = whereabouts.synced_at(item)
    return item_card(item, statuses=statuses, item_url=url, now=ctx.clock.now(), synced=synced)


def no_card() -> dict[str, Any]:
    """What an unfurl answers for a link it will not show: no card, so Teams shows the link as
    it was pasted and says nothing about what it names."""
    return _result([])
