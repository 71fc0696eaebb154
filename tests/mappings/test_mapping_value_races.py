"""A mapping written while its channel value is deleted: refused as naming no value, never a
500 for a reference to a deleted row. On PostgreSQL the mapping read the value before the
delete committed and stored its reference after (`bot.fields.catalog_locks`). The test pauses
the delete behind a mapping row of the value that the test holds (the delete's cascade reaches
it), then sends the mapping write; SQLite runs the same steps, its writers taking turns."""

import asyncio
import json
from typing import Any

import pytest
from sqlalchemy import update

from bot.db.tables import FieldMapping
from bot.settings import Settings
from tests.factories import Factory
from tests.items.test_concurrency import send, until_a_request_waits_for_a_lock
from tests.projects.bodies import add_project, jira


@pytest.fixture
def settings(db: str, make_settings: Any) -> Settings:
    # No background worker: on SQLite its writes would queue with the racing requests', which
    # `until_a_request_waits_for_a_lock` counts.
    return make_settings(db, JOBS_POLL_SECONDS=0)


async def _map(client, headers: dict[str, str], project: str, priority: str, source: str) -> str:  # noqa: ANN001
    body = {
        "fieldId": priority,
        "projectId": project,
        "sourceId": source,
        "type": "priority",
        "entityType": "Bug",
    }
    made = await client.post("/odata/_fieldMappings", json=body, headers=headers)
    assert made.status == 201, await made.text()
    return (await made.json())["_id"]


async def _priority(client, headers: dict[str, str], name: str) -> str:  # noqa: ANN001
    made = await client.post("/odata/priority", json={"name": name, "type": "Bug"}, headers=headers)
    assert made.status == 201, await made.text()
    return (await made.json())["_id"]


@pytest.mark.parametrize("write", ["create", "repoint"])
async def test_a_mapping_written_while_its_value_is_deleted_is_refused(
    client, factory: Factory, write: str
) -> None:
    ada = await factory.member()
    headers = ada.in_channel()
    project = (await add_project(client, ada, jira()))["_id"]
    gone, kept = [await _priority(client, headers, name) for name in ("Doomed", "Kept")]
    held = await _map(client, headers, project, gone, "p0")
    other = await _map(client, headers, project, kept, "p1")
    request: tuple[str, str, dict[str, Any]] = (
        (
            "POST",
            "/odata/_fieldMappings",
            {
                "fieldId": gone,
                "projectId": project,
                "sourceId": "p2",
                "type": "priority",
                "entityType": "Bug",
            },
        )
        if write == "create"
        else ("PATCH", f"/odata/_fieldMappings({other})", {"fieldId": gone})
    )
    async with factory.engine.connect() as holding:
        await holding.execute(
            update(FieldMapping).where(FieldMapping.id == held).values(enable=FieldMapping.enable)
        )
        deleting = asyncio.create_task(
            send(client, "DELETE", f"/odata/priority({gone})", headers=headers)
        )
        await until_a_request_waits_for_a_lock(factory)
        method, path, body = request
        writing = asyncio.create_task(send(client, method, path, json=body, headers=headers))
        await until_a_request_waits_for_a_lock(factory, requests=2)
        await holding.rollback()
    (deleted, _), (written, refusal) = await asyncio.gather(deleting, writing)
    assert (deleted, written) == (204, 400), refusal
    assert "fieldId" in json.loads(refusal)["error"]
