"""Tables a test module makes for itself in the test database, and drops when it ends."""

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import MetaData, Table

from bot.db.engine import create_engine

Rows = dict[Table, list[dict[str, Any]]]


@contextmanager
def scratch_tables(
    url: str, tables: MetaData, rows: dict[Table, list[dict[str, Any]]]
) -> Iterator[str]:
    """The tables of `tables` in the test database at `url`, filled with `rows`, dropped when
    the block ends (and first, if an interrupted run left them)."""
    asyncio.run(_create(url, tables, rows))
    try:
        yield url
    finally:
        asyncio.run(_drop(url, tables))


async def _create(url: str, tables: MetaData, rows: Rows) -> None:
    engine = create_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(tables.drop_all)  # left over by an interrupted run
            await conn.run_sync(tables.create_all)
            for table, values in rows.items():
                await conn.execute(table.insert(), values)
    finally:
        await engine.dispose()


async def _drop(url: str, tables: MetaData) -> None:
    engine = create_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(tables.drop_all)
    finally:
        await engine.dispose()
