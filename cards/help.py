"""The help card (the everyday commands, or every one), "Did you mean …?", a note and the error
card."""

from collections.abc import Sequence
from dataclasses import dataclass

from cards.layout import (
    ATTENTION,
    Card,
    Element,
    action_set,
    envelope,
    execute,
    heading,
    rich_text,
    shorten,
    text_run,
)
from cards.verbs import RunCommand, Verb

ERROR_MAX = 300
SAID_MAX = 80
BUTTON_MAX = 40
MAX_SHORTCUTS = 5  # Teams shows about six buttons before folding them away
MONOSPACE = "monospace"  # a TextRun's fontType: commands as typed


@dataclass(frozen=True)
class CommandHelp:
    """One line of help: a command as typed, what it does, and a button title to run it."""

    command: str
    description: str
    shortcut: str | None = None  # only for commands complete as written (no {placeholder})
    everyday: bool = False  # on the short help, which most people never need to leave
    listed: bool = True  # False: a button only, its line already said by an everyday one


def help_card(
    commands: Sequence[CommandHelp], *, more: str | None = None, not_understood: str | None = None
) -> Card:
    """The everyday commands and a button running `more` (the command that shows every one),
    or, with no `more`, every command; buttons run the ones with a shortcut. Help given for a
    text that is no command (`not_understood`) first says so."""
    shown = [entry for entry in commands if entry.listed and (entry.everyday or not more)]
    body: list[Element] = []
    if not_understood is not None:
        body.append(rich_text(text_run(_not_understood(not_understood))))
    body.append(heading("What I can do" if more else "Every command"))
    body.extend(
        rich_text(
            text_run(entry.command, fontType=MONOSPACE),
            text_run(f"  {entry.description}", isSubtle=True),
        )
        for entry in shown
    )
    shortcuts = [entry for entry in commands if entry.shortcut][: MAX_SHORTCUTS - bool(more)]
    buttons = [
        execute(entry.shortcut or entry.command, run_command(entry.command)) for entry in shortcuts
    ]
    if not more:
        return envelope(body, buttons)
    # The shortcuts in a row of their own, above "More commands": five buttons in one row are
    # cut short in Teams.
    if buttons:
        body.append(action_set(buttons))
    return envelope(body, [execute("More commands", run_command(more))])


def suggestion_card(said: str, suggestion: str, *, help_command: str) -> Card:
    """A near miss: "Did you mean `bugs`?" with a button that runs it, and one for help."""
    line = rich_text(
        text_run(f"{_not_understood(said)} Did you mean "),
        text_run(suggestion, fontType=MONOSPACE),
        text_run("?"),
    )
    actions = [
        execute(shorten(suggestion, BUTTON_MAX), run_command(suggestion), style="positive"),
        execute("Help", run_command(help_command)),
    ]
    return envelope([line], actions)


def _not_understood(said: str) -> str:
    return f"I didn't understand '{shorten(said, SAID_MAX)}'."


def run_command(command: str) -> RunCommand:
    """The data of a button that runs a chat command."""
    return RunCommand(verb=Verb.RUN_COMMAND, command=command)


def note_card(line: str) -> Card:
    """One short line; its `backquoted` parts, commands to type, in monospace as help shows them."""
    parts = line.split("`")
    runs = [
        text_run(part, fontType=MONOSPACE) if index % 2 else text_run(part)
        for index, part in enumerate(parts)
        if part
    ]
    return envelope([rich_text(*runs)])


def error_card(message: str, actions: Sequence[Element] = ()) -> Card:
    """One short friendly line, and the buttons that lead on from it (where there are any)."""
    # A TextRun shows the text as written: an error may quote what the user typed.
    return envelope([rich_text(text_run(shorten(message, ERROR_MAX), color=ATTENTION))], actions)
