"""`admin import`: a CSV's rows, or an export's configuration and items, into one channel, all
or nothing.

One unit of work, so one transaction: every record is checked by the item rules as it is read
(`bot.items.batch`), kept items are written a chunk at a time, and a file with any bad record
ends with the transaction rolled back and the report of every bad one. A dry run does the same
work, writes included, and rolls back. Imported items write no pending events, so no rule fires
and nobody is notified, unless `--events`.

An export's configuration comes before its items and is added first: the statuses, priorities
and severities the channel lacks (here), then its external projects, their mappings and its
event rules (`bot.cli.import_config`, which says what is recreated and what is left to do).

On SQLite the import holds the database's write lock from its first write to its end: the app's
writes wait meanwhile (up to `SQLITE_WRITE_WAIT_S`, then fail), so import a large file when the
app is quiet."""

import argparse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from bot.cli.commands import work
from bot.cli.failure import CommandFailed
from bot.cli.import_config import Configuration, Wrong
from bot.cli.import_rows import (
    VALUE_SECTIONS,
    Record,
    counted_lines,
    csv_records,
    json_records,
)
from bot.cli.import_shape import CheckedJson
from bot.cli.progress import Progress
from bot.db.uow import UnitOfWork
from bot.directory.teams import named_channel
from bot.errors import DomainError
from bot.fields import levels
from bot.fields import service as fields
from bot.fields.catalog import load_catalog, name_key
from bot.fields.schemas import PriorityIn, SeverityIn, StatusIn
from bot.items.batch import NewItems
from bot.items.schemas import BugCreate, TaskCreate
from bot.projects.sources import SourceKind
from bot.schemas import ItemKind
from bot.settings import Settings
from bot.validation import NUL_REFUSED, describe_validation_error, nul_character_at

CHUNK = 1000  # items written per statement: memory stays flat however long the file
MAX_REPORTED = 100  # bad records listed; the count says how many there were


class _DryRun(Exception):
    """Ends a dry run's unit of work, so it rolls back."""


async def import_items(settings: Settings, args: argparse.Namespace) -> dict[str, Any]:
    path: Path = args.file
    reader = _reader(path)
    progress = Progress(path.stat().st_size)
    outcome: dict[str, Any] = {"file": str(path), "dryRun": args.dry_run, "events": args.events}
    try:
        async with work(settings) as uow:
            uow.channel = await named_channel(uow, team_id=args.team_id, channel_id=args.channel_id)
            configuration = Configuration(
                uow,
                secret_key=settings.secret(),
                allowed_hosts=settings.webhook_allowed_hosts,
            )
            importer = _Importer(uow, configuration, record_events=args.events)
            with path.open("rb") as binary:
                for record in reader(binary, progress.advance, args.kind):
                    await importer.take(record)
            await importer.finish()
            progress.close(importer.records)
            outcome |= importer.summary()
            if importer.errors:
                wrong = importer.wrong
                raise CommandFailed(
                    f"{wrong} of {importer.records} records are wrong: nothing imported.",
                    records=importer.records,
                    errors=importer.errors,
                )
            if args.dry_run:
                raise _DryRun()
    except _DryRun:
        pass
    return outcome


Reader = Callable[[IO[bytes], Callable[[int], None], ItemKind], Iterator[Record]]


def _reader(path: Path) -> Reader:
    """How to read the file, by its name: a .csv or a .json; anything else is refused."""
    if not path.is_file():
        raise CommandFailed(f"There is no file at {path}.")
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return lambda binary, advance, kind: csv_records(
            counted_lines(binary, advance), default_kind=kind, name=path.name
        )
    if suffix == ".json":
        return lambda binary, advance, _kind: json_records(
            CheckedJson(_Counted(binary, advance), path.name)
        )
    raise CommandFailed(f"{path.name}: import reads a .csv or a .json file (admin export's).")


class _Counted:
    """A binary file whose reads are reported to the progress bar."""

    def __init__(self, binary: IO[bytes], advance: Callable[[int], None]) -> None:
        self._binary, self._advance = binary, advance

    def read(self, size: int = -1) -> bytes:
        chunk = self._binary.read(size)
        self._advance(len(chunk))
        return chunk


def _refuse_nul(record: Record) -> None:
    """Text holding U+0000, which PostgreSQL cannot store, refused on both databases, named as
    the API names it."""
    project = {"sourceId": record.extra.get("projectSourceId")}
    where = nul_character_at(
        {**record.fields, "source": record.extra.get("source"), "projectId": project}, ""
    )
    if where is not None:
        raise Wrong(f"{where}: {NUL_REFUSED}")


@dataclass
class _Importer:
    """One import's state: its batches by kind, what it wrote, what was wrong."""

    uow: UnitOfWork
    configuration: Configuration
    record_events: bool
    records: int = 0
    wrong: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)
    added_values: list[dict[str, str]] = field(default_factory=list)
    _batches: dict[ItemKind, NewItems] = field(default_factory=dict)
    _written: dict[ItemKind, int] = field(default_factory=dict)

    async def take(self, record: Record) -> None:
        """Check one record; keep it, or note what is wrong with it."""
        self.records += 1
        try:
            if record.problem is not None:
                raise Wrong(record.problem)
            _refuse_nul(record)
            if record.section == "items":
                await self._item(record)
            elif self._batches:
                raise Wrong(f"{record.section} must come before the items (bugs and tasks)")
            elif record.section in VALUE_SECTIONS:
                await self._value(record)
            elif record.section == "projects":
                await self.configuration.project(record)
            elif record.section == "mappings":
                await self.configuration.mapping(record)
            else:
                await self.configuration.rule(record)
        except Wrong as wrong:
            self._report(record, wrong.why)
        except DomainError as error:
            self._report(record, error.message)

    async def finish(self) -> None:
        for kind, batch in self._batches.items():
            self._written[kind] = self._written.get(kind, 0) + await batch.write()

    def summary(self) -> dict[str, Any]:
        counts = {kind.plural: self._written.get(kind, 0) for kind in ItemKind}
        return {
            "items": counts,
            "valuesAdded": self.added_values,
            **self.configuration.summary(),
        }

    def _report(self, record: Record, why: str) -> None:
        self.wrong += 1
        if len(self.errors) < MAX_REPORTED:
            place = "line" if isinstance(record.where, int) else "at"
            self.errors.append({place: record.where, "error": why})

    async def _item(self, record: Record) -> None:
        model = BugCreate if record.kind is ItemKind.BUG else TaskCreate
        body_fields = dict(record.fields)
        project_id = await self._project_id(record.extra)
        if project_id is not None:
            body_fields["projectId"] = project_id
        try:
            body = model.model_validate(body_fields)
        except ValidationError as error:
            raise Wrong(describe_validation_error(error)) from None
        batch = self._batches.get(record.kind)
        if batch is None:
            batch = self._batches[record.kind] = await NewItems.open(
                self.uow, kind=record.kind, record_events=self.record_events
            )
        await batch.add(body, created_at=record.created_at)
        if len(batch) >= CHUNK:
            self._written[record.kind] = self._written.get(record.kind, 0) + await batch.write()

    async def _project_id(self, extra: dict[str, Any]) -> str | None:
        """An exported item's project here: the channel's own for a native one, else the one
        configured here with the same source and source id."""
        source, source_id = extra.get("source"), extra.get("projectSourceId")
        if source in (None, SourceKind.NATIVE.value) or not source_id:
            return None
        found = await self.configuration.project_here(source, source_id)
        if found is None:
            raise Wrong(f"projectId: {source} project '{source_id}' is not configured here")
        return found

    async def _value(self, record: Record) -> None:
        """A status, priority or severity of the export: added unless the channel has one of
        that name for that kind (never made primary: the channel keeps its own)."""
        value = {**record.fields, "primary": False, "order": None}
        kind = ItemKind.TASK if value.get("type") == ItemKind.TASK.type_label else ItemKind.BUG
        assert self.uow.channel is not None
        catalog = await load_catalog(self.uow, channel_id=self.uow.channel.channel_id, kind=kind)
        held = {
            "statuses": catalog.statuses,
            "priorities": catalog.priorities,
            "severities": catalog.severities,
        }[record.section]
        if name_key(str(value.get("name", ""))) in held.by_key:
            return
        try:
            if record.section == "statuses":
                await fields.create_status(self.uow, body=StatusIn.model_validate(value))
            elif record.section == "priorities":
                body = PriorityIn.model_validate(value)
                await levels.create_level(self.uow, scale=levels.PRIORITY_SCALE, body=body)
            else:
                severity = SeverityIn.model_validate(value)
                await levels.create_level(self.uow, scale=levels.SEVERITY_SCALE, body=severity)
        except ValidationError as error:
            raise Wrong(describe_validation_error(error)) from None
        self.added_values.append(
            {"section": record.section, "name": value["name"], "type": kind.type_label}
        )
