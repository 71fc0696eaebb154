"""What an UPDATE must write of a row read, changed in place, and written back."""

from collections.abc import Mapping
from typing import Any


def changed(row: Mapping[str, Any], before: Mapping[str, Any]) -> dict[str, Any]:
    """The columns of `row` whose values differ from what it held `before`: the ones a change
    wrote, and none it left as they were (a row unchanged needs no UPDATE)."""
    return {name: value for name, value in row.items() if before[name] != value}
