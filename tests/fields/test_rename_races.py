"""Item writes racing a rename or delete of the priority they name: an item never keeps a name
its channel no longer has. On PostgreSQL (READ COMMITTED) a write that read the old name could
store it after the rename had rewritten the items; `bot.fields.catalog_locks` makes the two take
turns. Each test pauses the item write after it read the catalogue, behind a row the test holds,
sends the rename or delete, then lets the write go. SQLite runs the same steps, its writers
taking turns anyway."""

import asyncio
import json
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from sqlalchemy import select, update

from bot.db.tables import Item, ItemAssignee, ItemCounter
from bot.settings import Settings
from tests.factories import Factory, Member, create_item
from tests.fields.helpers import field_values, stored_item
from tests.items.test_concurrency import send, until_a_request_waits_for_a_lock


@pytest.fixture
def settings(db: str, make_settings: Any) -> Settings:
    # No background worker: on SQLite its writes would queue with the racing requests', which
    # `until_a_request_waits_for_a_lock` counts.
    return make_settings(db, JOBS_POLL_SECONDS=0)


Request = tuple[str, str, dict[str, Any] | None]  # method, path, JSON body
RENAMED = {"name": "Pressing"}


async def _write_paused_by(
    client: TestClient,
    factory: Factory,
    held: Any,
    write: Request,
    then: Request,
    member: Member,
) -> tuple[tuple[int, str], tuple[int, str]]:
    """The answers to `write`, paused on the row the test's own transaction updates with `held`
    (after it read the catalogue), and to `then`, sent while the write waits."""
    headers = member.in_channel()
    async with factory.engine.connect() as holding:
        await holding.execute(held)
        method, path, body = write
        writing = asyncio.create_task(send(client, method, path, json=body, headers=headers))
        await until_a_request_waits_for_a_lock(factory, unless_ended=[writing])
        method, path, body = then
        changing = asyncio.create_task(send(client, method, path, json=body, headers=headers))
        # On PostgreSQL the rename or delete waits for the write, which waits for the test.
        await until_a_request_waits_for_a_lock(
            factory, requests=2, unless_ended=[writing, changing]
        )
        await holding.rollback()
    written, changed = await asyncio.gather(writing, changing)
    return written, changed


async def test_a_create_that_read_the_old_name_gets_the_new_one(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    high = (await field_values(factory, "priority"))["High"]
    (created, body), (renamed, _) = await _write_paused_by(
        client,
        factory,
        update(ItemCounter).values(version=ItemCounter.version),  # a create's first write
        ("POST", "/odata/bugs", {"name": "Racing", "priority": "High"}),
        ("PATCH", f"/odata/priority({high.id})", RENAMED),
        ada,
    )
    assert (created, renamed) == (201, 204), body
    assert (await stored_item(factory, json.loads(body)["_id"])).priority == "Pressing"


async def test_an_edit_that_read_the_old_name_gets_the_new_one(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    bug = await create_item(client, ada, priority="Low")
    high = (await field_values(factory, "priority"))["High"]
    (edited, body), (renamed, _) = await _write_paused_by(
        client,
        factory,
        update(Item).where(Item.id == bug["_id"]).values(name=Item.name),  # the edit's row
        ("PATCH", f"/odata/bugs({bug['_id']})", {"priority": "High"}),
        ("PATCH", f"/odata/priority({high.id})", RENAMED),
        ada,
    )
    assert (edited, renamed) == (204, 204), body
    assert (await stored_item(factory, bug["_id"])).priority == "Pressing"


async def test_a_priority_a_create_read_is_not_deleted_from_under_it(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    high = (await field_values(factory, "priority"))["High"]
    (created, body), (deleted, refusal) = await _write_paused_by(
        client,
        factory,
        update(ItemCounter).values(version=ItemCounter.version),
        ("POST", "/odata/bugs", {"name": "Racing", "priority": "High"}),
        ("DELETE", f"/odata/priority({high.id})", None),
        ada,
    )
    # The delete waited for the create, then found an item holding the priority.
    assert (created, deleted) == (201, 409), refusal
    assert (await stored_item(factory, json.loads(body)["_id"])).priority == "High"
    assert "High" in await field_values(factory, "priority")


async def test_a_status_rename_and_a_delete_of_an_item_holding_it_both_end_well(
    client: TestClient, factory: Factory
) -> None:
    """A delete holds its item's row, then moves the list version; the rename rewrites the items
    before its status moves the version (at commit, migration 0008). Had the status moved it
    first, each would wait for the other: PostgreSQL ends one of them with a deadlock. The
    delete pauses on its item's assignment, which its cascade deletes, holding the item's row."""
    ada = await factory.member()
    bug = await create_item(client, ada, status="In Progress", assignedTo=[ada.user.id])
    status_id = (await stored_item(factory, bug["_id"])).status_id
    (deleted, refusal), (renamed, body) = await _write_paused_by(
        client,
        factory,
        select(ItemAssignee.item_id).where(ItemAssignee.item_id == bug["_id"]).with_for_update(),
        ("DELETE", f"/odata/bugs({bug['_id']})", None),
        ("PATCH", f"/odata/status({status_id})", {"name": "Doing"}),
        ada,
    )
    assert (deleted, renamed) == (204, 204), (refusal, body)
