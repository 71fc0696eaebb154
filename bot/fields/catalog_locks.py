"""A channel's configuration (its field values and projects) against the writes that read it,
and against itself, on PostgreSQL.

Items hold their status, priority and severity by name. An item write checks the names against
the catalogue it read, and a rename rewrites the items that hold the old name. Under READ
COMMITTED the two could cross: a create that read the catalogue before a rename committed
stored the old name after the rename's UPDATE had run, and kept it for good. So both take one
transaction-scoped advisory lock per channel: item writes in shared mode, before they read the
catalogue (they never wait for one another), renames and deletes of values exclusively, before
they read anything. Each waits for the other to commit, and then reads what it wrote.

Creates of values and of projects take it exclusively too, before their checks: a row lock
covers only the rows that exist, so two creates could each check, miss the other's new row,
and insert a duplicate name (a unique violation) or one value past a limit. Held alone, the
second reads after the first committed. A project deleted this way never loses an item that
an item write, holding the lock shared, was adding to it.

SQLite needs none of this: its writers take turns (`bot.uow`).
"""

import hashlib
from typing import Any

from sqlalchemy import BigInteger, Select, bindparam, func, select

from bot.db.reads import TransactionReads
from bot.uow import UnitOfWork


async def share(uow: UnitOfWork, *, channel_id: str) -> None:
    """Hold the channel's catalogue against renames until the unit commits. On PostgreSQL
    this statement begins the unit's transaction if nothing has, as the first driver write would
    otherwise do with a statement of its own (`bot.db.driver._begun`): a create pays no round
    trip more."""
    await _lock(uow, _SHARE, channel_id)


async def take(uow: UnitOfWork, *, channel_id: str) -> None:
    """Hold the channel's catalogue alone until the unit commits: once the item writes that
    read it have committed, and before any other reads it."""
    await _lock(uow, _TAKE, channel_id)


# Built once: every create runs the first (built per call, it cost a create 0.23 M instructions).
_KEY = bindparam("key", type_=BigInteger)
_SHARE = select(func.pg_advisory_xact_lock_shared(_KEY))
_TAKE = select(func.pg_advisory_xact_lock(_KEY))


async def _lock(uow: UnitOfWork, statement: Select[Any], channel_id: str) -> None:
    reads = uow.reads
    assert isinstance(reads, TransactionReads), "catalogue locks belong to a writing unit"
    connection = reads.transaction_connection
    if connection.dialect.name == "postgresql":
        await connection.execute(statement, {"key": _key(channel_id)})


def _key(channel_id: str) -> int:
    """A signed 64-bit key per channel (what PostgreSQL's advisory locks take)."""
    digest = hashlib.blake2b(f"catalog {channel_id}".encode(), digest_size=8)
    return int.from_bytes(digest.digest(), "big", signed=True)
