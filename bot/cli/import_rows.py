"""The records of an import file, read one at a time (never the whole file): a CSV's rows, with
our columns or those of Jira's and Azure DevOps' CSV exports, or the items of `admin export`'s
JSON with the configuration it defines (statuses, priorities, severities, projects, mappings and
event rules). Each record is a create body in the API's names, to be checked by the rules of the
service it goes to like any other."""

import csv
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import IO, Any, Protocol

import ijson
from ijson.common import ObjectBuilder

from bot.cli.failure import CommandFailed
from bot.cli.import_shape import MAX_RECORD_BYTES, record_too_large
from bot.items.schemas import ITEM_FIELDS
from bot.schemas import ItemKind
from bot.timestamps import parse_timestamp

# A CSV header, folded (case, spaces, `_` and `-` ignored) → the create body's field. Ours first,
# then Jira's CSV export (Summary, Description, Status, Priority, Assignee, Due Date, Created,
# Issue Type) and Azure DevOps' (Title, Description, State, Priority, Assigned To, Start Date,
# Target Date, Created Date, Work Item Type, Severity).
COLUMNS = {
    "name": "name",
    "title": "name",
    "summary": "name",
    "body": "body",
    "description": "body",
    "status": "status",
    "state": "status",
    "priority": "priority",
    "severity": "severity",
    "assignee": "assignedTo",
    "assigneeupn": "assignedTo",
    "assignedto": "assignedTo",
    "startdate": "startDate",
    "duedate": "dueDate",
    "targetdate": "dueDate",
    "created": "createdAt",
    "createddate": "createdAt",
    "type": "kind",
    "issuetype": "kind",
    "workitemtype": "kind",
}
DATES = ("startDate", "dueDate", "createdAt")
# Dates as Jira (`12/Jan/26 10:30 AM`) and Azure DevOps (`1/12/2026 10:30:00 AM`) write them,
# read as UTC, after ISO 8601.
DATE_FORMATS = ("%d/%b/%y %I:%M %p", "%m/%d/%Y %I:%M:%S %p", "%m/%d/%Y %H:%M", "%m/%d/%Y")
# Azure DevOps writes a person as `Ada Lovelace <ada@contoso.com>`.
_ADDRESS = re.compile(r"<([^<>\s]+@[^<>\s]+)>\s*$")
_FOLD = re.compile(r"[\s_-]+")
# The configuration an export's JSON defines, before its items (in the order it writes them).
VALUE_SECTIONS = ("statuses", "priorities", "severities")
CONFIG_SECTIONS = (*VALUE_SECTIONS, "projects", "mappings", "eventDefinitions")
ITEM_SECTIONS = {"bugs": ItemKind.BUG, "tasks": ItemKind.TASK}


@dataclass
class Record:
    """One item to import, or one piece of configuration (`section` says which)."""

    where: int | str  # a CSV's line, or an export's `bugs[3]`: what the error report names
    section: str  # "items", or one of CONFIG_SECTIONS
    fields: dict[str, Any]
    kind: ItemKind = ItemKind.BUG
    created_at: datetime | None = None
    problem: str | None = None  # what made the record unreadable, before any rule
    extra: dict[str, Any] = field(default_factory=dict)


def csv_records(lines: Iterator[str], *, default_kind: ItemKind, name: str) -> Iterator[Record]:
    """A CSV's rows (its first line the header) as records, each named by the line it starts on;
    a row over MAX_RECORD_BYTES is refused as its lines arrive, before the reader has it whole."""
    start = 1
    size = 0  # bytes of the row being read

    def sized(lines: Iterator[str]) -> Iterator[str]:
        nonlocal size
        for line in lines:
            size += len(line.encode())
            if size > MAX_RECORD_BYTES:
                raise record_too_large(name, f"the record at line {start}")
            yield line

    reader = csv.reader(sized(lines))
    try:
        header = next(reader)
    except StopIteration:
        return
    except csv.Error as error:
        raise CommandFailed(f"Not a CSV file: {error}") from None
    columns: dict[int, str] = {}
    for index, title in enumerate(header):
        known = COLUMNS.get(_FOLD.sub("", title.lstrip("\ufeff")).casefold())
        if known is not None and known not in columns.values():  # Jira repeats some columns
            columns[index] = known
    if "name" not in columns.values():
        raise CommandFailed(
            "Not an item CSV: no name column (name, title or summary) in its header."
        )
    start = reader.line_num + 1
    while True:
        size = 0
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            yield Record(start, "items", {}, problem=str(error))
            return
        if any(cell.strip() for cell in cells):
            yield _csv_record(start, cells, columns, default_kind)
        start = reader.line_num + 1


def _csv_record(
    where: int, cells: list[str], columns: dict[int, str], default_kind: ItemKind
) -> Record:
    cells_named = {
        name: cells[index].strip() for index, name in columns.items() if index < len(cells)
    }
    text = {name: value for name, value in cells_named.items() if value}
    record = Record(where, "items", {}, kind=default_kind)
    kind = text.pop("kind", None)
    if kind is not None:
        record.kind = ItemKind.BUG if kind.casefold() == "bug" else ItemKind.TASK
    values: dict[str, Any] = dict(text)
    try:
        dates = {name: _date(text[name]) for name in DATES if name in text}
    except ValueError as error:
        record.problem = str(error)
        return record
    values.update(dates)
    record.created_at = values.pop("createdAt", None)
    assignee = text.get("assignedTo")
    values.pop("assignedTo", None)
    if assignee is not None:
        found = _ADDRESS.search(assignee)
        values["assignedTo"] = [found.group(1) if found else assignee]
    if record.kind is ItemKind.TASK:
        values.pop("severity", None)  # tasks have none: a column for bugs, empty for the rest
    record.fields = values
    return record


def _date(text: str) -> datetime:
    try:
        return parse_timestamp(text)
    except ValueError:
        pass
    for pattern in DATE_FORMATS:
        try:
            return datetime.strptime(text, pattern).replace(tzinfo=UTC)
        except ValueError:
            continue
    raise ValueError(
        f"'{text}' is not a date (ISO 8601 such as 2026-12-01, or as Jira or Azure DevOps "
        "export them)"
    )


class Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


def json_records(stream: Readable) -> Iterator[Record]:
    """An export's configuration (CONFIG_SECTIONS), bugs and tasks, in the file's order, each
    built alone from the parser's events."""
    counts: dict[str, int] = {}
    building: tuple[str, ObjectBuilder] | None = None
    try:
        for prefix, event, value in ijson.parse(stream, use_float=True):
            if building is None:
                section = prefix.removesuffix(".item")
                wanted = section in CONFIG_SECTIONS or section in ITEM_SECTIONS
                if event == "start_map" and prefix.endswith(".item") and wanted:
                    building = (section, ObjectBuilder())
                    building[1].event(event, value)
                continue
            section, builder = building
            builder.event(event, value)
            if event == "end_map" and prefix == f"{section}.item":
                index = counts[section] = counts.get(section, -1) + 1
                yield _json_record(f"{section}[{index}]", section, builder.value)
                building = None
    except ijson.JSONError as error:
        raise CommandFailed(f"Not a JSON file: {error}") from None


def _json_record(where: str, section: str, value: dict[str, Any]) -> Record:
    if section in CONFIG_SECTIONS:
        return Record(where, section, value)
    record = Record(where, "items", {}, kind=ITEM_SECTIONS[section])
    fields = {name: value.get(name) for name in _CREATE_FIELDS if value.get(name) is not None}
    fields["assignedTo"] = value.get("assignedTo") or []
    if record.kind is ItemKind.TASK:
        fields.pop("severity", None)
    project = value.get("projectId")
    record.extra = {
        "source": value.get("source"),
        "projectSourceId": project.get("sourceId") if isinstance(project, dict) else None,
    }
    created = value.get("createdAt")
    try:
        record.created_at = parse_timestamp(created) if isinstance(created, str) else None
    except ValueError as error:
        record.problem = f"createdAt: {error}"
    record.fields = fields
    return record


# What an exported item gives a create body (its number, ids and history are the source's; its
# source goes with its project, in `Record.extra`).
_CREATE_FIELDS = tuple(name for name in ITEM_FIELDS if name != "source")


def counted_lines(binary: IO[bytes], advance: Callable[[int], None]) -> Iterator[str]:
    """A UTF-8 file's lines as text (a byte-order mark dropped), each reported to `advance`
    with its size in bytes; a line longer than a record may be comes cut, never read whole."""
    first = True
    while raw := binary.readline(MAX_RECORD_BYTES + 1):
        advance(len(raw))
        try:
            cut = len(raw) > MAX_RECORD_BYTES  # refused by its size: its last character may be cut
            line = raw.decode("utf-8-sig" if first else "utf-8", "ignore" if cut else "strict")
        except UnicodeDecodeError:
            raise CommandFailed("Not a CSV file: it is not UTF-8 text.") from None
        first = False
        yield line
