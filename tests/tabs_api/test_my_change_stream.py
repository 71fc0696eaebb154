"""The personal tab's live changes: a real client holds the caller's stream open on loopback while
other requests change items, and reads which of the caller's lists moved."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from aiohttp import ClientResponse
from aiohttp.test_utils import TestClient

from tests.factories import Factory, Member
from tests.items.refusals import TEAM_B, create, team_b_member
from tests.me.helpers import personal
from tests.tabs_api.sse import next_event, next_frame
from tests.tabs_api.test_change_stream import stream as channel_stream

STREAM = "/api/me/changes/stream"


@asynccontextmanager
async def my_stream(
    client: TestClient, member: Member, headers: dict[str, str] | None = None
) -> AsyncIterator[ClientResponse]:
    response = await client.get(STREAM, headers={**personal(member), **(headers or {})})
    try:
        assert response.status == 200, await response.text()
        assert response.headers["Content-Type"].startswith("text/event-stream")
        yield response
    finally:
        response.close()


async def test_a_change_in_a_channel_i_read_is_told_and_another_teams_never(
    client, factory: Factory
) -> None:
    ada = await factory.member("Ada")
    bob = await team_b_member(factory)
    async with my_stream(client, ada) as mine, channel_stream(client, ada) as channel:
        ready = await next_event(mine, "ready")
        await next_event(channel, "ready")
        await create(client, bob, team_b=True, name="Team B's secret")
        await create(client, ada, "task", name="Ours")
        told = await next_event(mine, "list", "reload")
        change = await next_event(channel, "change")
    # Ada reads one channel: her lists' version is that channel's, Team B's change counts nowhere.
    assert (told.event, told.data) == (
        "list",
        {"itemKind": "task", "version": change.data["version"]},
    )
    assert told.id == f"{ready.data['bug']}.{change.data['version']}"


async def test_joining_a_team_moves_my_lists(client, factory: Factory) -> None:
    ada = await factory.member("Ada")
    bob = await team_b_member(factory)
    await create(client, bob, team_b=True, name="Team B's bug")
    async with my_stream(client, ada) as mine:
        ready = await next_event(mine, "ready")
        await factory.join(ada.user, TEAM_B)
        await create(client, ada, name="Wakes the stream")
        told = await next_event(mine, "list", "reload")
    assert told.event == "list"
    assert told.data["itemKind"] == "bug"
    assert told.data["version"] > ready.data["bug"]


async def test_resuming_at_my_current_versions_is_ready_and_behind_them_says_reload(
    client, factory: Factory
) -> None:
    ada = await factory.member("Ada")
    async with my_stream(client, ada) as mine:
        ready = await next_event(mine, "ready")
    async with my_stream(client, ada, {"Last-Event-ID": ready.id}) as mine:
        assert (await next_frame(mine)).event == "ready"
    await create(client, ada)
    async with my_stream(client, ada, {"Last-Event-ID": ready.id}) as mine:
        reload = await next_frame(mine)
    assert reload.event == "reload"
    assert reload.data["bug"] > ready.data["bug"]


async def test_my_stream_needs_a_session_and_refuses_a_malformed_last_event_id(
    client, factory: Factory
) -> None:
    ada = await factory.member("Ada")
    response = await client.get(STREAM, headers={"x-svc-entityId": "tab"})
    assert response.status == 401
    assert list(await response.json()) == ["error"]
    response = await client.get(STREAM, headers={**personal(ada), "Last-Event-ID": "1.two"})
    assert response.status == 400
    assert (await response.json()) == {
        "error": "Last-Event-ID: expected '<bug version>.<task version>', as the stream's ids are"
    }
