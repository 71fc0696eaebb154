"""Invokes that answer with a body: card actions and the messaging extension. A refusal is
answered in each one's own shape (an error card, a message, no card), never as a failed
invoke."""

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from botbuilder.core import TurnContext

from bot import logs
from bot.errors import DomainError
from bot.teams.actions import card_actions, messaging_extension
from bot.teams.context import BotContext
from bot.teams.outbound.card_replies import card_in_place
from cards.help import error_card

log = logging.getLogger(__name__)

ContextOf = Callable[[], Awaitable[BotContext]]
# None: 200 with no body (a dialog closed with nothing more to show).
Answer = Callable[[TurnContext, ContextOf], Awaitable[dict[str, Any] | None]]


def _failed(exc: Exception) -> str:
    if isinstance(exc, DomainError):
        return exc.said
    ref = logs.request_id()
    log.error("invoke failed (ref %s)", ref, exc_info=exc)
    return f"Something went wrong (ref {ref})."


def _value(turn_context: TurnContext) -> dict[str, Any]:
    return _object(turn_context.activity.value)


async def card_action(turn_context: TurnContext, context_of: ContextOf) -> dict[str, Any]:
    action = _object(_value(turn_context).get("action"))
    try:
        ctx = await context_of()
        card = await card_actions.run_action(
            ctx, str(action.get("verb")), _object(action.get("data"))
        )
    except Exception as exc:
        card = error_card(_failed(exc))
    return card_in_place(card)


def _object(value: Any) -> dict[str, Any]:
    """A JSON object of the invoke, or nothing: a client may send anything in its place."""
    return value if isinstance(value, dict) else {}


async def search(turn_context: TurnContext, context_of: ContextOf) -> dict[str, Any]:
    try:
        return await messaging_extension.query(await context_of(), _value(turn_context))
    except Exception as exc:
        return messaging_extension.message(_failed(exc))


async def unfurl(turn_context: TurnContext, context_of: ContextOf) -> dict[str, Any]:
    """A pasted link's card; no card for a link that is not the app's or names an item the
    caller may not read, so the answer reveals nothing about it."""
    try:
        return await messaging_extension.query_link(await context_of(), _value(turn_context))
    except Exception as exc:
        _failed(exc)  # logs an unexpected failure; a refusal needs no word
        return messaging_extension.no_card()


async def fetch_task(turn_context: TurnContext, context_of: ContextOf) -> dict[str, Any]:
    try:
        bot = turn_context.activity.recipient
        return await messaging_extension.fetch_task(
            await context_of(), _value(turn_context), bot_id=bot.id if bot else None
        )
    except Exception as exc:
        return {"task": {"type": "message", "value": _failed(exc)}}


async def submit_action(turn_context: TurnContext, context_of: ContextOf) -> dict[str, Any] | None:
    try:
        return await messaging_extension.submit_action(
            turn_context, await context_of(), _value(turn_context)
        )
    except Exception as exc:
        return {"task": {"type": "message", "value": _failed(exc)}}


ANSWERS: dict[str, Answer] = {
    "adaptiveCard/action": card_action,
    "composeExtension/query": search,
    "composeExtension/queryLink": unfurl,
    "composeExtension/fetchTask": fetch_task,
    "composeExtension/submitAction": submit_action,
}
