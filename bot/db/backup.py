"""Copies of the database. SQLite: its online backup API, both ways (a copy is one read
transaction, so the app keeps writing meanwhile; a restore writes the file through SQLite's own
locks, never by replacing it under a connection). PostgreSQL: its own tools, `pg_dump` and
`pg_restore`, whose commands are written out from DATABASE_URL.

Synchronous on purpose: only the admin CLI calls these, in its own process, on a thread."""

import shlex
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, inspect
from sqlalchemy.engine import URL, make_url

from bot.db.migrate import alembic_config
from bot.db.tables import Attachment, Base
from bot.errors import BadRequest, Conflict


class DatabaseInUse(Conflict):
    """Another connection has the SQLite file open: a running app, most likely."""


def sqlite_file(url: str) -> Path | None:
    """The file of a SQLite DATABASE_URL; None for PostgreSQL."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return None
    if not parsed.database or parsed.database == ":memory:":
        raise ValueError("an in-memory SQLite database has nothing to back up")
    return Path(parsed.database)


def copy_database(source: Path, target: Path) -> None:
    """A consistent copy of the live SQLite file at `source`, made in one step: one read
    transaction, which WAL lets the app's writers go on beside (a copy in several steps would
    start over at each of their commits)."""
    with closing(sqlite3.connect(source)) as live, closing(sqlite3.connect(target)) as copy:
        live.backup(copy)


def attachment_ids(database: Path) -> list[str]:
    """The attachments a copy's rows name: the files a backup of it must hold."""
    with closing(sqlite3.connect(database)) as copy:
        found = copy.execute(f"SELECT id FROM {Attachment.__tablename__} ORDER BY id")
        return [row[0] for row in found]


def revision_of(database: Path) -> str | None:
    """The migration a SQLite file is at, or None before any."""
    with closing(sqlite3.connect(database)) as copy:
        try:
            row = copy.execute("SELECT version_num FROM alembic_version").fetchone()
        except sqlite3.OperationalError:  # no such table: never migrated
            return None
        return row[0] if row else None


class NotThisAppsDatabase(BadRequest):
    """A backup's database that a restore must not put in place of the live one."""


def check_copy(copy: Path) -> None:
    """Refuse a copy that is not this app's database whole: a SQLite file that passes SQLite's
    integrity check, at a schema revision this app knows, holding every table of that revision."""
    where = "The backup's database"
    try:
        with closing(sqlite3.connect(f"{copy.resolve().as_uri()}?mode=ro", uri=True)) as opened:
            damage = [row[0] for row in opened.execute("PRAGMA integrity_check")]
            present = {row[0] for row in opened.execute("SELECT name FROM sqlite_master")}
    except sqlite3.DatabaseError as error:
        if "not a database" in str(error):
            raise NotThisAppsDatabase(f"{where} is not a SQLite database.") from None
        raise NotThisAppsDatabase(f"{where} is damaged: {error}.") from None
    if damage != ["ok"]:
        raise NotThisAppsDatabase(f"{where} is damaged: {damage[0]}.")
    revision = revision_of(copy)
    if revision is None:
        raise NotThisAppsDatabase(f"{where} is not this app's: it has no schema revision.")
    scripts = ScriptDirectory.from_config(alembic_config())
    if revision not in {script.revision for script in scripts.walk_revisions()}:
        raise NotThisAppsDatabase(
            f"{where} is at schema {revision}, which this version of the app does not know: "
            "upgrade the app first."
        )
    lacking = sorted(tables_at(revision) - present)
    if lacking:
        raise NotThisAppsDatabase(
            f"{where} lacks tables its schema ({revision}) has: {', '.join(lacking)}."
        )


def tables_at(revision: str) -> set[str]:
    """The tables the migrations make up to `revision`, built in a scratch SQLite file."""
    with tempfile.TemporaryDirectory() as folder:
        engine = create_engine(f"sqlite:///{folder}/schema.sqlite3")
        try:
            with engine.begin() as connection:
                command.upgrade(alembic_config(connection), revision)
                return set(inspect(connection).get_table_names())
        finally:
            engine.dispose()


@contextmanager
def taken_over(target: Path) -> Iterator[sqlite3.Connection]:
    """The SQLite file at `target` (made if missing) held alone until the block ends: no other
    connection may open it meanwhile. `DatabaseInUse` if one has it open now."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(target, timeout=0, isolation_level=None)) as connection:
        # Kept past the transaction: the exclusive lock lasts until the connection closes.
        connection.execute("PRAGMA locking_mode=EXCLUSIVE")
        try:
            connection.execute("BEGIN EXCLUSIVE")
        except sqlite3.OperationalError as error:
            if "locked" not in str(error):
                raise
            raise DatabaseInUse(
                f"The database {target} is in use (a running app?): stop every process using it, "
                "then restore."
            ) from None
        connection.execute("COMMIT")
        yield connection


def holds_rows(connection: sqlite3.Connection) -> bool:
    """Whether any of the app's tables holds a row (a migrated, unused database holds none)."""
    present = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
    for table in Base.metadata.sorted_tables:
        if table.name in present:
            if connection.execute(f'SELECT 1 FROM "{table.name}" LIMIT 1').fetchone():
                return True
    return False


def restore_database(copy: Path, connection: sqlite3.Connection) -> None:
    """Write the copy's pages over the database `connection` holds (`taken_over`)."""
    with closing(sqlite3.connect(copy)) as source:
        source.backup(connection)


def postgres_commands(url: str, *, archive: str, files_dir: Path) -> dict[str, str]:
    """The commands that back a PostgreSQL installation up and restore it: the database with
    its own tools, the attachments directory with tar. No password is written out."""
    parsed = make_url(url)
    # libpq's URL: no driver name, no password (its `set` keeps a password given None).
    without_password = URL.create(
        "postgresql", parsed.username, None, parsed.host, parsed.port, parsed.database, parsed.query
    )
    target = shlex.quote(without_password.render_as_string(hide_password=False))
    database = shlex.quote(archive)
    files = shlex.quote(f"{archive}.files.tar.gz")
    folder = shlex.quote(str(files_dir))
    commands = {
        "pgDump": f"pg_dump --format=custom --file={database} --dbname={target}",
        "filesBackup": f"tar -czf {files} -C {folder} .",
        "pgRestore": f"pg_restore --clean --if-exists --no-owner --dbname={target} {database}",
        "filesRestore": f"mkdir -p {folder} && tar -xzf {files} -C {folder}",
    }
    if parsed.password:
        commands["password"] = "give the password in PGPASSWORD or ~/.pgpass"
    return commands
