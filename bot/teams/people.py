"""Teammates named as people name them in a command (`Grace`, `grace hopper`), found among the
members of the channel's team."""

import uuid

from bot.db.uow import UnitOfWork
from bot.directory.schemas import UserOut
from bot.directory.users import list_team_members
from bot.ids import is_id


def is_reference(said: str) -> bool:
    """A UPN or email (has an @), a user `_id` or an Entra object id: what the API's assignees
    take as they are, rather than a name to look for."""
    if "@" in said or is_id(said):
        return True
    try:
        uuid.UUID(said)
    except ValueError:
        return False
    return True


async def named(uow: UnitOfWork, *, name: str) -> list[UserOut]:
    """The team's members called `name`, without case: those whose whole display name it is,
    else those whose name holds it as whole words (`Grace`, `Hopper` for Grace Hopper)."""
    assert uow.channel is not None, "a team's members are looked for in one of its channels"
    if not name.split():
        return []
    return called(await list_team_members(uow, scope=uow.channel), name)


def called(people: list[UserOut], name: str) -> list[UserOut]:
    """Those of `people` called `name`, as `named` finds them."""
    wanted = name.casefold().split()
    if not wanted:
        return []
    exact = [user for user in people if user.display_name.casefold().split() == wanted]
    if exact:
        return exact
    return [user for user in people if _holds(user.display_name.casefold().split(), wanted)]


def _holds(words: list[str], wanted: list[str]) -> bool:
    size = len(wanted)
    return any(words[at : at + size] == wanted for at in range(len(words) - size + 1))
