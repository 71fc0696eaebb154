"""`rules`: the channel's event rules, each with how it last fired; `new rule`: where rules are
made (not in chat)."""

from bot.errors import BadRequest
from bot.events import service as events
from bot.teams.commands import grammar
from bot.teams.context import BotContext
from cards.help import note_card
from cards.layout import Card
from cards.rules import rules_card

RULES_IN_A_CHANNEL = "Rules belong to a channel: say rules in a channel where I am installed."
RULES_ARE_MADE = (
    "Rules are made through the API: `POST /odata/eventDefinitions` (`docs/rules.md`). Here, "
    "`rules` lists this channel's rules and `settings` switches its notifications on or off."
)


async def rules(ctx: BotContext, _command: grammar.Rules) -> Card:
    if ctx.channel is None:
        raise BadRequest(RULES_IN_A_CHANNEL)
    async with ctx.work(write=False) as uow:
        summaries, total = await events.channel_rules(uow)
    return rules_card(summaries, total=total)


async def new_rule(_ctx: BotContext, _command: grammar.NewRule) -> Card:
    return note_card(RULES_ARE_MADE)
