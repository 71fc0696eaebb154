"""The greeting the bot posts where it is installed: what it does and how to start."""

from cards.help import MONOSPACE, run_command
from cards.layout import Card, envelope, execute, heading, rich_text, text_block, text_run

DEFAULT_NAME = "Tracker"  # the manifest's short name, if Teams leaves out the bot's


def team_welcome(bot_name: str | None) -> Card:
    """Posted in the team's General channel when the app is added to a team."""
    mention = f"@{bot_name or DEFAULT_NAME}"
    examples = [
        (f"{mention} new bug Login fails on Safari", "a new bug in that channel"),
        (f"{mention} bugs", "the channel's bugs (or tasks)"),
        (f"{mention} help", "everything I can do"),
    ]
    body = [
        heading("Hello! I keep this team's bugs and tasks"),
        text_block("Each channel has its own list. Mention me in a channel to use it:", wrap=True),
        *(
            rich_text(text_run(said, fontType=MONOSPACE), text_run(f"  {does}", isSubtle=True))
            for said, does in examples
        ),
    ]
    return envelope(body, [execute("Help", run_command("help"))])


def personal_welcome() -> Card:
    """Posted in someone's 1:1 chat with the bot when they add the app there."""
    body = [
        heading("Hello! I keep your team's bugs and tasks"),
        text_block(
            "I will tell you here when someone assigns you a bug or a task "
            "(type “notify off” to stop that). Type “help” to see what I can do.",
            wrap=True,
        ),
    ]
    return envelope(body, [execute("Help", run_command("help"))])
