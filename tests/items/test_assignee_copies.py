"""Each assignment's copies of its item's kind, channel and creation time (what the personal views
sort and check by) equal the item's own, after every kind of write."""

from datetime import timedelta
from typing import Any

from sqlalchemy import select

from bot.clock import FrozenClock
from bot.db.tables import Item, ItemAssignee
from bot.directory.access import resolve_channel
from bot.directory.actors import actor_of
from bot.items import shortcuts
from bot.items.batch import NewItems
from bot.items.schemas import TaskCreate
from bot.schemas import ItemKind
from tests.factories import CHANNEL, TEAM, Factory, create_item

CHANNEL_2 = "19:second@thread.tacv2"


async def assignments(factory: Factory) -> list[dict[str, Any]]:
    """Every assignment with its copies beside its item's values (every assignment has its
    item: the foreign key says so, and an item missing here would fail the comparison)."""
    async with factory.work() as uow:
        rows = await uow.session.execute(
            select(
                ItemAssignee.item_id,
                ItemAssignee.user_id,
                ItemAssignee.position,
                ItemAssignee.kind,
                ItemAssignee.channel_id,
                ItemAssignee.created_at,
                Item.kind.label("item_kind"),
                Item.channel_id.label("item_channel_id"),
                Item.created_at.label("item_created_at"),
            )
            .outerjoin(Item, Item.id == ItemAssignee.item_id)
            .order_by(ItemAssignee.item_id, ItemAssignee.position)
        )
        return [dict(row) for row in rows.mappings()]


async def assert_exact(factory: Factory) -> list[tuple[str, str]]:
    """The copies equal their items' values; the (item, user) pairs, for the caller to check."""
    found = await assignments(factory)
    for row in found:
        assert (row["kind"], row["channel_id"], row["created_at"]) == (
            row["item_kind"],
            row["item_channel_id"],
            row["item_created_at"],
        ), row
    return [(row["item_id"], row["user_id"]) for row in found]


async def test_copies_stay_exact_through_create_patch_bulk_clone_and_delete(
    client, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member("Ada")
    grace = await factory.member("Grace")
    await factory.channel(CHANNEL_2, name="Second")
    a, g = ada.user.id, grace.user.id

    bug = await create_item(client, ada, name="bug", assignedTo=[a, g])
    clock.advance(timedelta(minutes=1))
    task = await create_item(client, ada, "task", name="task", assignedTo=[g])
    clock.advance(timedelta(minutes=1))
    response = await client.post(
        "/odata/bugs",
        json={"name": "elsewhere", "assignedTo": [a]},
        headers=ada.in_channel(TEAM, CHANNEL_2),
    )
    assert response.status == 201, await response.text()
    elsewhere = await response.json()
    clock.advance(timedelta(minutes=1))
    assert sorted(await assert_exact(factory)) == sorted(
        [(bug["_id"], a), (bug["_id"], g), (task["_id"], g), (elsewhere["_id"], a)]
    )

    # PATCH: new assignees (the item's time has moved on; the copies keep the creation time).
    response = await client.patch(
        f"/odata/tasks({task['_id']})", json={"assignedTo": [a, g]}, headers=ada.in_channel()
    )
    assert response.status == 204, await response.text()
    assert (task["_id"], a) in await assert_exact(factory)

    # Bulk edit: two bugs, two assignees (in a new order), then one.
    clock.advance(timedelta(minutes=1))
    other = await create_item(client, ada, name="other bug")
    both = {"ids": [bug["_id"], other["_id"]], "assignedTo": [g, a]}
    response = await client.post("/api/bulk/bug", json=both, headers=ada.in_channel())
    assert response.status == 200, await response.text()
    pairs = await assert_exact(factory)
    assert {(other["_id"], a), (other["_id"], g)} <= set(pairs)
    one = {"ids": [bug["_id"]], "assignedTo": [g]}
    response = await client.post("/api/bulk/bug", json=one, headers=ada.in_channel())
    assert response.status == 200, await response.text()
    pairs = await assert_exact(factory)
    assert (bug["_id"], a) not in pairs and (bug["_id"], g) in pairs

    # Clone (the chat command's verb): a new item, its own creation time copied.
    clock.advance(timedelta(minutes=1))
    async with factory.work() as uow:
        uow.actor = actor_of(ada.user)
        uow.channel = await resolve_channel(uow, user_id=a, team_id=TEAM, channel_id=CHANNEL_2)
        clone = await shortcuts.clone_item(uow, kind=ItemKind.BUG, item_id=elsewhere["_id"])
    assert (clone.row["id"], a) in await assert_exact(factory)

    # PATCH to nobody, then delete: the rows go with them.
    response = await client.patch(
        f"/odata/tasks({task['_id']})", json={"assignedTo": []}, headers=ada.in_channel()
    )
    assert response.status == 204, await response.text()
    response = await client.delete(
        f"/odata/bugs({elsewhere['_id']})", headers=ada.in_channel(TEAM, CHANNEL_2)
    )
    assert response.status == 204, await response.text()
    assert sorted(await assert_exact(factory)) == sorted(
        [(bug["_id"], g), (other["_id"], g), (other["_id"], a), (clone.row["id"], a)]
    )


async def test_copies_are_exact_after_a_batch_create_with_original_creation_times(
    factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member("Ada")
    grace = await factory.member("Grace")
    created = [clock.now() - timedelta(days=days) for days in (30, 20, 10)]
    async with factory.work() as uow:
        uow.channel = await resolve_channel(
            uow, user_id=ada.user.id, team_id=TEAM, channel_id=CHANNEL
        )
        batch = await NewItems.open(uow, kind=ItemKind.TASK, record_events=False)
        for when, refs in zip(
            created,
            ([ada.user.username], [grace.user.email, ada.user.id], []),
            strict=True,
        ):
            body = TaskCreate.model_validate({"name": "Imported", "assignedTo": refs})
            await batch.add(body, created_at=when)
        assert await batch.write() == 3
    pairs = await assert_exact(factory)
    assert sorted(user for _item, user in pairs) == sorted(
        [ada.user.id, grace.user.id, ada.user.id]
    )
    async with factory.work(write=False) as uow:
        times = await uow.values(select(Item.created_at).order_by(Item.internal_id))
    assert times == created
