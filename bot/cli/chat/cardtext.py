"""An Adaptive Card as a terminal shows it: its text blocks, fact sets, rows and inputs as lines,
and every button (an action, or a row or container one clicks) as a numbered choice.

It reads any card the bot may send, not only today's layouts: unknown elements are passed over
and their children still read, so a new card shape degrades to fewer lines, never to an error.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from cards.widths import WIDE, shown_at

Card = Mapping[str, Any]
# A terminal is as wide as a full-width card in a channel: it shows what Teams shows there.
WIDTH = WIDE
BUTTON_TITLE_MAX = 60
NO_INPUTS = "none"  # an action's associatedInputs that sends none of the card's inputs
TOGGLE_ON = frozenset({"true", "yes", "y", "on", "x", "1"})
TOGGLE_OFF = frozenset({"false", "no", "n", "off", "", "0"})


@dataclass(frozen=True)
class CardInput:
    """One input of a card, with what it holds now and what it may hold."""

    id: str
    label: str
    kind: str  # the element type: Input.Text, Input.ChoiceSet, Input.Toggle, …
    value: str
    choices: tuple[tuple[str, str], ...] = ()  # (title, value) of a choice set
    multiple: bool = False
    value_on: str = "true"  # a toggle's values
    value_off: str = "false"

    @property
    def name(self) -> str:
        """The shorter of its id and label, to type it by: `status`, a row's `#8`."""
        return min((self.id, self.label), key=lambda name: (not name, len(name)))

    def typed(self, said: str) -> str:
        """The value to send when the user typed `said` for this input: a choice by its title
        or value (any case, hyphens read as spaces), a toggle by yes/no, other inputs as typed."""
        if self.kind == "Input.Toggle":
            switch = said.strip().lower()
            if switch not in TOGGLE_ON | TOGGLE_OFF:
                raise ValueError(f"'{said}' is not yes or no for {self.name}.")
            return self.value_on if switch in TOGGLE_ON else self.value_off
        if not self.choices:
            return said
        wanted = [part.strip() for part in said.split(",")] if self.multiple else [said.strip()]
        return ",".join(self._choice(part) for part in wanted if part)

    def _choice(self, said: str) -> str:
        for title, value in self.choices:
            if _words(said) in (_words(title), _words(value)):
                return value
        offered = ", ".join(title for title, _value in self.choices)
        raise ValueError(f"'{said}' is not a choice for {self.name}; choose one of {offered}.")

    def shown(self) -> str:
        """How the input reads on screen: its label, value and choices."""
        if self.kind == "Input.Toggle":
            return f"[{'x' if self.value == self.value_on else ' '}] {self.label or self.id}"
        titles = {value: title for title, value in self.choices}
        current = ", ".join(titles.get(part, part) for part in self.value.split(",") if part)
        line = f"{self.label or self.id}: {current or '(empty)'}"
        if self.choices:
            line += "  (" + " / ".join(title for title, _value in self.choices) + ")"
        return line if self.label in ("", self.id) else f"{line}  [{self.id}]"


@dataclass(frozen=True)
class Button:
    """A choice to press: the card action it stands for, and the card's inputs it sends."""

    title: str
    action: Mapping[str, Any]
    inputs: tuple[CardInput, ...]

    def values(self, typed: Mapping[str, str]) -> dict[str, str]:
        """The inputs' values as Teams would send them with this action, after the user typed
        `typed` (by an input's id or label); none where the action asks for none."""
        values = {item.id: item.value for item in self.inputs}
        for key, said in typed.items():
            item = self._input(key)
            values[item.id] = item.typed(said)
        if self.action.get("associatedInputs", "").lower() == NO_INPUTS:
            return {}
        return values

    def _input(self, key: str) -> CardInput:
        for item in self.inputs:
            if key.lower() in (item.id.lower(), item.label.lower()):
                return item
        if not self.inputs:
            raise ValueError(f"No input named '{key}' on this card; it has no inputs.")
        names = ", ".join(item.name for item in self.inputs)
        raise ValueError(f"No input named '{key}' on this card; inputs are: {names}.")


@dataclass
class Shown:
    """A card as lines, each button's number `[n]` at the start of the line it belongs to."""

    lines: list[str] = field(default_factory=list)
    buttons: list[Button] = field(default_factory=list)
    inputs: list[CardInput] = field(default_factory=list)


def card_text(card: Card, *, first_number: int = 1) -> Shown:
    """The card read top to bottom; its buttons numbered from `first_number`."""
    reader = _Reader(first_number)
    lines = reader.elements(card.get("body") or ())
    actions = [action for action in card.get("actions") or () if _pressable(action)]
    inputs = tuple(reader.inputs)
    buttons: list[Button] = []
    for line in lines:
        reader.bind(line, inputs, buttons)
    for action in actions:
        lines.append(_Line(_action_title(action), [first_number + len(buttons)]))
        buttons.append(Button(_action_title(action), action, inputs))
    return Shown([line.shown() for line in lines], buttons, list(inputs))


@dataclass
class _Line:
    text: str
    numbers: list[int] = field(default_factory=list)
    # Actions met on this line, numbered once the card's inputs are all known.
    pending: list[Mapping[str, Any]] = field(default_factory=list)

    def shown(self) -> str:
        marks = "".join(f"[{number}] " for number in self.numbers)
        return f"{marks}{self.text}"


class _Reader:
    """Walks a card's elements, gathering the card's inputs on the way."""

    def __init__(self, first_number: int) -> None:
        self.inputs: list[CardInput] = []
        self._first = first_number

    def bind(self, line: _Line, inputs: tuple[CardInput, ...], buttons: list[Button]) -> None:
        """Number the actions met on `line`, in reading order, now that the inputs are known."""
        for action in line.pending:
            line.numbers.append(self._first + len(buttons))
            buttons.append(Button(_action_title(action, line.text), action, inputs))
        line.pending.clear()

    def elements(self, elements: Iterable[Any]) -> list[_Line]:
        lines: list[_Line] = []
        for element in elements:
            if (
                isinstance(element, Mapping)
                and element.get("isVisible", True) is not False
                and shown_at(element, WIDTH)
            ):
                lines.extend(self.element(element))
        return lines

    def element(self, element: Mapping[str, Any]) -> list[_Line]:
        kind = str(element.get("type") or "")
        lines: list[_Line]
        if kind == "TextBlock":
            lines = _text_lines(str(element.get("text") or ""))
        elif kind == "RichTextBlock":
            runs = element.get("inlines") or ()
            lines = _text_lines("".join(_run_text(run) for run in runs))
        elif kind == "FactSet":
            facts = element.get("facts") or ()
            lines = [_Line(f"{fact.get('title', '')}: {fact.get('value', '')}") for fact in facts]
        elif kind == "ColumnSet":
            lines = self._side_by_side(
                [
                    self.element(column)
                    for column in _each(element, "columns")
                    if shown_at(column, WIDTH)
                ]
            )
        elif kind == "Table":
            lines = [line for row in _each(element, "rows") for line in self._row(row)]
        elif kind == "ActionSet":
            lines = [
                _Line(_action_title(action), pending=[action])
                for action in _each(element, "actions")
                if _pressable(action)
            ]
        elif kind == "Image":
            lines = _text_lines(str(element.get("altText") or ""))
        elif kind.startswith("Input."):
            lines = [_Line(self._input(element).shown())]
        else:  # Container, Column, TableCell and any element with children
            lines = self.elements(element.get("items") or ())
        return self._clickable(element, lines)

    def _row(self, row: Mapping[str, Any]) -> list[_Line]:
        cells = [self.element(cell) for cell in _each(row, "cells")]
        return self._clickable(row, self._side_by_side(cells))

    @staticmethod
    def _side_by_side(columns: list[list[_Line]]) -> list[_Line]:
        """Columns of one line each as one line (a list row); taller ones one after another."""
        filled = [column for column in columns if column]
        if filled and all(len(column) == 1 for column in filled):
            cells = [column[0] for column in filled]
            text = " | ".join(cell.text for cell in cells if cell.text)
            return [_Line(text, pending=[a for cell in cells for a in cell.pending])]
        return [line for column in filled for line in column]

    @staticmethod
    def _clickable(element: Mapping[str, Any], lines: list[_Line]) -> list[_Line]:
        """An element with a selectAction is a button, numbered on its first line."""
        action = element.get("selectAction")
        if isinstance(action, Mapping) and _pressable(action):
            if not lines:
                lines = [_Line("")]
            lines[0].pending.insert(0, action)
        return lines

    def _input(self, element: Mapping[str, Any]) -> CardInput:
        choices = tuple(
            (str(choice.get("title", "")), str(choice.get("value", "")))
            for choice in _each(element, "choices")
        )
        value = element.get("value")
        kind = str(element.get("type"))
        value_off = str(element.get("valueOff", "false"))
        made = CardInput(
            id=str(element.get("id") or ""),
            label=str(
                element.get("label") or element.get("title") or element.get("placeholder") or ""
            ),
            kind=kind,
            value=str(value)
            if value is not None
            else (value_off if kind == "Input.Toggle" else ""),
            choices=choices,
            multiple=bool(element.get("isMultiSelect")),
            value_on=str(element.get("valueOn", "true")),
            value_off=value_off,
        )
        self.inputs.append(made)
        return made


def _words(text: str) -> str:
    """Text compared as a choice: any case, hyphens and runs of spaces as one space."""
    return " ".join(text.replace("-", " ").split()).casefold()


def _each(element: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    return [item for item in element.get(key) or () if isinstance(item, Mapping)]


def _text_lines(text: str) -> list[_Line]:
    return [_Line(line.strip()) for line in text.splitlines() if line.strip()]


def _run_text(run: Any) -> str:
    return str(run.get("text") or "") if isinstance(run, Mapping) else str(run)


def _pressable(action: Any) -> bool:
    """Buttons the console can press: the rest (ToggleVisibility) change only how a card shows."""
    return isinstance(action, Mapping) and action.get("type") in (
        "Action.Execute",
        "Action.Submit",
        "Action.OpenUrl",
        "Action.ShowCard",
    )


def _action_title(action: Mapping[str, Any], fallback: str = "") -> str:
    title = str(action.get("title") or fallback or action.get("url") or action.get("type"))
    return title if len(title) <= BUTTON_TITLE_MAX else title[: BUTTON_TITLE_MAX - 1] + "…"
