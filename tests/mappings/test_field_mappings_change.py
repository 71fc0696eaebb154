"""`_fieldMappings` changes and deletes: PATCH remaps, renames, disables and moves to a free
source value only, refuses fixed fields and nulls; DELETE removes; a mapping that is unknown,
malformed or another channel's is not found; every refusal changes nothing."""

from typing import Any

import pytest

from tests.factories import Factory
from tests.mappings.helpers import DUPLICATE, add_status, stored, unmap
from tests.projects.bodies import (
    CHANNEL_B,
    UNKNOWN_ID,
    add_project,
    azure_devops,
    jira,
    mappings_of,
)


async def test_patch_remaps_renames_and_disables(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    review = await add_status(client, ada, "Review")
    (mapping,) = await mappings_of(client, ada, project["_id"], entityType="Bug", sourceId="3")
    for key in (mapping["_id"], f"'{mapping['_id']}'"):
        response = await client.patch(
            f"/odata/_fieldMappings({key})",
            json={"fieldId": review, "sourceName": "Doing", "enable": False},
            headers=ada.in_channel(),
        )
        assert response.status == 204
    (changed,) = await mappings_of(client, ada, project["_id"], entityType="Bug", sourceId="3")
    assert (changed["fieldId"], changed["fieldName"], changed["sourceName"], changed["enable"]) == (
        review,
        "Review",
        "Doing",
        False,
    )


async def test_patch_moves_to_a_free_source_value_only(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, azure_devops())
    (resolved,) = await mappings_of(
        client, ada, project["_id"], entityType="Bug", sourceId="Resolved"
    )
    before = await stored(factory)
    taken = await client.patch(
        f"/odata/_fieldMappings({resolved['_id']})",
        json={"sourceId": "Active"},
        headers=ada.in_channel(),
    )
    assert taken.status == 400
    assert await taken.json() == DUPLICATE
    assert await stored(factory) == before
    await unmap(client, ada, project["_id"], "Bug", "New")
    moved = await client.patch(
        f"/odata/_fieldMappings({resolved['_id']})",
        json={"sourceId": "New"},
        headers=ada.in_channel(),
    )
    assert moved.status == 204
    (now,) = await mappings_of(client, ada, project["_id"], entityType="Bug", sourceId="New")
    assert (now["_id"], now["sourceName"], now["fieldName"]) == (
        resolved["_id"],
        "New",
        "In Progress",
    )


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"projectId": UNKNOWN_ID}, "projectId"),
        ({"type": "priority"}, "type"),
        ({"entityType": "Task"}, "entityType"),
        ({"source": "Microsoft.Vsts"}, "source"),
        ({"fieldId": None}, "fieldId"),
        ({"sourceId": None}, "sourceId"),
        ({"sourceName": None}, "sourceName"),
        ({"enable": None}, "enable"),
        ({"sourceId": "7"}, "sourceId"),
        ({"fieldId": UNKNOWN_ID}, "fieldId"),
    ],
)
async def test_patch_refuses_fixed_fields_and_nulls(
    client, factory: Factory, body: dict[str, Any], field: str
) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    (mapping,) = await mappings_of(client, ada, project["_id"], entityType="Bug", sourceId="3")
    before = await stored(factory)
    response = await client.patch(
        f"/odata/_fieldMappings({mapping['_id']})", json=body, headers=ada.in_channel()
    )
    assert response.status == 400
    assert (await response.json())["error"].startswith(f"{field}: ")
    assert await stored(factory) == before


async def test_patch_accepts_the_fixed_fields_unchanged(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    (mapping,) = await mappings_of(client, ada, project["_id"], entityType="Bug", sourceId="3")
    same = {k: mapping[k] for k in ("projectId", "type", "entityType", "source")}
    response = await client.patch(
        f"/odata/_fieldMappings({mapping['_id']})",
        json={**same, "sourceName": "Doing"},
        headers=ada.in_channel(),
    )
    assert response.status == 204
    (changed,) = await mappings_of(client, ada, project["_id"], entityType="Bug", sourceId="3")
    assert changed["sourceName"] == "Doing"


async def test_delete_removes_the_mapping(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    (mapping,) = await mappings_of(client, ada, project["_id"], entityType="Bug", sourceId="3")
    response = await client.delete(
        f"/odata/_fieldMappings('{mapping['_id']}')", headers=ada.in_channel()
    )
    assert response.status == 204
    assert await mappings_of(client, ada, project["_id"], entityType="Bug", sourceId="3") == []
    again = await client.delete(
        f"/odata/_fieldMappings({mapping['_id']})", headers=ada.in_channel()
    )
    assert again.status == 404


async def test_unknown_malformed_and_foreign_mappings_are_not_found(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    await factory.channel(CHANNEL_B, name="Ops")
    in_b = ada.in_channel(channel=CHANNEL_B)
    await client.post("/api/projects", json=jira(), headers=in_b)
    b_mappings = await (await client.get("/odata/_fieldMappings", headers=in_b)).json()
    foreign = b_mappings["value"][0]["_id"]
    before = await stored(factory)
    for key in (UNKNOWN_ID, "nope", foreign):
        for method, body in (("PATCH", {"enable": False}), ("DELETE", None)):
            response = await client.request(
                method, f"/odata/_fieldMappings({key})", json=body, headers=ada.in_channel()
            )
            assert response.status == 404
            assert await response.json() == {"error": f"Mapping '{key}' not found."}
    listed = await (await client.get("/odata/_fieldMappings", headers=ada.in_channel())).json()
    assert listed["value"] == []
    assert await stored(factory) == before
