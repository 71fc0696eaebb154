"""Transaction-scoped advisory locks on PostgreSQL, named by text: what makes a check and the
insert it allows one step where no row exists yet to lock. A unit holds each until it commits or
rolls back. SQLite needs none: its writers take turns (`bot.db.uow`), so there they do nothing."""

import hashlib
from typing import Any

from sqlalchemy import BigInteger, Select, bindparam, func, select
from sqlalchemy.ext.asyncio import AsyncConnection

# Built once: every item write takes a shared one, and building it per call was a measurable
# share of a create (docs/BENCHMARKS.md, "Figures that were in the code").
_KEY = bindparam("key", type_=BigInteger)
_SHARED = select(func.pg_advisory_xact_lock_shared(_KEY))
_ALONE = select(func.pg_advisory_xact_lock(_KEY))


async def hold(connection: AsyncConnection, *names: str, shared: bool = False) -> None:
    """Hold the locks `names` until the transaction of `connection` ends, alone or `shared` with
    other shared holders; several are taken in one order, so two units never wait for each
    other. On PostgreSQL this statement begins the transaction if nothing has: a write that
    follows pays no round trip to begin it."""
    if connection.dialect.name != "postgresql":
        return
    statement: Select[Any] = _SHARED if shared else _ALONE
    for name in sorted(set(names)):
        await connection.execute(statement, {"key": _key(name)})


def _key(name: str) -> int:
    """A signed 64-bit key per name (what PostgreSQL's advisory locks take)."""
    digest = hashlib.blake2b(name.encode(), digest_size=8)
    return int.from_bytes(digest.digest(), "big", signed=True)
