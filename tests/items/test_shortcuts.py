"""The chat commands' item verbs: an item by its number, close, clone (through the services,
then read back through the API as a user would see them)."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from bot.db.uow import UnitOfWork
from bot.directory.access import resolve_channel
from bot.directory.actors import actor_of
from bot.errors import NotFound
from bot.items import shortcuts
from bot.schemas import ItemKind
from tests.factories import CHANNEL, TEAM, Factory, Member, create_item


@asynccontextmanager
async def in_channel(
    factory: Factory, member: Member, channel: str = CHANNEL
) -> AsyncIterator[UnitOfWork]:
    async with factory.work() as uow:
        uow.actor = actor_of(member.user)
        uow.channel = await resolve_channel(
            uow, user_id=member.user.id, team_id=TEAM, channel_id=channel
        )
        yield uow


async def test_a_number_names_the_item_of_this_channel_only(client, factory: Factory) -> None:
    ada = await factory.member()
    await factory.channel("19:other@thread.tacv2", name="Other")
    first = await create_item(client, ada)
    async with in_channel(factory, ada) as uow:
        assert (
            await shortcuts.item_id_by_number(uow, kind=ItemKind.BUG, internal_id=1)
            == (first["_id"])
        )
        with pytest.raises(NotFound, match="no task #1"):
            await shortcuts.item_id_by_number(uow, kind=ItemKind.TASK, internal_id=1)
    async with in_channel(factory, ada, "19:other@thread.tacv2") as uow:
        with pytest.raises(NotFound, match="no bug #1 in this channel"):
            await shortcuts.item_id_by_number(uow, kind=ItemKind.BUG, internal_id=1)


async def test_close_moves_to_the_first_done_status_and_fills_completed(client, factory) -> None:
    ada = await factory.member()
    h = ada.in_channel()
    await client.post(
        "/odata/status",
        json={"name": "Verified", "type": "Bug", "category": "Done", "order": 0},
        headers=h,
    )
    bug = await create_item(client, ada)
    async with in_channel(factory, ada) as uow:
        await shortcuts.close_item(uow, kind=ItemKind.BUG, item_id=bug["_id"])
    details = await (await client.get(f"/api/bugs/{bug['_id']}/details", headers=h)).json()
    assert details["status"] == "Verified"  # order 0 comes before Completed's 3
    assert details["completedDate"] == "2026-11-21T09:30:00.000Z"


async def test_clone_copies_fields_and_assignees_into_the_primary_status(client, factory) -> None:
    ada = await factory.member()
    bob = await factory.member("Bob")
    h = ada.in_channel()
    bug = await create_item(
        client,
        ada,
        name="Login fails",
        body="Steps: …",
        status="In Progress",
        priority="High",
        severity="Critical",
        dueDate="2026-12-01",
        assignedTo=[bob.user.id, ada.user.id],
    )
    async with in_channel(factory, ada) as uow:
        created = await shortcuts.clone_item(uow, kind=ItemKind.BUG, item_id=bug["_id"])
    clone = await (await client.get(f"/api/bugs/{created.row['id']}/details", headers=h)).json()
    assert clone["internalId"] == 2 and clone["_id"] != bug["_id"]
    assert (clone["name"], clone["body"], clone["priority"], clone["severity"]) == (
        "Login fails",
        "Steps: …",
        "High",
        "Critical",
    )
    assert clone["status"] == "Not Started"
    assert clone["dueDate"] == "2026-12-01T00:00:00.000Z"
    assert [person["_id"] for person in clone["assignedTo"]] == [bob.user.id, ada.user.id]
    assert clone["attachments"] == []
