"""Fields the server owns (ids, numbers, times, authors, where an item lives) are ignored when a
create or PATCH sends them: the item keeps what the server gave it."""

from typing import Any

from sqlalchemy import select

from bot.db.tables import Channel, Item
from tests.factories import CHANNEL, Factory
from tests.items.refusals import CHANNEL_B, TEAM_B, create, stored

SERVER_OWNED: dict[str, Any] = {
    "_id": "ffffffffffffffffffffffff",
    "internalId": 999,
    "createdAt": "2001-01-01T00:00:00Z",
    "updatedAt": "2001-01-01T00:00:00Z",
    "createdBy": {"source": "x", "email": "mallory@evil.test", "name": "M", "sourceId": "m"},
    "updatedBy": {"id": "m"},
    "teamId": TEAM_B,
    "channelId": CHANNEL_B,
    "sourceId": "forged",
    "kind": "task",
    "attachments": [{"filename": "x.exe"}],
}


async def test_server_owned_fields_in_a_create_are_ignored(client, factory: Factory) -> None:
    ada = await factory.member("Ada")
    created = await create(client, ada, **SERVER_OWNED)
    assert created["_id"] != SERVER_OWNED["_id"] and created["internalId"] == 1
    assert created["sourceId"] == created["_id"] and created["attachments"] == []
    assert created["createdAt"] == created["updatedAt"] == "2026-11-21T09:30:00.000Z"
    async with factory.work() as uow:
        item = await uow.session.scalar(select(Item))
        channel = await uow.session.scalar(select(Channel).where(Channel.teams_id == CHANNEL))
    assert item is not None and channel is not None
    assert (item.id, item.channel_id, item.kind) == (created["_id"], channel.id, "bug")
    assert item.created_by == item.updated_by == ada.user.id


async def test_server_owned_fields_in_a_patch_are_ignored(client, factory: Factory) -> None:
    ada = await factory.member("Ada")
    bug = await create(client, ada)
    before = (await stored(factory))["items"]
    response = await client.patch(
        f"/odata/bugs({bug['_id']})",
        json={**SERVER_OWNED, "name": "Renamed"},
        headers=ada.in_channel(),
    )
    assert response.status == 204
    after = (await stored(factory))["items"]
    assert after == [{**before[0], "name": "Renamed", "name_key": "renamed"}]
