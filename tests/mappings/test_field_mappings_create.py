"""`_fieldMappings` creates: the mapping answered with the fields derived from the channel value,
project and catalogue; free source values (priorities) may share a channel value; a source value
mapped twice is the duplicate 400."""

from tests.factories import Factory
from tests.mappings.helpers import DUPLICATE, add_status, stored, unmap
from tests.projects.bodies import add_project, azure_devops, field_ids, jira, mappings_of


async def test_create_answers_201_with_the_derived_fields(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    await unmap(client, ada, project["_id"], "Bug", "3")
    review = await add_status(client, ada, "Review")
    body = {
        "fieldId": review,
        "projectId": project["_id"],
        "sourceId": "3",
        "type": "status",
        "entityType": "Bug",
        # Derived fields sent anyway are ignored.
        "fieldName": "Something else",
        "projectHostname": "elsewhere.example",
    }
    response = await client.post("/odata/_fieldMappings", json=body, headers=ada.in_channel())
    assert response.status == 201, await response.text()
    mapping = await response.json()
    assert {k: v for k, v in mapping.items() if not k.startswith("@") and k != "_id"} == {
        "fieldId": review,
        "fieldName": "Review",
        "projectId": project["_id"],
        "projectHostname": "contoso.atlassian.net",
        "source": "Jira",
        "sourceId": "3",
        "sourceName": "In Progress",  # from the catalogue
        "enable": True,
        "type": "status",
        "entityType": "Bug",
        "createdAt": "2026-11-21T09:30:00.000Z",
        "updatedAt": "2026-11-21T09:30:00.000Z",
    }
    listed = await mappings_of(client, ada, project["_id"], sourceId="3", entityType="Bug")
    assert listed == [mapping]


async def test_create_takes_the_given_source_name_enable_and_matching_source(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    await unmap(client, ada, project["_id"], "Task", "3")
    body = {
        "fieldId": (await field_ids(factory, "status", "Task"))["In Progress"],
        "projectId": project["_id"],
        "sourceId": "3",
        "sourceName": "Doing",
        "enable": False,
        "source": "Jira",
        "type": "status",
        "entityType": "Task",
    }
    response = await client.post("/odata/_fieldMappings", json=body, headers=ada.in_channel())
    assert response.status == 201
    mapping = await response.json()
    assert (mapping["sourceName"], mapping["enable"]) == ("Doing", False)


async def test_priorities_map_free_source_values(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    priorities = await field_ids(factory, "priority", "Bug")
    body = {
        "fieldId": priorities["High"],
        "projectId": project["_id"],
        "sourceId": "2",
        "type": "priority",
        "entityType": "Bug",
    }
    response = await client.post("/odata/_fieldMappings", json=body, headers=ada.in_channel())
    assert response.status == 201
    assert (await response.json())["sourceName"] == "2"
    # Several source values may share one channel value.
    second = await client.post(
        "/odata/_fieldMappings",
        json={**body, "sourceId": "Highest", "sourceName": "Highest"},
        headers=ada.in_channel(),
    )
    assert second.status == 201


async def test_mapping_a_source_value_twice_is_the_duplicate_400(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    before = await stored(factory)
    body = {
        "fieldId": await add_status(client, ada, "Review"),
        "projectId": project["_id"],
        "sourceId": "3",  # mapped by default to In Progress
        "type": "status",
        "entityType": "Bug",
    }
    response = await client.post("/odata/_fieldMappings", json=body, headers=ada.in_channel())
    assert response.status == 400
    assert await response.json() == DUPLICATE
    assert await stored(factory) == before


async def test_an_azure_devops_severity_maps_once(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, azure_devops())
    severities = await field_ids(factory, "severity", "Bug")
    body = {
        "fieldId": severities["High"],
        "projectId": project["_id"],
        "sourceId": "1 - Critical",
        "type": "severity",
        "entityType": "Bug",
    }
    response = await client.post("/odata/_fieldMappings", json=body, headers=ada.in_channel())
    assert await response.json() == DUPLICATE
    unknown = await client.post(
        "/odata/_fieldMappings",
        json={**body, "sourceId": "5 - Trivial"},
        headers=ada.in_channel(),
    )
    assert unknown.status == 400
    assert await unknown.json() == {
        "error": "sourceId: '5 - Trivial' is not a severity of project 'Fabrikam Fiber' "
        "(one of: 1 - Critical, 2 - High, 3 - Medium, 4 - Low)"
    }
