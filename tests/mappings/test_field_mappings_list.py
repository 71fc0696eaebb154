"""`_fieldMappings` lists: OData filters on the mapping's fields, paging and counts, and a list
per project."""

import pytest

from tests.factories import Factory
from tests.projects.bodies import add_project, azure_devops, jira, mappings_of, planner


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"$filter": "type eq 'severity'"}, 4),
        ({"$filter": "entityType eq 'Task'"}, 3 + 4),
        ({"$filter": "entityType eq 'Bug' and type eq 'status'"}, 3 + 4),
        ({"$filter": "source eq 'Jira'"}, 6),
        ({"$filter": "fieldName eq 'In Progress'"}, 2 + 4),
        ({"$filter": "startswith(sourceName, '1 -')"}, 1),
        ({"$top": "2"}, 2),
    ],
)
async def test_the_list_takes_odata_filters(
    client, factory: Factory, options: dict[str, str], expected: int
) -> None:
    ada = await factory.member()
    await add_project(client, ada, jira())
    await add_project(client, ada, azure_devops())
    response = await client.get(
        "/odata/_fieldMappings", params={**options, "$count": "true"}, headers=ada.in_channel()
    )
    assert response.status == 200, await response.text()
    page = await response.json()
    assert len(page["value"]) == expected
    assert page["@odata.count"] == (18 if "$top" in options else expected)


async def test_the_list_filters_on_project(client, factory: Factory) -> None:
    ada = await factory.member()
    jira_project = await add_project(client, ada, jira())
    planner_project = await add_project(client, ada, planner())
    for project in (jira_project, planner_project):
        found = await mappings_of(client, ada, project["_id"])
        assert {m["projectId"] for m in found} == {project["_id"]}
        assert len(found) == 6
    bad = await client.get(
        "/odata/_fieldMappings", params={"$filter": "colour eq 1"}, headers=ada.in_channel()
    )
    assert bad.status == 400
    assert (await bad.json())["error"].startswith("Invalid $filter")
