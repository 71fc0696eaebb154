"""The one shape of a refused query option."""

from bot.errors import BadRequest


def invalid(option: str, detail: str) -> BadRequest:
    """`Invalid $filter: <detail>` and its siblings for the other options."""
    return BadRequest(f"Invalid {option}: {detail}")
