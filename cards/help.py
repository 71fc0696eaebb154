"""The help card (the command list, maybe a "Did you mean …?"), a note and the error card."""

from collections.abc import Sequence
from dataclasses import dataclass

from cards.layout import Card, envelope, execute, heading, rich_text, shorten, text_run
from cards.verbs import RunCommand, Verb

ERROR_MAX = 300
MAX_SHORTCUTS = 5  # Teams shows about six buttons before folding them away
MONOSPACE = "monospace"  # a TextRun's fontType: commands as typed


@dataclass(frozen=True)
class CommandHelp:
    """One line of help: a command as typed, what it does, and a button title to run it."""

    command: str
    description: str
    shortcut: str | None = None  # only for commands complete as written (no {placeholder})


def help_card(commands: Sequence[CommandHelp], *, suggestion: str | None = None) -> Card:
    """Every command with its description; buttons run the ones with a shortcut."""
    body = [heading("What I can do")]
    if suggestion:
        body.append(
            rich_text(
                text_run("Did you mean "),
                text_run(suggestion, fontType=MONOSPACE),
                text_run("?"),
            )
        )
    body.extend(
        rich_text(
            text_run(entry.command, fontType=MONOSPACE),
            text_run(f"  {entry.description}", isSubtle=True),
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


def note_card(line: str) -> Card:
    """One short line; its `backquoted` parts, commands to type, in monospace as help shows them."""
    parts = line.split("`")
    runs = [
        text_run(part, fontType=MONOSPACE) if index % 2 else text_run(part)
        for index, part in enumerate(parts)
        if part
    ]
    return envelope([rich_text(*runs)])


def error_card(message: str) -> Card:
    """One short friendly line."""
    # A TextRun shows the text as written: an error may quote what the user typed.
    return envelope([rich_text(text_run(shorten(message, ERROR_MAX), color="attention"))])
