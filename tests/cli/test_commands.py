"""The admin CLI's commands: each prints one JSON object and exits 0, a repeat updates instead
of adding, and a domain error (an unknown team or user, a taken UPN) exits 1 with its message."""

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot import demo
from bot.ids import is_id
from tests.cli.helpers import ADA, Cli, add_team_and_channel, add_user, channel_add
from tests.factories import CHANNEL, TEAM, TENANT

GRACE = ("00000000-0000-0000-0000-0000000000b2", "grace@contoso.test", "Grace Hopper")
MS = timedelta(milliseconds=1)


def timestamp(value: str) -> datetime:
    assert value.endswith("Z"), value
    return datetime.fromisoformat(value)


# Commands and their repeats


def test_migrate_reports_head(cli: Cli, database: str) -> None:
    assert cli("migrate") == {"migrated": "head"}


def test_migrate_creates_a_fresh_sqlite_database(cli: Cli, tmp_path: Path) -> None:
    assert cli("migrate") == {"migrated": "head"}
    assert (tmp_path / "cli.db").exists()


def test_team_add_prints_the_team_and_a_repeat_updates_its_name(cli: Cli, database: str) -> None:
    group = "a0a0a0a0-0000-0000-0000-000000000001"
    ids = ("--tenant-id", TENANT, "--group-id", group)
    team = cli("admin", "team", "add", "--team-id", TEAM, "--name", "Team A", *ids)
    assert is_id(team.pop("_id"))
    assert team == {"teamId": TEAM, "name": "Team A", "tenantId": TENANT, "groupId": group}

    again = cli("admin", "team", "add", "--team-id", TEAM, "--name", "Team A (renamed)")
    assert again["name"] == "Team A (renamed)"
    assert (again["tenantId"], again["groupId"]) == (TENANT, group)  # kept when not given


def test_channel_add_prints_the_channel_and_a_repeat_renames_it(cli: Cli, database: str) -> None:
    team = cli("admin", "team", "add", "--team-id", TEAM, "--name", "Team A")
    channel = cli(*channel_add())
    assert is_id(channel["_id"]) and channel["_id"] != team["_id"]
    assert channel == {
        "_id": channel["_id"],
        "channelId": CHANNEL,
        "teamId": TEAM,
        "name": "Bugs",
        "membershipType": "standard",
    }
    again = cli(*channel_add(TEAM, "Defects"))
    assert (again["_id"], again["name"]) == (channel["_id"], "Defects")


def test_channel_add_private_records_a_private_channel(cli: Cli, database: str) -> None:
    cli("admin", "team", "add", "--team-id", TEAM, "--name", "Team A")
    assert cli(*channel_add(TEAM, "Bugs", "--private"))["membershipType"] == "private"
    assert (
        cli(*channel_add())["membershipType"] == "standard"
    )  # adding it again as standard updates it


def test_user_add_prints_the_user_as_the_api_shows_it(cli: Cli, database: str) -> None:
    user = add_user(cli, ADA, "--email", "ada@contoso.test")
    assert is_id(user["_id"])
    assert user == {
        "_id": user["_id"],
        "sourceId": ADA[0],
        "displayName": "Ada Lovelace",
        "email": "ada@contoso.test",
        "username": "ada@contoso.test",  # UPNs are stored lowercased
        "source": "Microsoft.Graph.User",
    }


def test_user_add_twice_updates_the_display_name(cli: Cli, database: str) -> None:
    first = add_user(cli, ADA, "--email", "ada@contoso.test")
    again = add_user(cli, (ADA[0], ADA[1], "Augusta Ada King"))
    assert again == {**first, "displayName": "Augusta Ada King"}  # same _id; email kept


def test_member_add_twice_is_fine_and_remove_ends_membership(cli: Cli, database: str) -> None:
    cli("admin", "team", "add", "--team-id", TEAM, "--name", "Team A")
    user = add_user(cli, ADA)
    added = cli("admin", "member", "add", "--team-id", TEAM, "--user", "ada@contoso.test")
    assert added == {"teamId": TEAM, "user": user, "member": True}
    # By _id and by Entra object id too; already a member changes nothing.
    assert cli("admin", "member", "add", "--team-id", TEAM, "--user", user["_id"]) == added
    assert cli("admin", "member", "add", "--team-id", TEAM, "--user", ADA[0]) == added
    removed = cli("admin", "member", "remove", "--team-id", TEAM, "--user", ADA[1])
    assert removed == {"teamId": TEAM, "user": user, "member": False}
    assert cli("admin", "member", "remove", "--team-id", TEAM, "--user", ADA[1]) == removed


def test_session_create_prints_a_cookie_for_the_user(cli: Cli, database: str) -> None:
    user = add_user(cli, ADA)
    before = datetime.now(UTC)
    session = cli("admin", "session", "create", "--user", ADA[1])
    after = datetime.now(UTC)
    assert set(session) == {"cookie", "expiresAt", "user"}
    assert session["user"] == user
    assert len(session["cookie"]) >= 32
    eight_hours = timedelta(hours=8)  # SESSION_TTL's default
    assert before + eight_hours - MS <= timestamp(session["expiresAt"]) <= after + eight_hours


@pytest.mark.parametrize(("flags", "days"), [((), 90), (("--ttl-days", "7"), 7)])
def test_token_create_expires_after_the_ttl(
    cli: Cli, database: str, flags: tuple[str, ...], days: int
) -> None:
    user = add_user(cli, ADA)
    before = datetime.now(UTC)
    token = cli("admin", "token", "create", "--user", ADA[1], *flags)
    after = datetime.now(UTC)
    assert set(token) == {"token", "expiresAt", "user"}
    assert token["user"] == user
    ttl = timedelta(days=days)
    assert before + ttl - MS <= timestamp(token["expiresAt"]) <= after + ttl


def test_demo_prints_the_demo_context(cli: Cli, database: str) -> None:
    seeded = cli("admin", "demo")
    assert set(seeded) == {"cookie", "teamId", "channelId", "entityId", "userId"}
    assert (seeded["teamId"], seeded["channelId"]) == (demo.TEAM_ID, demo.CHANNEL_ID)
    assert seeded["entityId"] == demo.ENTITY_ID
    ada = cli("admin", "session", "create", "--user", "ada@demo.example")["user"]
    assert seeded["userId"] == ada["_id"]


# Domain errors: exit 1


def test_channel_add_for_an_unknown_team_fails(cli: Cli, database: str) -> None:
    error = cli(*channel_add("19:nope@thread.tacv2"), code=1)
    assert error == {"error": "Team '19:nope@thread.tacv2' is not known; add the team first."}


def test_channel_add_under_another_team_fails(cli: Cli, database: str) -> None:
    add_team_and_channel(cli)
    other = "19:team-b@thread.tacv2"
    cli("admin", "team", "add", "--team-id", other, "--name", "Team B")
    error = cli(*channel_add(other, "Stolen"), code=1)
    assert error == {"error": f"Channel '{CHANNEL}' belongs to another team."}


def test_member_add_for_an_unknown_user_or_team_fails(cli: Cli, database: str) -> None:
    cli("admin", "team", "add", "--team-id", TEAM, "--name", "Team A")
    unknown_user = cli("admin", "member", "add", "--team-id", TEAM, "--user", "x@y.test", code=1)
    assert unknown_user == {"error": "User 'x@y.test' is not known."}
    add_user(cli, ADA)
    unknown_team = cli("admin", "member", "remove", "--team-id", "T", "--user", ADA[1], code=1)
    assert unknown_team == {"error": "Team 'T' is not known."}


def test_user_add_with_another_users_upn_fails(cli: Cli, database: str) -> None:
    add_user(cli, ADA)
    error = add_user(cli, (GRACE[0], "ADA@contoso.test", GRACE[2]), code=1)
    assert error == {"error": "Username 'ada@contoso.test' belongs to another user."}


@pytest.mark.parametrize("command", ["session", "token"])
def test_credentials_for_an_unknown_user_fail(cli: Cli, database: str, command: str) -> None:
    error = cli("admin", command, "create", "--user", "nobody@contoso.test", code=1)
    assert error == {"error": "User 'nobody@contoso.test' is not known."}
