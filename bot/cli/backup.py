"""`admin backup` and `admin restore`: one gzipped tar holding `backup.json` (what it holds),
`database.sqlite3` (a consistent copy, made while the app serves) and `files/` (the attachments
that copy names, laid out as FILES_DIR lays them). PostgreSQL is backed up with its own tools:
both commands then print what to run, and exit 1, having written nothing.

The work is synchronous file and SQLite work, run on a thread of the CLI's own process: no
app's event loop is ever held by it."""

import argparse
import asyncio
import io
import json
import os
import re
import tarfile
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from alembic.script import ScriptDirectory

from bot.cli.failure import CommandFailed
from bot.db import backup as database
from bot.db.migrate import alembic_config
from bot.errors import Conflict, NotFound
from bot.files.store import FileStore
from bot.settings import Settings
from bot.timestamps import format_timestamp

FORMAT, VERSION = "teams-tracker-backup", 1
MANIFEST, DATABASE, FILES = "backup.json", "database.sqlite3", "files/"
# An attachment's place in the store: its id's last two characters, then the id.
_FILE_NAME = re.compile(r"^files/([0-9a-f]{2})/([0-9a-f]{24})$")


async def backup(settings: Settings, args: argparse.Namespace) -> dict[str, Any]:
    path = database.sqlite_file(settings.database_url)
    if path is None:
        commands = database.postgres_commands(
            settings.database_url, archive=str(args.out), files_dir=settings.attachments_dir
        )
        raise CommandFailed(
            "Nothing written: back PostgreSQL up with pg_dump, and the attachments with tar, "
            "as these commands do.",
            **commands,
        )
    return await asyncio.to_thread(write_backup, path, settings.attachments_dir, args.out)


async def restore(settings: Settings, args: argparse.Namespace) -> dict[str, Any]:
    path = database.sqlite_file(settings.database_url)
    if path is None:
        commands = database.postgres_commands(
            settings.database_url, archive=str(args.archive), files_dir=settings.attachments_dir
        )
        raise CommandFailed(
            "Nothing restored: restore PostgreSQL with pg_restore, and the attachments with tar, "
            "as these commands do.",
            **commands,
        )
    return await asyncio.to_thread(
        read_backup, args.archive, path, settings.attachments_dir, force=args.force
    )


def write_backup(source: Path, files_dir: Path, out: Path) -> dict[str, Any]:
    """Copy the database, then the files its copy names, into `out` (written whole or not at
    all). A file deleted since the copy was made is listed as missing."""
    if not source.is_file():
        raise NotFound(f"There is no database at {source}.")
    if out.exists():
        raise Conflict(f"{out} exists already: name a new file.")
    store = FileStore(files_dir)
    part = out.with_name(out.name + ".part")
    with tempfile.TemporaryDirectory(dir=out.parent) as scratch:
        copy = Path(scratch) / DATABASE
        database.copy_database(source, copy)
        ids = database.attachment_ids(copy)
        missing = [attachment for attachment in ids if not store.path_of(attachment).is_file()]
        manifest = {
            "format": FORMAT,
            "version": VERSION,
            "createdAt": format_timestamp(datetime.now(UTC)),
            "revision": database.revision_of(copy),
            "files": len(ids) - len(missing),
            "missingFiles": missing,
        }
        with tarfile.open(part, "w:gz") as archive:
            _add_bytes(archive, MANIFEST, json.dumps(manifest, indent=2).encode())
            archive.add(copy, DATABASE)
            for attachment in ids:
                path = store.path_of(attachment)
                if attachment not in missing:
                    archive.add(path, FILES + str(path.relative_to(files_dir)))
    os.replace(part, out)
    return {"backup": str(out), **manifest}


def read_backup(
    archive_path: Path, target: Path, files_dir: Path, *, force: bool
) -> dict[str, Any]:
    """Put the archive's database and files back. Refused while another process has the
    database open, whatever `force` says; refused over a database holding any row unless
    `force`. Files go back before the database, so a restore cut short leaves the old database
    with extra files, never rows without their files."""
    if not archive_path.is_file():
        raise NotFound(f"There is no backup at {archive_path}.")
    with tarfile.open(archive_path, "r:gz") as archive:
        manifest = _manifest(archive)
        with (
            database.taken_over(target) as held,
            tempfile.TemporaryDirectory(dir=target.parent) as scratch,
        ):
            if not force and database.holds_rows(held):
                raise Conflict(
                    f"The database {target} is not empty: restore over it with --force, which "
                    "replaces everything in it."
                )
            copy = Path(scratch) / DATABASE
            _extract(archive, DATABASE, copy)
            database.check_copy(copy)  # before anything is replaced
            files = _restore_files(archive, files_dir)
            database.restore_database(copy, held)
    return {"restored": str(target), "revision": manifest["revision"], "files": files}


def _manifest(archive: tarfile.TarFile) -> dict[str, Any]:
    try:
        member = archive.extractfile(MANIFEST)
        manifest = json.load(member) if member else None
    except (KeyError, ValueError):
        manifest = None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise CommandFailed("Not a backup made by `admin backup`.")
    if manifest.get("version") != VERSION:
        raise CommandFailed(f"Backup format version {manifest.get('version')} is not known here.")
    revision = manifest.get("revision")
    known = {
        script.revision for script in ScriptDirectory.from_config(alembic_config()).walk_revisions()
    }
    if revision is not None and revision not in known:
        raise CommandFailed(
            f"The backup's schema ({revision}) is newer than this version of the app: "
            "upgrade the app first."
        )
    return manifest


def _restore_files(archive: tarfile.TarFile, files_dir: Path) -> int:
    """Each attachment file back in place (whole: written aside, then moved); names other than
    an attachment's place are refused, so nothing lands outside FILES_DIR."""
    restored = 0
    for member in archive:
        if not member.name.startswith(FILES):
            continue
        place = _FILE_NAME.match(member.name)
        if place is None or not member.isfile() or place.group(2)[-2:] != place.group(1):
            raise CommandFailed(f"The backup holds an unexpected entry: {member.name!r}.")
        final = files_dir / place.group(1) / place.group(2)
        final.parent.mkdir(parents=True, exist_ok=True)
        _extract(archive, member.name, final)
        restored += 1
    return restored


def _extract(archive: tarfile.TarFile, name: str, to: Path) -> None:
    source = archive.extractfile(name)
    if source is None:
        raise CommandFailed(f"The backup's {name} is not a file.")
    part = to.with_name(to.name + ".part")
    with source, part.open("wb") as written:
        while chunk := source.read(1 << 20):
            written.write(chunk)
    os.replace(part, to)


def _add_bytes(archive: tarfile.TarFile, name: str, content: bytes) -> None:
    entry = tarfile.TarInfo(name)
    entry.size = len(content)
    entry.mtime = int(datetime.now(UTC).timestamp())
    archive.addfile(entry, io.BytesIO(content))
