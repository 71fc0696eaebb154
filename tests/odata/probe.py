"""A small probe table with assignees, its OData face, its rows, and a way to query it."""

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    ColumnElement,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    select,
)
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.db.types import UTCDateTime
from bot.odata.model import Collection, EntitySet, Property, PropertyKind, SortKey
from bot.odata.query import apply, count_statement, page, parse_query

metadata = MetaData()
probes = Table(
    "odata_probe",
    metadata,
    Column("id", String(24), primary_key=True),
    Column("name", Text, nullable=False),
    Column("status", String(64), nullable=False),
    Column("internal_id", Integer, nullable=False),
    Column("done", Boolean, nullable=False),
    Column("due", UTCDateTime, nullable=True),
    Column("owner", Text, nullable=True),
)
assignees = Table(
    "odata_probe_assignee",
    metadata,
    Column("probe_id", ForeignKey("odata_probe.id", ondelete="CASCADE"), primary_key=True),
    Column("email", String(255), primary_key=True),
    Column("display_name", Text, nullable=False),
)


def _assigned(condition: ColumnElement[bool] | None) -> ColumnElement[bool]:
    found = select(assignees.c.probe_id).where(assignees.c.probe_id == probes.c.id)
    return (found if condition is None else found.where(condition)).exists()


def _by_name(*properties: Property) -> dict[str, Property]:
    return {prop.name: prop for prop in properties}


KEY = Property("_id", probes.c.id, PropertyKind.ID)
INTERNAL_ID = Property("internalId", probes.c.internal_id, PropertyKind.INTEGER)
PROBES = EntitySet(
    name="probes",
    properties=_by_name(
        KEY,
        INTERNAL_ID,
        Property("name", probes.c.name, PropertyKind.TEXT),
        Property("status", probes.c.status, PropertyKind.NAME),
        Property("done", probes.c.done, PropertyKind.BOOLEAN),
        Property("dueDate", probes.c.due, PropertyKind.DATETIME),
        Property("owner", probes.c.owner, PropertyKind.TEXT, sortable=False),
    ),
    key=KEY,
    default_order=(SortKey(INTERNAL_ID),),
    collections={
        "assignedTo": Collection(
            "assignedTo",
            _by_name(
                Property("email", assignees.c.email, PropertyKind.TEXT),
                Property("displayName", assignees.c.display_name, PropertyKind.TEXT),
            ),
            _assigned,
        )
    },
    select_only=frozenset({"links"}),
)


def _at(
    year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0
) -> datetime:
    return datetime(year, month, day, hour, minute, second, tzinfo=UTC)


# internalId: name, status, done, due, owner. Statuses differ in case on purpose (7, 8).
ROWS: dict[int, tuple[str, str, bool, datetime | None, str | None]] = {
    1: ("Ärger im Büro", "New", False, _at(2026, 1, 10, 9), "Zoë"),
    2: ("ärger", "Active", False, _at(2026, 1, 1), None),
    3: ("Straße bauen", "Done", True, _at(2025, 12, 31, 23, 59, 59), "ann"),
    4: ("STRAẞE", "New", False, None, None),  # capital sharp s: lower-cases to ß
    5: ("100% done", "Done", True, _at(2026, 2, 1), "Bob"),
    6: ("100 percent", "Active", False, None, "bob"),
    7: ("snake_case name", "NEW", False, _at(2026, 3, 1), None),
    8: ("snakeXcase name", "new", False, _at(2026, 3, 2), None),
    9: ("back\\slash", "Active", False, None, None),
    10: ("it's quoted", "Active", True, _at(2026, 1, 1, 12), None),
    11: ("Release notes", "New", False, _at(2026, 4, 1), "Ann"),
    12: ("release plan", "Active", False, _at(2026, 4, 2), None),
    13: ("ΟΔΟΣ", "New", False, None, None),  # lower-cases with a final sigma: οδος
    14: ("Bug in login", "Done", True, _at(2025, 6, 1), "zoë"),
    15: ("Task 15", "New", False, None, None),
    16: ("Task 16", "Active", False, None, None),
    17: ("Task 17", "Done", True, None, None),
    18: ("Task 18", "New", False, None, None),
    19: ("Task 19", "Active", False, None, None),
    20: ("Task 20", "Done", True, None, None),
}
ASSIGNEES = {
    1: [("ann@example.com", "Ann Ärger")],
    2: [("ann@example.com", "Ann Ärger"), ("carol@other.org", "Carol")],
    3: [("BOB@EXAMPLE.COM", "Bobby")],
    5: [("bob@example.com", "Bob")],
}
ALL = frozenset(ROWS)


def probe_id(number: int) -> str:
    return f"{number:024x}"


def probe_rows() -> list[dict[str, Any]]:
    return [
        {
            "id": probe_id(number),
            "internal_id": number,
            "name": name,
            "status": status,
            "done": done,
            "due": due,
            "owner": owner,
        }
        for number, (name, status, done, due, owner) in ROWS.items()
    ]


def assignee_rows() -> list[dict[str, Any]]:
    return [
        {"probe_id": probe_id(number), "email": email, "display_name": display_name}
        for number, people in ASSIGNEES.items()
        for email, display_name in people
    ]


class Lister:
    """Runs query options against the probe table and answers in internalIds."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def __call__(self, params: Mapping[str, str]) -> tuple[list[int], bool, int]:
        """The page's internalIds in order, whether more follow, and the exact count."""
        query = parse_query(params, PROBES)
        base = select(probes.c.internal_id)
        async with self.engine.connect() as conn:
            fetched = (await conn.execute(apply(base, query))).scalars().all()
            count = (await conn.execute(count_statement(base, query))).scalar_one()
        rows, more = page(fetched, query)
        return rows, more, count

    async def matching(self, text: str) -> set[int]:
        """The internalIds a `$filter` selects."""
        rows, _, _ = await self({"$filter": text, "$top": "1000"})
        return set(rows)
