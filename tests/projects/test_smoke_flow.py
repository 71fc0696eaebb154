"""The mapping rule end to end: a Jira project, its default mappings, an unmapped status."""

JIRA = {
    "displayName": "Sprint board",
    "source": "Jira",
    "sourceId": "SB",
    "hostname": "contoso.atlassian.net",
    "states": [
        {"id": "1", "name": "To Do", "category": "New"},
        {"id": "3", "name": "In Progress", "category": "Active"},
        {"id": "10001", "name": "Done", "category": "Done"},
    ],
    "token": "s3cret-token",
}


async def test_jira_project_maps_by_default_and_refuses_unmapped(client, factory) -> None:
    ada = await factory.member()
    h = ada.in_channel()
    created = await client.post("/api/projects", json=JIRA, headers=h)
    assert created.status == 201, await created.text()
    project = await created.json()
    assert project["hasCredentials"] is True and "token" not in project
    mappings = await (await client.get("/odata/_fieldMappings", headers=h)).json()
    assert mappings["@odata.count"] == 6  # three states, two kinds
    states = await client.get(f"/api/fields/bug/status/{project['_id']}", headers=h)
    assert await states.json() == JIRA["states"]

    review = await client.post(
        "/odata/status", json={"name": "Review", "type": "Bug", "category": "Active"}, headers=h
    )
    assert review.status == 201
    bug = await client.post(
        "/odata/bugs", json={"name": "x", "projectId": project["_id"]}, headers=h
    )
    assert bug.status == 201, await bug.text()
    bug_id = (await bug.json())["_id"]
    refused = await client.patch(f"/odata/bugs({bug_id})", json={"status": "Review"}, headers=h)
    assert refused.status == 400
    assert "Review" in (await refused.json())["error"]
    bulk = await client.post("/api/bulk/bug", json={"ids": [bug_id], "status": "Review"}, headers=h)
    assert (await bulk.json())[0]["error"] == "Svc_MAPPING_NOTFOUND"

    mapping = next(
        m for m in mappings["value"] if m["entityType"] == "Bug" and m["fieldName"] == "Not Started"
    )
    deleted = await client.delete(f"/odata/_fieldMappings({mapping['_id']})", headers=h)
    assert deleted.status == 204
    details = await (await client.get(f"/api/bugs/{bug_id}/details", headers=h)).json()
    assert details["status"] == "Invalid"
    assert details["sync"]["status"] == "Svc_MAPPING_NOTFOUND"
