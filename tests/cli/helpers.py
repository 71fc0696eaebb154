"""What the admin CLI tests share: the in-process CLI's type, its one-JSON-line output, and the
commands that set up a user, a team and a channel."""

import json
from collections.abc import Callable
from typing import Any

from tests.factories import CHANNEL, TEAM

ADA = ("00000000-0000-0000-0000-0000000000a1", "Ada@Contoso.test", "Ada Lovelace")

Cli = Callable[..., dict[str, Any]]


def one_json_line(out: str) -> dict[str, Any]:
    lines = out.splitlines()
    assert len(lines) == 1 and out.endswith("\n"), out
    body = json.loads(lines[0])
    assert isinstance(body, dict)
    return body


def add_user(cli: Cli, user: tuple[str, str, str], *extra: str, code: int = 0) -> dict[str, Any]:
    object_id, upn, name = user
    argv = ("admin", "user", "add", "--id", object_id, "--upn", upn, "--name", name, *extra)
    return cli(*argv, code=code)


def channel_add(team: str = TEAM, name: str = "Bugs", *flags: str) -> tuple[str, ...]:
    where = ("--team-id", team, "--channel-id", CHANNEL)
    return ("admin", "channel", "add", *where, "--name", name, *flags)


def add_team_and_channel(cli: Cli, *channel_flags: str) -> None:
    cli("admin", "team", "add", "--team-id", TEAM, "--name", "Team A")
    cli(*channel_add(TEAM, "Bugs", *channel_flags))
