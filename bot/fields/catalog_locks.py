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
an item write, holding the lock shared, was adding to it; and mapping writes and a project's
new states, which point at values, never point at one a delete removed after they read it.

SQLite needs none of this: its writers take turns (`bot.db.uow`).
"""

from bot.db.uow import UnitOfWork


async def share(uow: UnitOfWork, *, channel_id: str) -> None:
    """Hold the channel's catalogue against renames until the unit commits."""
    await uow.hold(_name(channel_id), shared=True)


async def take(uow: UnitOfWork, *, channel_id: str) -> None:
    """Hold the channel's catalogue alone until the unit commits: once the item writes that
    read it have committed, and before any other reads it."""
    await uow.hold(_name(channel_id))


def _name(channel_id: str) -> str:
    return f"catalog {channel_id}"
