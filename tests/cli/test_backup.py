"""`admin backup` and `admin restore`: a SQLite backup taken while the app creates items and
uploads files restores to exactly the rows and files of one moment; a restore refuses a database
that holds rows (unless --force) or that another connection has open; PostgreSQL is backed up
with its own tools, whose commands the CLI prints, writing nothing."""

import asyncio
import hashlib
import json
import sqlite3
import tarfile
import threading
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from sqlalchemy import Table, select

from bot.db import backup as backup_files
from bot.db.engine import create_engine
from bot.db.tables import Attachment, Item, Team
from bot.files.store import FileStore
from tests.cli.helpers import Cli
from tests.factories import Factory, create_item
from tests.files.helpers import uploaded
from tests.waiting import PATIENCE, until

ITEMS = Item.__table__
ATTACHMENTS = Attachment.__table__


async def rows_of(url: str, table: Table) -> dict[str, tuple[Any, ...]]:
    """Every row of `table` by id, all columns."""
    engine = create_engine(url)
    try:
        async with engine.connect() as conn:
            rows = (await conn.execute(select(table).order_by(table.c.id))).all()
    finally:
        await engine.dispose()
    return {row.id: tuple(row) for row in rows}


def checksum(rows: dict[str, tuple[Any, ...]]) -> str:
    return hashlib.sha256(repr(sorted(rows.values())).encode()).hexdigest()


def sqlite_path(url: str) -> Path:
    return Path(url.removeprefix("sqlite+aiosqlite:///"))


# Each backup test runs on the database it is about, and only there (PostgreSQL's is pg_dump).
ON_SQLITE = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
ON_POSTGRESQL = pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)


@pytest.fixture
def sqlite_only(database: str) -> str:
    return database


@ON_SQLITE
async def test_a_backup_under_write_load_restores_one_moments_rows_and_files(
    cli: Cli,
    sqlite_only: str,
    client: TestClient,
    factory: Factory,
    environment: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    member = await factory.member()
    created: list[str] = []
    stop = asyncio.Event()

    # The backup, once it has copied the database, goes on only after the app has written more:
    # rows and files made while it archives the files are certainly there.
    copied_at: list[int] = []
    wrote_since = threading.Event()
    copy_database = backup_files.copy_database

    def copy_then_let_the_app_write(source: Path, target: Path) -> None:
        copy_database(source, target)
        copied_at.append(len(created))
        assert wrote_since.wait(PATIENCE), "the app wrote nothing after the copy"

    environment.setattr(backup_files, "copy_database", copy_then_let_the_app_write)

    async def writer() -> None:
        while not stop.is_set():
            item = await create_item(client, member, name=f"Bug {len(created)}")
            created.append(item["_id"])
            if len(created) % 3 == 0:
                await uploaded(client, member, item["_id"], content=item["_id"].encode() * 100)
            if copied_at and len(created) >= copied_at[0] + 6:
                wrote_since.set()

    writing = asyncio.create_task(writer())
    await until(lambda: len(created) >= 30 or writing.done(), "the app to write 30 items")
    before = len(created)
    archive = tmp_path / "backup.tar.gz"
    made = await asyncio.to_thread(cli, "admin", "backup", "--out", str(archive))
    during = len(created)
    # The app went on writing after the backup too.
    await until(lambda: len(created) >= during + 10 or writing.done(), "more writes")
    stop.set()
    await writing
    assert copied_at and during > before, "the writer wrote while the backup ran"
    assert made["missingFiles"] == [] and made["revision"]

    restored_dir = tmp_path / "restored"
    restored_url = f"sqlite+aiosqlite:///{restored_dir / 'app.db'}"
    environment.setenv("DATABASE_URL", restored_url)
    environment.setenv("DATA_DIR", str(restored_dir))
    done = await asyncio.to_thread(cli, "admin", "restore", str(archive))
    assert done["files"] == made["files"]

    source, restored = await rows_of(sqlite_only, ITEMS), await rows_of(restored_url, ITEMS)
    # One moment: the first k items the writer made, k at least what it had made before.
    assert before <= len(restored) <= len(created)
    assert set(restored) == set(created[: len(restored)])
    assert checksum(restored) == checksum({key: source[key] for key in restored})
    files = await rows_of(restored_url, ATTACHMENTS)
    assert len(files) == made["files"] >= before // 3 - 1  # the last may be uploading
    old, new = FileStore(tmp_path / "files"), FileStore(restored_dir / "files")
    for attachment in files:
        assert new.path_of(attachment).read_bytes() == old.path_of(attachment).read_bytes()


@ON_SQLITE
async def test_restore_refuses_a_database_with_rows_unless_forced(
    cli: Cli, sqlite_only: str, factory: Factory, tmp_path: Path
) -> None:
    await factory.standard_team()
    archive = tmp_path / "backup.tar.gz"
    await asyncio.to_thread(cli, "admin", "backup", "--out", str(archive))
    await factory.team("19:team-b@thread.tacv2", name="Team B")
    await factory.engine.dispose()  # its pooled connection would hold the file open

    refused = await asyncio.to_thread(cli, "admin", "restore", str(archive), code=1)
    assert "is not empty" in refused["error"] and "--force" in refused["error"]
    assert await team_names(sqlite_only) == ["Team A", "Team B"]  # untouched

    await factory.engine.dispose()
    await asyncio.to_thread(cli, "admin", "restore", str(archive), "--force")
    assert await team_names(sqlite_only) == ["Team A"]


async def team_names(url: str) -> list[str]:
    engine = create_engine(url)
    try:
        async with engine.connect() as conn:
            return list((await conn.scalars(select(Team.name).order_by(Team.name))).all())
    finally:
        await engine.dispose()


@ON_SQLITE
def test_restore_refuses_a_database_another_connection_has_open(
    cli: Cli, sqlite_only: str, tmp_path: Path
) -> None:
    archive = tmp_path / "backup.tar.gz"
    cli("admin", "backup", "--out", str(archive))
    with closing(sqlite3.connect(sqlite_path(sqlite_only))) as app:
        app.execute("SELECT 1 FROM items").fetchall()
        refused = cli("admin", "restore", str(archive), "--force", code=1)
    assert "is in use" in refused["error"]


@ON_SQLITE
def test_backup_never_overwrites_and_restore_refuses_what_is_no_backup(
    cli: Cli, sqlite_only: str, tmp_path: Path
) -> None:
    taken = tmp_path / "taken.tar.gz"
    taken.write_bytes(b"keep me")
    assert "exists already" in cli("admin", "backup", "--out", str(taken), code=1)["error"]
    assert taken.read_bytes() == b"keep me"

    other = tmp_path / "other.tar.gz"
    with tarfile.open(other, "w:gz") as archive:
        archive.add(taken, "backup.json")
    assert cli("admin", "restore", str(other), code=1) == {
        "error": "Not a backup made by `admin backup`."
    }


@ON_SQLITE
def test_a_backup_holding_a_path_outside_the_files_is_refused(
    cli: Cli, sqlite_only: str, tmp_path: Path
) -> None:
    archive = tmp_path / "backup.tar.gz"
    cli("admin", "backup", "--out", str(archive))
    evil = tmp_path / "evil.tar.gz"
    with tarfile.open(archive) as good, tarfile.open(evil, "w:gz") as bad:
        for member in good:
            bad.addfile(member, good.extractfile(member))
        payload = tmp_path / "payload"
        payload.write_bytes(b"x")
        bad.add(payload, "files/../../escaped")
    refused = cli("admin", "restore", str(evil), "--force", code=1)
    assert "unexpected entry" in refused["error"]
    assert not (tmp_path.parent / "escaped").exists()


@ON_POSTGRESQL
def test_postgresql_backup_prints_the_pg_dump_command_and_writes_nothing(
    cli: Cli, database: str, tmp_path: Path
) -> None:
    out = tmp_path / "tracker.dump"
    answer = cli("admin", "backup", "--out", str(out), code=1)
    name = database.rsplit("/", 1)[1]
    assert answer["error"].startswith("Nothing written")
    assert answer["pgDump"] == (
        f"pg_dump --format=custom --file={out} --dbname=postgresql://postgres@127.0.0.1:5432/{name}"
    )
    assert answer["filesBackup"] == f"tar -czf {out}.files.tar.gz -C {tmp_path / 'files'} ."
    assert not out.exists()
    restore = cli("admin", "restore", str(out), code=1)
    assert restore["pgRestore"].startswith("pg_restore --clean --if-exists --no-owner --dbname=")


def test_the_commands_never_show_the_databases_password(
    cli: Cli, environment: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    environment.setenv("DATABASE_URL", "postgresql+asyncpg://app:s3cret@db.internal:5432/tracker")
    answer = cli("admin", "backup", "--out", str(tmp_path / "t.dump"), code=1)
    assert "s3cret" not in json.dumps(answer)
    assert "postgresql://app@db.internal:5432/tracker" in answer["pgDump"]
    assert "PGPASSWORD" in answer["password"]


def with_database(archive: Path, database: Path, out: Path) -> Path:
    """`archive` with its database replaced by `database`: its manifest unchanged."""
    with tarfile.open(archive, "r:gz") as source, tarfile.open(out, "w:gz") as target:
        for member in source.getmembers():
            if member.name == "database.sqlite3":
                target.add(database, member.name)
            else:
                target.addfile(member, source.extractfile(member) if member.isfile() else None)
    return out


@ON_SQLITE
async def test_restore_refuses_a_database_that_is_not_this_apps_and_changes_nothing(
    cli: Cli, sqlite_only: str, factory: Factory, tmp_path: Path
) -> None:
    await factory.standard_team()
    archive = tmp_path / "backup.tar.gz"
    await asyncio.to_thread(cli, "admin", "backup", "--out", str(archive))
    await factory.engine.dispose()
    live = sqlite_path(sqlite_only)
    [revision] = sqlite3.connect(live).execute("SELECT version_num FROM alembic_version").fetchone()

    one_table = tmp_path / "one-table.sqlite3"
    with closing(sqlite3.connect(one_table)) as other:
        other.execute("CREATE TABLE notes (text)")
        other.commit()
    missing = tmp_path / "missing.sqlite3"
    with closing(sqlite3.connect(missing)) as other:
        other.execute("CREATE TABLE alembic_version (version_num VARCHAR(32) PRIMARY KEY)")
        other.execute("INSERT INTO alembic_version VALUES (?)", (revision,))
        other.execute("CREATE TABLE teams (id)")
        other.commit()
    unknown = tmp_path / "unknown.sqlite3"
    with closing(sqlite3.connect(unknown)) as other:
        other.execute("CREATE TABLE alembic_version (version_num VARCHAR(32) PRIMARY KEY)")
        other.execute("INSERT INTO alembic_version VALUES ('9999')")
        other.commit()
    broken = tmp_path / "broken.sqlite3"
    broken.write_bytes(live.read_bytes()[:8192] + b"\x00" * 8192)
    not_sqlite = tmp_path / "text.sqlite3"
    not_sqlite.write_bytes(b"not a database at all" * 100)

    cases = {
        one_table: "The backup's database is not this app's: it has no schema revision.",
        missing: f"The backup's database lacks tables its schema ({revision}) has: ",
        unknown: "The backup's database is at schema 9999, which this version of the app "
        "does not know: upgrade the app first.",
        broken: "The backup's database is damaged: ",
        not_sqlite: "The backup's database is not a SQLite database.",
    }
    for database, error in cases.items():
        bad = with_database(archive, database, tmp_path / f"{database.stem}.tar.gz")
        refused = await asyncio.to_thread(cli, "admin", "restore", str(bad), "--force", code=1)
        assert refused["error"].startswith(error), refused
        assert "\n" not in refused["error"]
        assert await team_names(sqlite_only) == ["Team A"]  # untouched
        await factory.engine.dispose()
