"""Alembic migrations, applied under a PostgreSQL advisory lock so processes can start together."""

from functools import cache
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, text
from sqlalchemy.ext.asyncio import AsyncEngine

MIGRATIONS = Path(__file__).parent / "migrations"
# Any constant shared by every process of this app; "tracker" in ASCII.
ADVISORY_LOCK_KEY = 0x747261636B6572


def alembic_config(connection: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


@cache  # the scripts ship with the code: read them once, not on every readiness probe
def head_revision() -> str | None:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current_revision(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


async def migrate(engine: AsyncEngine) -> None:
    """Upgrade the database to head in one transaction."""
    async with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            # Migrations and the wait for another process's are not requests: no time bound.
            await conn.execute(text("SET LOCAL statement_timeout = 0"))
            # Released at commit; a second process waits here, then finds nothing to do.
            await conn.execute(
                text("SELECT pg_advisory_xact_lock(:key)"), {"key": ADVISORY_LOCK_KEY}
            )
        await conn.run_sync(_upgrade)


def _upgrade(connection: Connection) -> None:
    # At head already (every start but the first after an upgrade): skip loading the scripts.
    if current_revision(connection) == head_revision():
        return
    command.upgrade(alembic_config(connection), "head")
