"""Live changes as an open tab reads them: a real client holds the channel's stream open on
loopback while other requests change items, and reads each change as an event."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from aiohttp import ClientResponse
from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy import insert, select, update

from bot.app import create_app
from bot.changes.stream import BATCH
from bot.clock import FrozenClock
from bot.db.tables import Item, PendingEvent
from bot.ids import new_id
from tests.factories import Factory, Member, insert_copies
from tests.items.refusals import create, team_b_member
from tests.tabs_api.sse import next_event, next_frame
from tests.waiting import finished

STREAM = "/api/changes/stream"


@asynccontextmanager
async def stream(
    client: TestClient, member: Member, headers: dict[str, str] | None = None
) -> AsyncIterator[ClientResponse]:
    response = await client.get(STREAM, headers={**member.in_channel(), **(headers or {})})
    try:
        assert response.status == 200, await response.text()
        assert response.headers["Content-Type"].startswith("text/event-stream")
        yield response
    finally:
        response.close()


async def test_a_change_made_by_another_request_reaches_the_open_stream(
    client, factory: Factory
) -> None:
    ada = await factory.member("Ada")
    bug = await create(client, ada)
    async with stream(client, ada) as events:
        ready = await next_event(events, "ready")
        response = await client.patch(
            f"/odata/bugs({bug['_id']})", json={"name": "Renamed"}, headers=ada.in_channel()
        )
        assert response.status == 204
        change = await next_event(events, "change")
    assert change.data["itemId"] == bug["_id"]
    assert (change.data["itemKind"], change.data["change"]) == ("bug", "updated")
    assert change.data["version"] > ready.data["bug"]
    assert change.id == f"{change.data['version']}.{ready.data['task']}"


async def test_created_and_deleted_items_are_told_with_their_kind(client, factory: Factory) -> None:
    ada = await factory.member("Ada")
    async with stream(client, ada) as events:
        await next_event(events, "ready")
        task = await create(client, ada, "task", name="New")
        created = await next_event(events, "change")
        response = await client.delete(f"/odata/tasks({task['_id']})", headers=ada.in_channel())
        assert response.status == 204
        deleted = await next_event(events, "change")
    assert created.data | {"at": None, "version": None} == {
        "itemId": task["_id"],
        "itemKind": "task",
        "change": "created",
        "at": None,
        "version": None,
    }
    assert (deleted.data["itemId"], deleted.data["change"]) == (task["_id"], "deleted")


async def test_another_channels_changes_are_never_sent(client, factory: Factory) -> None:
    ada = await factory.member("Ada")
    bob = await team_b_member(factory)
    async with stream(client, ada) as events:
        await next_event(events, "ready")
        await create(client, bob, team_b=True, name="Team B's secret")
        ours = await create(client, ada, name="Ours")
        first = await next_event(events, "change", "list", "reload")
    assert (first.event, first.data["itemId"]) == ("change", ours["_id"])


async def test_resuming_at_the_current_version_is_ready_and_behind_it_says_reload(
    client, factory: Factory
) -> None:
    ada = await factory.member("Ada")
    async with stream(client, ada) as events:
        ready = await next_event(events, "ready")
    async with stream(client, ada, {"Last-Event-ID": ready.id}) as events:
        assert (await next_frame(events)).event == "ready"
    await create(client, ada)
    async with stream(client, ada, {"Last-Event-ID": ready.id}) as events:
        reload = await next_frame(events)
    assert reload.event == "reload"
    assert reload.data["bug"] > ready.data["bug"]
    assert reload.id == f"{reload.data['bug']}.{reload.data['task']}"


@pytest.mark.parametrize("last_event_id", ["x", "1", "1.2.3", "-1.2", "1.two"])
async def test_a_malformed_last_event_id_answers_400(
    client, factory: Factory, last_event_id: str
) -> None:
    ada = await factory.member("Ada")
    response = await client.get(
        STREAM, headers={**ada.in_channel(), "Last-Event-ID": last_event_id}
    )
    assert response.status == 400
    assert (await response.json()) == {
        "error": "Last-Event-ID: expected '<bug version>.<task version>', as the stream's ids are"
    }


async def test_a_stream_needs_a_member_and_a_session(client, factory: Factory) -> None:
    await factory.member("Ada")
    bob = await team_b_member(factory)
    response = await client.get(STREAM, headers=bob.in_channel(team="19:team-a@thread.tacv2"))
    assert response.status == 403
    assert list(await response.json()) == ["error"]
    response = await client.get(STREAM, headers={"Cookie": "graphNodeCookie=nope"})
    assert response.status == 401
    assert list(await response.json()) == ["error"]


async def test_an_idle_stream_sends_keep_alive_comments(
    factory: Factory, make_settings, db: str, clock: FrozenClock, aiohttp_client
) -> None:
    app = create_app(make_settings(db, CHANGES_KEEP_ALIVE_SECONDS=0.05), clock=clock)
    client = await aiohttp_client(app)
    ada = await factory.member("Ada")
    async with stream(client, ada) as events:
        await next_event(events, "ready")
        frame = await next_frame(events)
    assert frame.comments == ["keep-alive"]


async def test_a_change_written_elsewhere_reaches_the_stream(
    factory: Factory, make_settings, db: str, clock: FrozenClock, aiohttp_client
) -> None:
    """Written by another process (no bell of this one): PostgreSQL's notification wakes the
    stream, so its keep-alive is long; SQLite serves one process, its keep-alive's look finds it."""
    keep_alive = 300 if db.startswith("postgresql") else 0.05
    app = create_app(make_settings(db, CHANGES_KEEP_ALIVE_SECONDS=keep_alive), clock=clock)
    client = await aiohttp_client(app)
    ada = await factory.member("Ada")
    bug = await create(client, ada)
    async with stream(client, ada) as events:
        await next_event(events, "ready")
        await write_change_elsewhere(factory, bug["_id"])
        change = await next_event(events, "change")
    assert (change.data["itemId"], change.data["change"]) == (bug["_id"], "updated")


async def test_shutting_down_ends_open_streams(
    factory: Factory, make_settings, db: str, clock: FrozenClock, aiohttp_client
) -> None:
    app = create_app(make_settings(db, CHANGES_KEEP_ALIVE_SECONDS=300), clock=clock)
    server = TestServer(app)
    client = await aiohttp_client(server)
    ada = await factory.member("Ada")
    async with stream(client, ada) as events:
        await next_event(events, "ready")
        await finished(server.close(), "the app to stop with a stream open")
        with pytest.raises(EOFError):
            await next_frame(events)


async def write_change_elsewhere(factory: Factory, item_id: str) -> None:
    """An item renamed and its change recorded in plain SQL, as another process's write lands."""
    async with factory.work() as uow:
        item = (await uow.session.execute(select(Item).where(Item.id == item_id))).scalar_one()
        await uow.session.execute(update(Item).where(Item.id == item_id).values(name="Elsewhere"))
        await uow.session.execute(
            insert(PendingEvent).values(
                id=new_id(),
                channel_id=item.channel_id,
                kind="bug",
                item_id=item_id,
                trigger="ITEM_UPDATED",
                actor_id=None,
                occurred_at=factory.clock.now(),
                payload={"changes": [{"field": "name", "old": item.name, "new": "Elsewhere"}]},
                processed_at=None,
            )
        )


async def test_more_changes_at_once_than_a_look_carries_say_reload_and_later_ones_are_told(
    client, factory: Factory
) -> None:
    ada = await factory.member("Ada")
    bug = await create(client, ada)
    await insert_copies(factory, bug["_id"], BATCH)
    async with factory.work() as uow:
        ids = list((await uow.session.execute(select(Item.id))).scalars())
    async with stream(client, ada) as events:
        ready = await next_event(events, "ready")
        response = await client.post(
            "/api/bulk/bug", json={"ids": ids, "priority": "Low"}, headers=ada.in_channel()
        )
        assert response.status == 200, await response.text()
        reload = await next_event(events, "change", "list", "reload")
        assert reload.event == "reload" and reload.data["bug"] > ready.data["bug"]
        response = await client.patch(
            f"/odata/bugs({bug['_id']})", json={"name": "After"}, headers=ada.in_channel()
        )
        assert response.status == 204
        # Told: as a change of the bug, or (while the bulk edit's second lasts) a reload at the
        # version after the edit.
        while True:
            frame = await next_event(events, "change", "list", "reload")
            assert frame.event in ("change", "reload"), frame
            if frame.event == "reload" and frame.data["bug"] > reload.data["bug"]:
                break
            if frame.event == "change" and frame.data["itemId"] == bug["_id"]:
                assert frame.data["version"] > reload.data["bug"]
                break
