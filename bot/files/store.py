"""The file store: a directory (FILES_DIR) holding each attachment's bytes under its id. Uploads
are written to `tmp/` and moved into place whole; removals run after the commit that dropped
their rows, on a thread."""

import asyncio
import contextlib
import logging
import os
import secrets
import time
from collections.abc import Iterable
from pathlib import Path

log = logging.getLogger(__name__)

STALE_PART_SECONDS = 3600


class FileStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._temporary = root / "tmp"
        self._removals: set[asyncio.Task[None]] = set()

    def open(self) -> None:
        """Create the directories, and drop what interrupted uploads left in `tmp/` (a process
        killed mid-upload): parts untouched for an hour, since other processes may share it."""
        self._temporary.mkdir(parents=True, exist_ok=True)
        stale = time.time() - STALE_PART_SECONDS
        for part in self._temporary.glob("*.part"):
            with contextlib.suppress(FileNotFoundError):
                if part.stat().st_mtime < stale:
                    part.unlink()

    def path_of(self, attachment_id: str) -> Path:
        # Spread over 256 directories by the id's random end: no directory grows unbounded.
        return self.root / attachment_id[-2:] / attachment_id

    def new_temporary(self) -> Path:
        return self._temporary / f"{secrets.token_hex(12)}.part"

    async def place(self, temporary: Path, attachment_id: str) -> None:
        """Move a complete upload into place under its attachment's id."""
        await asyncio.to_thread(_move, temporary, self.path_of(attachment_id))

    def remove_later(self, attachment_ids: Iterable[str]) -> None:
        """Remove the attachments' files on a thread (called once their rows are gone)."""
        paths = [self.path_of(attachment_id) for attachment_id in attachment_ids]
        if not paths:
            return
        task = asyncio.get_running_loop().create_task(asyncio.to_thread(_remove, paths))
        self._removals.add(task)
        task.add_done_callback(self._removals.discard)

    async def settled(self) -> None:
        """Wait for the removals under way (shutdown, and tests that look at the directory)."""
        while self._removals:
            await asyncio.gather(*self._removals, return_exceptions=True)


def _move(temporary: Path, final: Path) -> None:
    final.parent.mkdir(exist_ok=True)
    os.replace(temporary, final)


def _remove(paths: list[Path]) -> None:
    for path in paths:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
    log.debug("removed %d attachment files", len(paths))
