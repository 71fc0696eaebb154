"""Where a message's text goes once the mention is removed (the command table replaces this)."""

from botbuilder.core import TurnContext

from bot.teams.context import BotContext


async def run_command(turn_context: TurnContext, ctx: BotContext, text: str) -> None:
    """Answer a command; for now, say what arrived."""
    where = f"channel {ctx.channel.teams_channel_id}" if ctx.channel else "this chat"
    await turn_context.send_activity(
        f"Received “{text}” from {ctx.actor.display_name} in {where}; "
        "commands arrive with the next change."
    )
