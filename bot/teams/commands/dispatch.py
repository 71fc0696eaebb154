"""Chat commands: the grammar's Command → one function each, through a table; every answer is a
card (help, list, item, form, a channel choice), which card actions reuse to replace a card."""

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from botbuilder.core import TurnContext

from bot.teams.commands import (
    assign_commands,
    delete_commands,
    grammar,
    item_commands,
    list_commands,
    notify_commands,
    rule_commands,
    settings_commands,
    sync_commands,
)
from bot.teams.commands.command_list import COMMANDS
from bot.teams.commands.grammar import Command, Mention, Message
from bot.teams.context import BotContext
from bot.teams.outbound.card_replies import send_card
from cards.help import help_card, suggestion_card
from cards.layout import Card

Answer = Callable[[BotContext, Any], Awaitable[Card]]


async def run_command(turn_context: TurnContext, ctx: BotContext, message: Message) -> None:
    """Answer a message's command with a card in the conversation."""
    await send_card(turn_context, await answer(ctx, message.text, message.mentions))


async def answer(
    ctx: BotContext, text: str, mentions: Sequence[Mention] = (), *, skip: int = 0
) -> Card:
    """The card that answers `text`; lists start at row `skip` (a list card's "more")."""
    command = grammar.parse(text, mentions)
    if isinstance(command, grammar.ListItems):
        return await list_commands.list_card_for(ctx, command, text=text, skip=skip)
    handler: Answer = ANSWERS[type(command)]
    return await handler(ctx, command)


async def _help(_ctx: BotContext, command: grammar.Help) -> Card:
    return help_card(COMMANDS, more=None if command.full else grammar.HELP_ALL)


async def _unknown(_ctx: BotContext, command: grammar.Unknown) -> Card:
    """A near miss: the command it resembles, to run with a click; else the short help."""
    if command.suggestion:
        return suggestion_card(command.text, command.suggestion, help_command="help")
    return help_card(COMMANDS, more=grammar.HELP_ALL, not_understood=command.text)


ANSWERS: dict[type[Command], Answer] = {
    grammar.Help: _help,
    grammar.Unknown: _unknown,
    grammar.ShowItem: item_commands.show,
    grammar.SetStatus: item_commands.set_status,
    grammar.SetPriority: item_commands.set_priority,
    grammar.Assign: assign_commands.assign,
    grammar.Unassign: assign_commands.unassign,
    grammar.Close: item_commands.close,
    grammar.Clone: item_commands.clone,
    grammar.Discuss: item_commands.discuss,
    grammar.Delete: delete_commands.delete,
    grammar.NewRule: rule_commands.new_rule,
    grammar.Create: item_commands.create,
    grammar.Rules: rule_commands.rules,
    grammar.Notify: notify_commands.notify,
    grammar.ChannelSettings: settings_commands.settings,
    grammar.Sync: sync_commands.sync,
}
