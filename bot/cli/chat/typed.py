"""What is typed after a button's number: `name=value` pairs for the card's inputs, read as a
newcomer types them. A value runs to the next `name=` (so `status=In Review` needs no quotes);
quotes keep a value whole (`title="a=b"`); a name is an input's id or its label, spaces and all.
"""

from collections.abc import Sequence

from bot.cli.chat.cardtext import CardInput

QUOTES = "\"'"
HOW = (
    "After a button's number, type the card's inputs as name=value (e.g. `1 status=In Progress`); "
    "'{said}' is not one."
)
UNCLOSED = "The quote after {name}= is not closed."


def typed_values(text: str, inputs: Sequence[CardInput]) -> dict[str, str]:
    """The values typed, by the name each was typed under; ValueError saying what is wrong."""
    names = sorted(
        {name for item in inputs for name in (item.id, item.label) if name}, key=len, reverse=True
    )
    pairs: list[tuple[str, list[str]]] = []
    at = _skip_spaces(text, 0)
    while at < len(text):
        name, after = _name_at(text, at, names)
        if name is None:
            end = _word_end(text, at)
            if not pairs:
                raise ValueError(HOW.format(said=text[at:end]))
            pairs[-1][1].append(text[at:end])
        else:
            end, value = _value_at(text, after, name)
            pairs.append((name, [value] if value else []))
        at = _skip_spaces(text, end)
    return {name: " ".join(words) for name, words in pairs}


def _name_at(text: str, at: int, names: Sequence[str]) -> tuple[str | None, int]:
    """The input name starting at `at` and followed by `=` (a known name first, for labels with
    spaces; else any word before `=`, which the button then says it has no input of)."""
    lowered = text.casefold()
    for name in names:
        end = at + len(name)
        if lowered.startswith(name.casefold(), at) and text.startswith("=", end):
            return name, end + 1
    word = text[at : _word_end(text, at)]
    name, equals, _rest = word.partition("=")
    if equals and name and name[0] not in QUOTES:
        return name, at + len(name) + 1
    return None, at


def _value_at(text: str, at: int, name: str) -> tuple[int, str]:
    """Where the value starting at `at` ends, and the value: quoted, up to its closing quote;
    else its first word (the words after it join it until the next name)."""
    if at < len(text) and text[at] in QUOTES:
        close = text.find(text[at], at + 1)
        if close < 0:
            raise ValueError(UNCLOSED.format(name=name))
        return close + 1, text[at + 1 : close]
    end = _word_end(text, at)
    return end, text[at:end]


def _skip_spaces(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


def _word_end(text: str, at: int) -> int:
    while at < len(text) and not text[at].isspace():
        at += 1
    return at
