"""Planner names assignees by Entra object id only: one who matches no team member is shown by
the display name the directory gives (`GET /users/{id}`), read once per user, and by the id when
Graph will not say (an unknown user, or an app without User.Read.All, whose tasks still sync)."""

from bot.sync.standins.planner import PlannerStandin
from tests.factories import Factory
from tests.sync.linking import sync_status
from tests.sync.planner_linking import link_planner, planner, settings, tasks
from tests.vendor_apis.planner_fixtures import make_planner

__all__ = ["make_planner", "planner", "settings"]

GRACE = "7d3c1f0e-58a4-4f55-9d8e-0c6a2b1e9f01"  # in the directory, not in the team
GONE = "0b9e6c2d-1a2b-4c3d-8e9f-a0b1c2d3e4f5"  # in no directory


async def test_an_unmatched_assignee_is_shown_by_the_name_graph_gives(
    client, factory: Factory, planner: PlannerStandin
) -> None:
    ada = await factory.member("Ada Lovelace")
    planner.add_user(GRACE, "Grace Outsider")
    planner.create("Shared", assignments={ada.user.source_id: {}, GRACE: {}, GONE: {}})
    planner.create("Also Grace", assignments={GRACE: {}})
    await link_planner(client, ada, planner)
    shared, also = sorted(await tasks(client, ada), key=lambda t: t["name"] != "Shared")
    assert [a["_id"] for a in shared["assignedTo"]] == [ada.user.id]
    assert sorted(shared["sync"]["unmatched"]) == sorted(["Grace Outsider", GONE])
    assert also["sync"]["unmatched"] == ["Grace Outsider"]
    read = sorted(x.path.rsplit("/", 1)[1] for x in planner.exchanges_to("GET", "/users/"))
    assert read == sorted([ada.user.source_id, GRACE, GONE])  # each user once


async def test_without_leave_to_read_users_ids_are_shown_and_tasks_still_sync(
    client, factory: Factory, planner: PlannerStandin
) -> None:
    ada = await factory.member("Ada Lovelace")
    planner.add_user(GRACE, "Grace Outsider")
    planner.users_readable = False
    planner.create("Grace's", assignments={GRACE: {}})
    planner.create("Also Grace", assignments={GRACE: {}, GONE: {}})
    project = await link_planner(client, ada, planner)
    found = {t["name"]: t for t in await tasks(client, ada)}
    assert found["Grace's"]["sync"]["unmatched"] == [GRACE]
    assert sorted(found["Also Grace"]["sync"]["unmatched"]) == sorted([GRACE, GONE])
    assert {x.status for x in planner.exchanges_to("GET", "/users/")} == {403}
    status = await sync_status(client, ada, project["_id"])
    assert (status["state"], status["lastError"]) == ("running", None)
