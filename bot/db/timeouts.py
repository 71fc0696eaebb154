"""Whether a database error is a statement stopped by the statement time bound: SQLite's
interrupt (`sqlite_inline.StatementTimeout`) or PostgreSQL's `statement_timeout`."""

from asyncpg.exceptions import QueryCanceledError

from bot.db.sqlite_inline import StatementTimeout


def timed_out(error: BaseException) -> bool:
    """Whether `error`, or what it wraps (SQLAlchemy keeps the driver's error as its cause),
    is a statement stopped for running too long."""
    seen: BaseException | None = error
    for _ in range(5):  # SQLAlchemy wraps a driver's error two or three deep
        if seen is None:
            return False
        if isinstance(seen, StatementTimeout | QueryCanceledError):
            return True
        seen = seen.__cause__ or getattr(seen, "orig", None)
    return False
