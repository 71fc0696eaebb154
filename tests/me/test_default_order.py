"""The personal lists' default request (newest first, exact count, no filter): the path read from
the assignments' own index, which must agree with the items and the readable-channel rule."""

from datetime import timedelta

from bot.clock import FrozenClock
from bot.directory.users import remove_member
from tests.factories import Factory
from tests.me.helpers import (
    BASE,
    CHANNEL_A2,
    CHANNEL_B,
    PRIVATE_A,
    TEAM_B,
    listing,
    make,
    make_private,
    make_world,
    personal,
)


async def test_default_pages_are_newest_first_ties_by_id_with_the_exact_count(
    client, factory: Factory, clock: FrozenClock
) -> None:
    world = await make_world(factory)
    ada, grace = world.ada, world.grace
    made = []
    for number, (team, channel) in enumerate(
        [(None, None), (None, CHANNEL_A2), (TEAM_B, CHANNEL_B), (None, None), (None, CHANNEL_A2)]
    ):
        if number != 2:  # t1 and t2 share their creation time
            clock.advance(timedelta(minutes=1))
        place = {key: value for key, value in (("team", team), ("channel", channel)) if value}
        made.append(await make(client, grace, name=f"t{number}", assignedTo=[ada.user.id], **place))
    await make(client, grace, name="Grace's", assignedTo=[grace.user.id])
    expected = sorted(made, key=lambda item: item["_id"], reverse=True)  # ties go the same way
    expected.sort(key=lambda item: item["createdAt"], reverse=True)

    seen, pages = [], 0
    body = await listing(client, ada, "/api/me/tasks", **{"$top": "2"})
    while True:
        pages += 1
        assert body["@odata.count"] == 5
        seen += [row["_id"] for row in body["value"]]
        link = body.get("@odata.nextLink")
        if link is None:
            break
        response = await client.get(link.removeprefix(BASE), headers=personal(ada))
        assert response.status == 200, await response.text()
        body = await response.json()
    assert (seen, pages) == ([item["_id"] for item in expected], 3)

    # createdAt filters and sorts by the assignments' copies: the same answers as the items'.
    newer = await listing(
        client, ada, "/api/me/tasks", **{"$filter": f"createdAt gt {made[1]['createdAt']}"}
    )
    assert [row["name"] for row in newer["value"]] == ["t4", "t3"]
    assert newer["@odata.count"] == 2
    oldest = await listing(client, ada, "/api/me/tasks", **{"$orderby": "createdAt", "$top": "1"})
    assert [row["name"] for row in oldest["value"]] == ["t0"]


async def test_the_unfiltered_count_and_page_follow_the_readable_channels(
    client, factory: Factory
) -> None:
    world = await make_world(factory)
    ada, grace = world.ada, world.grace
    both = [ada.user.id, grace.user.id]
    await make(client, grace, channel=PRIVATE_A, name="Private", assignedTo=both)
    await make(client, grace, team=TEAM_B, channel=CHANNEL_B, name="Team B's", assignedTo=both)
    await make(client, grace, name="Still visible", assignedTo=both)
    before = await listing(client, ada, "/api/me/tasks")
    assert before["@odata.count"] == 3

    await make_private(factory)
    async with factory.work() as uow:
        await remove_member(uow, team_id=TEAM_B, user_ref=ada.user.id)

    mine = await listing(client, ada, "/api/me/tasks")
    assert ([row["name"] for row in mine["value"]], mine["@odata.count"]) == (["Still visible"], 1)
    graces = await listing(client, grace, "/api/me/tasks")
    assert graces["@odata.count"] == 2
    eves = await listing(client, world.eve, "/api/me/tasks")
    assert (eves["value"], eves["@odata.count"]) == ([], 0)
