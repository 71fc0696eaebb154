"""Items read back by id (the card bulk edit's answer): the request's channel's items of the
kind asked, in a list's default order, as the list shows them."""

from bot.items import read
from bot.schemas import ItemKind
from tests.factories import Factory, create_item, insert_copies
from tests.items.test_shortcuts import in_channel

OTHER = "19:other@thread.tacv2"


async def test_two_hundred_ids_read_back_as_the_list_shows_them(client, factory: Factory) -> None:
    ada = await factory.member()
    await factory.channel(OTHER, name="Other")
    first = await create_item(client, ada, name="Copied")
    await insert_copies(factory, first["_id"], 199)
    other = await client.post(
        "/odata/bugs", json={"name": "Other channel"}, headers=ada.in_channel(channel=OTHER)
    )
    task = await create_item(client, ada, of="task")
    listed = await client.get("/odata/bugs", params={"$top": "1000"}, headers=ada.in_channel())
    shown = (await listed.json())["value"]
    assert len(shown) == 200
    asked = [bug["_id"] for bug in reversed(shown)]
    asked += [(await other.json())["_id"], task["_id"], "not-an-id", asked[0]]
    async with in_channel(factory, ada) as uow:
        found = await read.get_many(uow, kind=ItemKind.BUG, item_ids=asked)
        assert await read.get_many(uow, kind=ItemKind.BUG, item_ids=[]) == []
    assert found == shown
