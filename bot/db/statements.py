"""What services hand the unit of work (`bot.db.uow`): SQLAlchemy statements, and the rows that
come back.

Any Core statement will do: a select, an INSERT, UPDATE or DELETE (with RETURNING for rows
back). One built afresh for each call is recognised by its shape and compiled once. One built
once, at import, and run often with its values given by name (`bindparam("channel_id")`) is
wrapped in `Prepared`, which skips even recognising it. A list of values is bound as one
parameter with `bot.db.expressions.one_of`: an IN list's SQL would change with its length.
"""

from typing import Any

from sqlalchemy import Select
from sqlalchemy.sql.dml import UpdateBase

AnySelect = Select[*tuple[Any, ...]]  # a select of any columns
AnyStatement = AnySelect | UpdateBase  # a select, or an INSERT / UPDATE / DELETE


class Row(dict[str, Any]):
    """A row by column name: `row["name"]`, or `row.name` as SQLAlchemy's rows allow."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


class Prepared:
    """A statement built once and run often, its per-call values given by name. Its compiled
    plans (one per kind of database) are kept on it (`bot.db.driver`)."""

    __slots__ = ("plans", "statement")

    def __init__(self, statement: AnyStatement) -> None:
        self.statement = statement
        self.plans: dict[Any, Any] = {}


Statement = AnyStatement | Prepared
