"""A user as the actor of work done on their behalf, and back: from a user the API shows (CLI,
demo, bot), from a row that carries the user's columns (authentication reads them with the
session), and the signed-in actor as the API shows users."""

from typing import Any

from bot.db.tables import User
from bot.db.uow import Actor
from bot.directory.schemas import UserOut


def actor_of(user: UserOut) -> Actor:
    """The user as the actor of work done on their behalf (CLI, demo, bot)."""
    return _actor(user.id, user)


# The user's columns as a caller's row carries them: `actor_of_row` reads them back.
ACTOR_COLUMNS = (
    User.id.label("user_id"),
    User.source_id,
    User.username,
    User.display_name,
    User.email,
    User.source,
)


def actor_of_row(row: Any) -> Actor:
    """The actor of a row read with ACTOR_COLUMNS."""
    return _actor(row.user_id, row)


def _actor(user_id: str, user: Any) -> Actor:
    """An actor from a user's id and anything with the other user fields by name."""
    return Actor(
        user_id=user_id,
        source_id=user.source_id,
        username=user.username,
        display_name=user.display_name,
        email=user.email,
        source=user.source,
    )


def actor_out(actor: Actor) -> UserOut:
    """The signed-in user as the API shows users (already loaded by authentication)."""
    return UserOut(
        id=actor.user_id,
        source_id=actor.source_id,
        display_name=actor.display_name,
        email=actor.email,
        username=actor.username,
        source=actor.source,
    )
