"""SQLite's checkpoints while the app serves: on a thread, not in the commit that fills the WAL."""

from pathlib import Path

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.db import checkpoints
from bot.db.engine import create_engine
from tests.waiting import until

ROWS = 1_500  # about 1,600 pages of 4 KiB: past SQLite's own 1,000-page checkpoint
ROW_BYTES = 4_000


async def _autocheckpoint(engine: AsyncEngine) -> int:
    async with engine.connect() as connection:
        return int((await connection.exec_driver_sql("PRAGMA wal_autocheckpoint")).scalar_one())


async def test_a_thread_copies_the_wal_into_the_file_and_commits_leave_it_alone(
    tmp_path: Path,
) -> None:
    path = tmp_path / "checkpoints.db"
    engine = create_engine(f"sqlite+aiosqlite:///{path}")
    try:
        async with engine.begin() as connection:
            await connection.execute(text("CREATE TABLE filler (body BLOB)"))
        async with checkpoints.in_background(engine):
            assert await _autocheckpoint(engine) == checkpoints.BACKSTOP_PAGES
            before = path.stat().st_size
            async with engine.begin() as connection:
                await connection.execute(
                    text("INSERT INTO filler (body) VALUES (randomblob(:size))"),
                    [{"size": ROW_BYTES}] * ROWS,
                )
            # The commit left the pages in the WAL; the thread copies them into the file.
            await until(
                lambda: path.stat().st_size >= before + ROWS * ROW_BYTES,
                "the thread to copy the WAL into the file",
            )
        # Outside the block, new connections checkpoint as SQLite does by default.
        await engine.dispose()
        assert await _autocheckpoint(engine) == 1_000
    finally:
        await engine.dispose()
