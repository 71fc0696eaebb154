"""The database moves the item versions: triggers on every table lists cache from

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-25 09:00:00.000000

Every insert, update and delete of a row that a list's count or rendering reads adds one to the
`item_counters` version of each channel and kind the row belongs to, before and after an update
(`bot.items.versions`): a write made anywhere, a service or plain SQL, cannot leave a cached list
stale. Only counter rows that exist move; they are made with their channel (`bot.workspace`),
and until then a list reads no version and caches nothing. item_counters has no trigger, so
the creates' own update of it (the next number) sets nothing off.

PostgreSQL: items and their assignments move their versions once per statement, reading its
rows from transition tables, so a bulk edit of 1,000 items moves its version once. The channel's
configuration (field values, mappings, projects) moves them at commit, row by row (a constraint
trigger, deferred): a configuration write then takes the counter's row lock after the items it
rewrites, as the services' own bumps did. Taken before them, a status rename holding the counter
and waiting for an item's row deadlocked with a delete of that item waiting for the counter.
SQLite has neither statement triggers nor deferred ones, nor row locks: one trigger per row. A
later SQLite migration that copies one of these tables (`batch_alter_table`) drops its triggers
and must create them again.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Each table, its column naming the kind a row belongs to (`bug`, `task`, or the type label
# `Bug`, `Task`: lowercased, the kind; None: a row belongs to every kind of its channel), and
# whether it is configuration (moved at commit on PostgreSQL).
_TABLES: tuple[tuple[str, str | None, bool], ...] = (
    ("items", "kind", False),
    ("item_assignees", "kind", False),  # the item's, copied
    ("field_values", "type", True),  # statuses render; the other fields move too, to err safe
    ("field_mappings", "entity_type", True),  # they decide the status items show
    ("projects", None, True),  # items of both kinds embed their project
)
_OPERATIONS = ("insert", "update", "delete")
# What each operation's trigger reads its rows from: PostgreSQL's transition tables (statement
# triggers), or the row itself (row triggers).
_TRANSITION = {"insert": ("new_rows",), "update": ("old_rows", "new_rows"), "delete": ("old_rows",)}
_ROW = {"insert": ("NEW",), "update": ("OLD", "NEW"), "delete": ("OLD",)}
_REFERENCING = {
    "insert": "NEW TABLE AS new_rows",
    "update": "OLD TABLE AS old_rows NEW TABLE AS new_rows",
    "delete": "OLD TABLE AS old_rows",
}


def _name(table: str, operation: str) -> str:
    return f"item_versions_{table}_{operation}"


def upgrade() -> None:
    postgresql = op.get_bind().dialect.name == "postgresql"
    for table, kind, configuration in _TABLES:
        for operation in _OPERATIONS:
            if postgresql:
                _postgresql_trigger(table, kind, operation, deferred=configuration)
            else:
                _sqlite_triggers(table, kind, operation)


def downgrade() -> None:
    postgresql = op.get_bind().dialect.name == "postgresql"
    for table, _kind, _configuration in _TABLES:
        for operation in _OPERATIONS:
            name = _name(table, operation)
            if postgresql:
                op.execute(f"DROP TRIGGER IF EXISTS {name} ON {table}")
                op.execute(f"DROP FUNCTION IF EXISTS {name}()")
            else:
                op.execute(f"DROP TRIGGER IF EXISTS {name}")
        if not postgresql:
            op.execute(f"DROP TRIGGER IF EXISTS {_name(table, 'moved')}")


def _postgresql_trigger(table: str, kind: str | None, operation: str, *, deferred: bool) -> None:
    def keys(rows: str) -> str:
        """The versions the rows move: a transition table's rows, or, deferred, the row."""
        if kind is None:  # every kind of the row's channel
            counters = "SELECT c.channel_id, c.kind FROM item_counters AS c"
            if deferred:
                return f"{counters} WHERE c.channel_id = {rows}.channel_id"
            return f"{counters} JOIN {rows} AS r ON r.channel_id = c.channel_id"
        if deferred:
            return f"SELECT {rows}.channel_id, lower({rows}.{kind})"
        return f"SELECT r.channel_id, lower(r.{kind}) FROM {rows} AS r"

    changed = " UNION ALL ".join(map(keys, (_ROW if deferred else _TRANSITION)[operation]))
    name = _name(table, operation)
    # In key order: two transactions moving the same versions lock them in one order.
    op.execute(
        f"""
        CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            moved record;
        BEGIN
            FOR moved IN
                SELECT DISTINCT channel_id, kind FROM ({changed}) AS changed (channel_id, kind)
                ORDER BY channel_id, kind
            LOOP
                UPDATE item_counters SET version = version + 1
                WHERE channel_id = moved.channel_id AND kind = moved.kind;
            END LOOP;
            RETURN NULL;
        END
        $$
        """
    )
    if deferred:
        op.execute(
            f"CREATE CONSTRAINT TRIGGER {name} AFTER {operation.upper()} ON {table} "
            f"DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION {name}()"
        )
    else:
        op.execute(
            f"CREATE TRIGGER {name} AFTER {operation.upper()} ON {table} "
            f"REFERENCING {_REFERENCING[operation]} FOR EACH STATEMENT EXECUTE FUNCTION {name}()"
        )


def _sqlite_triggers(table: str, kind: str | None, operation: str) -> None:
    def move(row: str) -> str:
        where = f"channel_id = {row}.channel_id"
        if kind is not None:
            where += f" AND kind = lower({row}.{kind})"
        return f"UPDATE item_counters SET version = version + 1 WHERE {where};"

    row = "NEW" if operation == "insert" else "OLD"
    op.execute(
        f"CREATE TRIGGER {_name(table, operation)} AFTER {operation.upper()} ON {table} "
        f"FOR EACH ROW BEGIN {move(row)} END"
    )
    if operation != "update":
        return
    # A row moved to another channel or kind moves that one's version too. Only updates that set
    # those columns call it, so other updates pay nothing for it.
    columns = ["channel_id", *([kind] if kind else [])]
    set_off = ", ".join(columns)
    moved = " OR ".join(f"NEW.{column} IS NOT OLD.{column}" for column in columns)
    op.execute(
        f"CREATE TRIGGER {_name(table, 'moved')} AFTER UPDATE OF {set_off} ON {table} "
        f"FOR EACH ROW WHEN {moved} BEGIN {move('NEW')} END"
    )
