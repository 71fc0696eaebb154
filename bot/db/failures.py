"""What a statement raises when the database fails (unreachable, or gone mid-statement), on
either path a statement takes: SQLAlchemy's, whose errors are its own, or the driver's
connection (`bot.db.driver`), whose errors are the driver's."""

import sqlite3

from asyncpg.exceptions import InterfaceError, PostgresError
from sqlalchemy.exc import EmulatedDBAPIException, SQLAlchemyError

DATABASE_ERRORS = (
    SQLAlchemyError,
    EmulatedDBAPIException,
    sqlite3.Error,
    PostgresError,
    InterfaceError,
    OSError,
)
