"""A refusal of a click (a bad input, a rule the services hold) as the Problem a card shows beside
what caused it."""

from pydantic import ValidationError

from bot.errors import DomainError, Invalid
from cards.form import TITLE_REQUIRED
from cards.item import CHOOSE_STATUS
from cards.layout import Problem

REQUIRED = "Required"
# An input left empty says what it wants, as the card's own check would have (Teams skips it
# for an input the card had no time to check, or a client that does not check).
SAY_REQUIRED = {"title": TITLE_REQUIRED, "name": TITLE_REQUIRED, "status": CHOOSE_STATUS}
_EMPTY = ("missing", "string_too_short")
_PYDANTIC_PREFIX = "Value error, "


def problem_of(exc: DomainError | ValidationError) -> Problem:
    """The problem, by the field it is about (an input's id, or the API's name of the field,
    which the card maps to its input) when there is one."""
    if isinstance(exc, ValidationError):
        return validation_problem(exc)
    if isinstance(exc, Invalid):
        return Problem(exc.why_said, exc.field)
    return Problem(exc.said)


def validation_problem(exc: ValidationError) -> Problem:
    """The first thing wrong, said for a person: "A title is required", not a pydantic code."""
    first = exc.errors(include_url=False)[0]
    field = str(first["loc"][0]) if first["loc"] else None
    if first["type"] in _EMPTY and field is not None:
        return Problem(SAY_REQUIRED.get(field, REQUIRED), field)
    return Problem(first["msg"].removeprefix(_PYDANTIC_PREFIX), field)
