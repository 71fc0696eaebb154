"""An item's history as the item panel reads it: every change newest first, who made it, each
field's old and new value; paged by next links; another channel's item is a 404."""

from datetime import timedelta

import pytest
from aiohttp.test_utils import TestClient
from sqlalchemy import insert
from yarl import URL

from bot.clock import FrozenClock
from bot.db.tables import Item, PendingEvent
from bot.ids import new_id
from tests.factories import Factory, Member
from tests.items.refusals import create, stored, team_b_member

UNKNOWN_ID = "0123456789abcdef01234567"


async def history(client: TestClient, member: Member, item_id: str, of: str = "bug", **q) -> dict:
    response = await client.get(
        f"/api/{of}s/{item_id}/history", params=q, headers=member.in_channel()
    )
    assert response.status == 200, await response.text()
    return await response.json()


async def patch(
    client: TestClient, member: Member, item_id: str, of: str = "bug", **fields: object
) -> None:
    response = await client.patch(
        f"/odata/{of}s({item_id})", json=fields, headers=member.in_channel()
    )
    assert response.status == 204, await response.text()


@pytest.mark.parametrize("of", ["bug", "task"])
async def test_history_lists_changes_newest_first_with_who_and_old_and_new(
    client, factory: Factory, clock: FrozenClock, of: str
) -> None:
    ada = await factory.member("Ada")
    bob = await factory.member("Bob")
    item = await create(client, ada, of, name="Login fails", priority="High")
    clock.advance(timedelta(minutes=5))
    await patch(client, bob, item["_id"], of, name="Login fails on Safari", priority="Low")
    clock.advance(timedelta(minutes=5))
    await patch(client, ada, item["_id"], of, assignedTo=[bob.user.id])

    page = await history(client, ada, item["_id"], of)

    assert page["@odata.count"] == 3
    assert [entry["kind"] for entry in page["value"]] == ["updated", "updated", "created"]
    latest, renamed, created = page["value"]
    assert latest["actor"] == {"_id": ada.user.id, "displayName": "Ada"}
    assert latest["changes"] == [{"field": "assignedTo", "old": [], "new": [bob.user.id]}]
    assert renamed["actor"] == {"_id": bob.user.id, "displayName": "Bob"}
    assert sorted(renamed["changes"], key=lambda c: c["field"]) == [
        {"field": "name", "old": "Login fails", "new": "Login fails on Safari"},
        {"field": "priority", "old": "High", "new": "Low"},
    ]
    assert renamed["at"] == "2026-11-21T09:35:00.000Z"
    assert {"field": "name", "old": None, "new": "Login fails"} in created["changes"]
    assert created["source"] is None and created["actor"]["displayName"] == "Ada"


async def test_history_pages_by_next_link_without_repeats(
    client, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member("Ada")
    bug = await create(client, ada)
    for number in range(4):  # two of them at the same instant: the id breaks the tie
        if number != 2:
            clock.advance(timedelta(seconds=1))
        await patch(client, ada, bug["_id"], name=f"Name {number}")
    first = await history(client, ada, bug["_id"], **{"$top": "2"})
    assert len(first["value"]) == 2
    seen = [entry["_id"] for entry in first["value"]]
    link = URL(first["@odata.nextLink"])
    while True:
        response = await client.get(link.path_qs, headers=ada.in_channel())
        assert response.status == 200, await response.text()
        body = await response.json()
        seen += [entry["_id"] for entry in body["value"]]
        if "@odata.nextLink" not in body or body["@odata.nextLink"] is None:
            break
        link = URL(body["@odata.nextLink"])
    assert len(seen) == len(set(seen)) == 5
    whole = await history(client, ada, bug["_id"], **{"$top": "10"})
    assert [entry["_id"] for entry in whole["value"]] == seen


async def test_a_deleted_item_keeps_its_history_ending_in_deleted(
    client, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member("Ada")
    bug = await create(client, ada)
    clock.advance(timedelta(seconds=1))
    response = await client.delete(f"/odata/bugs({bug['_id']})", headers=ada.in_channel())
    assert response.status == 204
    page = await history(client, ada, bug["_id"])
    assert [entry["kind"] for entry in page["value"]] == ["deleted", "created"]
    assert page["value"][0]["changes"] == []


async def test_bulk_edit_shows_in_each_items_history(
    client, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member("Ada")
    one, two = await create(client, ada), await create(client, ada, name="Other")
    clock.advance(timedelta(seconds=1))
    response = await client.post(
        "/api/bulk/bug",
        json={"ids": [one["_id"], two["_id"]], "priority": "Low"},
        headers=ada.in_channel(),
    )
    assert response.status == 200, await response.text()
    for item in (one, two):
        latest = (await history(client, ada, item["_id"]))["value"][0]
        assert latest["changes"] == [{"field": "priority", "old": "Normal", "new": "Low"}]


@pytest.mark.parametrize("flavour", ["malformed", "unknown", "other-kind", "other-team"])
async def test_an_item_not_in_the_channel_answers_404(
    client, factory: Factory, flavour: str
) -> None:
    ada = await factory.member("Ada")
    task = await create(client, ada, "task", name="A task")
    bob = await team_b_member(factory)
    theirs = await create(client, bob, team_b=True, name="Team B's secret")
    item_id = {
        "malformed": "not-an-id",
        "unknown": UNKNOWN_ID,
        "other-kind": task["_id"],
        "other-team": theirs["_id"],
    }[flavour]
    before = await stored(factory)
    response = await client.get(f"/api/bugs/{item_id}/history", headers=ada.in_channel())
    assert (response.status, await response.json()) == (
        404,
        {"error": f"Bug '{item_id}' not found."},
    )
    assert await stored(factory) == before


@pytest.mark.parametrize(
    ("option", "value", "error"),
    [
        ("$top", "-1", "Invalid $top: expected a whole number, 0 or more"),
        ("$orderby", "name", "Invalid $orderby: unknown property 'name'"),
        ("$skiptoken", "garbage", None),
    ],
)
async def test_bad_list_options_answer_400(
    client, factory: Factory, option: str, value: str, error: str | None
) -> None:
    ada = await factory.member("Ada")
    bug = await create(client, ada)
    response = await client.get(
        f"/api/bugs/{bug['_id']}/history", params={option: value}, headers=ada.in_channel()
    )
    body = await response.json()
    assert response.status == 400, body
    assert list(body) == ["error"]
    if error is not None:
        assert body["error"] == error


async def test_without_a_session_history_answers_401(client, factory: Factory) -> None:
    ada = await factory.member("Ada")
    bug = await create(client, ada)
    headers = {k: v for k, v in ada.in_channel().items() if k != "Cookie"}
    response = await client.get(f"/api/bugs/{bug['_id']}/history", headers=headers)
    assert response.status == 401
    assert list(await response.json()) == ["error"]


async def test_a_change_no_person_made_names_the_items_source(
    client, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member("Ada")
    bug = await create(client, ada)
    clock.advance(timedelta(seconds=1))
    async with factory.work() as uow:  # as a sync or the service's own work records it
        await uow.session.execute(
            insert(PendingEvent).values(
                id=new_id(),
                channel_id=(await uow.session.get(Item, bug["_id"])).channel_id,
                kind="bug",
                item_id=bug["_id"],
                trigger="ITEM_UPDATED",
                actor_id=None,
                occurred_at=clock.now(),
                payload={"changes": [{"field": "status", "old": "Not Started", "new": "Done"}]},
                processed_at=None,
            )
        )
    latest = (await history(client, ada, bug["_id"]))["value"][0]
    assert (latest["actor"], latest["source"]) == (None, "Svc.Native")
    assert latest["changes"] == [{"field": "status", "old": "Not Started", "new": "Done"}]
