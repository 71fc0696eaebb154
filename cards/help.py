"""The help card (the command list, maybe a "Did you mean …?") and the error card."""

from collections.abc import Sequence
from dataclasses import dataclass

from adaptive_cards import card as ac
from adaptive_cards import types

from cards.layout import Card, envelope, execute, heading, shorten
from cards.verbs import RunCommand, Verb

ERROR_MAX = 300
MAX_SHORTCUTS = 5  # Teams shows about six buttons before folding them away


@dataclass(frozen=True)
class CommandHelp:
    """One line of help: a command as typed, what it does, and a button title to run it."""

    command: str
    description: str
    shortcut: str | None = None  # only for commands complete as written (no {placeholder})


def help_card(commands: Sequence[CommandHelp], *, suggestion: str | None = None) -> Card:
    """Every command with its description; buttons run the ones with a shortcut."""
    body: list[object] = [heading("What I can do")]
    if suggestion:
        body.append(
            ac.RichTextBlock(
                inlines=[
                    ac.TextRun(text="Did you mean "),
                    ac.TextRun(text=suggestion, font_type=types.FontType.MONOSPACE),
                    ac.TextRun(text="?"),
                ]
            )
        )
    body.extend(
        ac.RichTextBlock(
            inlines=[
                ac.TextRun(text=entry.command, font_type=types.FontType.MONOSPACE),
                ac.TextRun(text=f"  {entry.description}", is_subtle=True),
            ]
        )
        for entry in commands
    )
    shortcuts = [entry for entry in commands if entry.shortcut][:MAX_SHORTCUTS]
    actions = [
        execute(
            entry.shortcut or entry.command,
            RunCommand(verb=Verb.RUN_COMMAND, command=entry.command),
        )
        for entry in shortcuts
    ]
    return envelope(body, actions)


def error_card(message: str) -> Card:
    """One short friendly line."""
    # A TextRun shows the text as written: an error may quote what the user typed.
    line = ac.TextRun(text=shorten(message, ERROR_MAX), color=types.Colors.ATTENTION)
    return envelope([ac.RichTextBlock(inlines=[line])])
