"""Project writes that race: one external project per channel and source id, and a deleted
project leaves no item behind in it. On PostgreSQL a configure checked for the project before
another's insert committed (a unique violation, 500), and a delete read the items before a
create's was stored (`bot.fields.catalog_locks`). SQLite's writers take turns, and run the
same tests."""

import asyncio
import json
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from sqlalchemy import func, select, update

from bot.db.tables import FieldMapping, Item, ItemCounter, Project
from bot.settings import Settings
from tests.factories import Factory
from tests.items.test_concurrency import send, until_a_request_waits_for_a_lock
from tests.projects.bodies import (
    JIRA_STATES,
    add_project,
    azure_devops,
    jira,
    native_project,
    planner,
)


@pytest.fixture
def settings(db: str, make_settings: Any) -> Settings:
    # No background worker: on SQLite its writes would queue with the racing requests', which
    # `until_a_request_waits_for_a_lock` counts.
    return make_settings(db, JOBS_POLL_SECONDS=0)


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(planner(), id="planner"),
        pytest.param(jira(), id="jira"),
        pytest.param(azure_devops(), id="azure-devops"),
    ],
)
async def test_20_parallel_configures_of_one_project_make_one_and_refuse_the_rest(
    client: TestClient, factory: Factory, body: dict[str, Any]
) -> None:
    ada = await factory.member()
    answers = await asyncio.gather(
        *(
            send(client, "POST", "/api/projects", json=body, headers=ada.in_channel())
            for _ in range(20)
        )
    )
    assert sorted(status for status, _ in answers) == [201] + [409] * 19, answers
    refusals = [json.loads(text) for status, text in answers if status == 409]
    assert all("already configured" in refusal["error"] for refusal in refusals), refusals
    (made,) = [json.loads(text) for status, text in answers if status == 201]
    async with factory.work() as uow:
        configured = await uow.session.scalar(
            select(func.count()).where(Project.source == body["source"])
        )
        # Every default mapping belongs to the one project made.
        orphans = await uow.session.scalar(
            select(func.count()).where(FieldMapping.project_id != made["_id"])
        )
    assert (configured, orphans) == (1, 0)


async def test_an_item_created_while_its_project_is_deleted_moves_to_the_native_project(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    native_id = (await native_project(client, ada))["_id"]
    headers = ada.in_channel()
    async with factory.engine.connect() as holding:
        # The create pauses at its first write, after it read the project.
        await holding.execute(update(ItemCounter).values(version=ItemCounter.version))
        creating = asyncio.create_task(
            send(
                client,
                "POST",
                "/odata/bugs",
                json={"name": "Racing", "projectId": project["_id"]},
                headers=headers,
            )
        )
        await until_a_request_waits_for_a_lock(factory)
        deleting = asyncio.create_task(
            send(client, "DELETE", f"/api/projects/{project['_id']}", headers=headers)
        )
        # Fixed, the delete waits for the create; unfixed, it ends at once.
        both_wait = asyncio.create_task(until_a_request_waits_for_a_lock(factory, requests=2))
        await asyncio.wait({both_wait, deleting}, return_when=asyncio.FIRST_COMPLETED)
        both_wait.cancel()
        await holding.rollback()
    (created, body), (deleted, answer) = await asyncio.gather(creating, deleting)
    assert (created, deleted) == (201, 204), (body, answer)
    async with factory.work() as uow:
        assert await uow.session.get(Project, project["_id"]) is None
        moved = await uow.session.get(Item, json.loads(body)["_id"])
        assert moved is not None
        assert (moved.source, moved.project_id) == ("Svc.Native", native_id)


async def test_a_new_state_mapped_while_its_status_is_deleted_stays_unmapped(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    headers = ada.in_channel()
    statuses = await (await client.get("/odata/status", headers=headers)).json()
    (doomed,) = [
        s["_id"] for s in statuses["value"] if (s["type"], s["name"]) == ("Bug", "In Progress")
    ]
    # Another project's mapping of the status, held by the test: the delete's cascade waits there.
    other = await add_project(client, ada, jira(sourceId="OTHER"))
    # A project with no Active state: nothing of it refers to the status yet.
    states = [state for state in JIRA_STATES if state["category"] != "Active"]
    project = await add_project(client, ada, jira(states=states))
    review = {"id": "4", "name": "Review", "category": "Active"}
    async with factory.engine.connect() as holding:
        await holding.execute(
            update(FieldMapping)
            .where(FieldMapping.project_id == other["_id"], FieldMapping.field_id == doomed)
            .values(enable=FieldMapping.enable)
        )
        deleting = asyncio.create_task(
            send(client, "DELETE", f"/odata/status({doomed})", headers=headers)
        )
        await until_a_request_waits_for_a_lock(factory)
        # The new Active state is mapped by default to the lowest Active status: the doomed one.
        patching = asyncio.create_task(
            send(
                client,
                "PATCH",
                f"/api/projects/{project['_id']}",
                json={"states": [*states, review]},
                headers=headers,
            )
        )
        await until_a_request_waits_for_a_lock(factory, requests=2)
        await holding.rollback()
    (deleted, _), (patched, body) = await asyncio.gather(deleting, patching)
    assert (deleted, patched) == (204, 200), body
    async with factory.work() as uow:
        refs = await uow.session.scalar(select(func.count()).where(FieldMapping.field_id == doomed))
    assert refs == 0
