"""What the connectors of one process last read of a project's metadata (the project itself,
each work item type's fields), kept a while: the engine opens a connector per task, and these
change rarely, so a pull or a push need not read them again each time."""

from datetime import datetime, timedelta
from typing import Any

FRESH = timedelta(minutes=10)


class Known:
    def __init__(self) -> None:
        self._kept: dict[tuple[str, ...], tuple[datetime, Any]] = {}

    def get(self, key: tuple[str, ...], *, now: datetime) -> Any | None:
        kept = self._kept.get(key)
        if kept is None or now - kept[0] >= FRESH:
            return None
        return kept[1]

    def put(self, key: tuple[str, ...], value: Any, *, now: datetime) -> None:
        self._kept[key] = (now, value)


KNOWN = Known()
