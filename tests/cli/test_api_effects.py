"""What a user sees through the API after the admin CLI's commands: a member's session cookie
opens the channel until the member is removed, an API token works as a bearer token, and the
demo's cookie opens the demo channel."""

import asyncio
from typing import Any

import pytest
from aiohttp import web

from bot.app import create_app
from bot.errors import PRIVATE_CHANNELS_UNSUPPORTED
from bot.settings import Settings
from tests.cli.helpers import ADA, Cli, add_team_and_channel, add_user
from tests.factories import CHANNEL, TEAM


@pytest.fixture
def app(settings: Settings) -> web.Application:
    """The real app on the real clock, since the CLI issues credentials by the real clock."""
    return create_app(settings)


def in_channel(cookie: str, team: str = TEAM, channel: str = CHANNEL) -> dict[str, str]:
    return {"Cookie": f"graphNodeCookie={cookie}", "x-svc-teamid": team, "x-svc-channelId": channel}


async def run_in_thread(cli: Cli, *argv: str, code: int = 0) -> dict[str, Any]:
    """The CLI from an async test: `main` runs its own event loop, so not on this one."""
    return await asyncio.to_thread(cli, *argv, code=code)


async def test_a_members_cookie_opens_the_channel_until_the_member_is_removed(
    cli: Cli, database: str, client
) -> None:
    await asyncio.to_thread(add_team_and_channel, cli)
    user = await run_in_thread(
        cli, "admin", "user", "add", "--id", ADA[0], "--upn", ADA[1], "--name", ADA[2]
    )
    await run_in_thread(cli, "admin", "member", "add", "--team-id", TEAM, "--user", ADA[1])
    cookie = (await run_in_thread(cli, "admin", "session", "create", "--user", ADA[1]))["cookie"]

    me = await client.get("/api/me", headers={"Cookie": f"graphNodeCookie={cookie}"})
    assert me.status == 200
    assert await me.json() == user
    context = await client.get("/api/context", headers=in_channel(cookie))
    assert context.status == 200
    body = await context.json()
    assert (body["team"]["teamId"], body["channel"]["channelId"]) == (TEAM, CHANNEL)
    assert body["user"] == user

    await run_in_thread(cli, "admin", "member", "remove", "--team-id", TEAM, "--user", ADA[1])
    refused = await client.get("/api/context", headers=in_channel(cookie))
    assert refused.status == 403
    assert await refused.json() == {"error": f"You are not a member of team '{TEAM}'."}
    still_signed_in = await client.get("/api/me", headers={"Cookie": f"graphNodeCookie={cookie}"})
    assert still_signed_in.status == 200


async def test_a_private_channel_is_refused_to_members(cli: Cli, database: str, client) -> None:
    await asyncio.to_thread(add_team_and_channel, cli, "--private")
    await asyncio.to_thread(add_user, cli, ADA)
    await run_in_thread(cli, "admin", "member", "add", "--team-id", TEAM, "--user", ADA[1])
    cookie = (await run_in_thread(cli, "admin", "session", "create", "--user", ADA[1]))["cookie"]
    response = await client.get("/api/context", headers=in_channel(cookie))
    assert response.status == 403
    assert await response.json() == {"error": PRIVATE_CHANNELS_UNSUPPORTED}


async def test_an_api_token_works_as_a_bearer_token(cli: Cli, database: str, client) -> None:
    user = await asyncio.to_thread(add_user, cli, ADA)
    created = await run_in_thread(
        cli, "admin", "token", "create", "--user", ADA[0], "--ttl-days", "7"
    )
    response = await client.get("/api/me", headers={"Authorization": f"Bearer {created['token']}"})
    assert response.status == 200
    assert await response.json() == user


async def test_the_demo_cookie_opens_the_demo_channel_as_the_demo_user(
    cli: Cli, database: str, client
) -> None:
    seeded = await run_in_thread(cli, "admin", "demo")
    headers = in_channel(seeded["cookie"], seeded["teamId"], seeded["channelId"])
    response = await client.get("/api/context", headers=headers)
    assert response.status == 200
    body = await response.json()
    assert body["user"]["_id"] == seeded["userId"]
    assert body["user"]["username"] == "ada@demo.example"
