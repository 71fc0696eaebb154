"""Item lists: OData collections of details, filtered, sorted, counted and paged in SQL."""

from urllib.parse import quote

from tests.factories import Factory

BASE = "http://127.0.0.1:3978"


async def make(client, member, path: str, **body) -> dict:  # noqa: ANN001
    response = await client.post(path, json=body, headers=member.in_channel())
    assert response.status == 201, await response.text()
    return await response.json()


async def listing(client, member, path: str, **options: str) -> dict:  # noqa: ANN001
    query = "&".join(f"{name}={quote(value)}" for name, value in options.items())
    response = await client.get(f"{path}?{query}" if query else path, headers=member.in_channel())
    assert response.status == 200, await response.text()
    return await response.json()


async def test_list_is_an_odata_collection_of_details(client, factory: Factory) -> None:
    ada = await factory.member()
    bug = await make(client, ada, "/odata/bugs", name="First")
    await make(client, ada, "/odata/tasks", name="A task, not listed with bugs")
    for path in ("/api/bugs", "/odata/bugs"):
        body = await listing(client, ada, path)
        assert body["@odata.context"] == f"{BASE}/odata/$metadata#bugs"
        assert body["@odata.count"] == 1
        assert "@odata.nextLink" not in body
        details = await (
            await client.get(f"/api/bugs/{bug['_id']}/details", headers=ada.in_channel())
        ).json()
        assert body["value"] == [details]


async def test_filter_orderby_top_count_and_next_link(client, factory: Factory) -> None:
    ada = await factory.member()
    for number in range(5):
        await make(
            client,
            ada,
            "/odata/bugs",
            name=f"Bug {number}",
            status="In Progress" if number % 2 else "Not Started",
            dueDate=f"2026-12-0{number + 1}",
        )
    body = await listing(
        client,
        ada,
        "/odata/bugs",
        **{
            "$filter": "status eq 'Not Started'",
            "$orderby": "dueDate desc",
            "$top": "2",
            "$count": "true",
            "$select": "name,dueDate",
        },
    )
    assert body["@odata.count"] == 3
    assert body["value"] == [
        {"_id": body["value"][0]["_id"], "name": "Bug 4", "dueDate": "2026-12-05T00:00:00.000Z"},
        {"_id": body["value"][1]["_id"], "name": "Bug 2", "dueDate": "2026-12-03T00:00:00.000Z"},
    ]
    next_link = body["@odata.nextLink"]
    assert next_link.startswith(f"{BASE}/odata/bugs?")
    following = await (
        await client.get(next_link.removeprefix(BASE), headers=ada.in_channel())
    ).json()
    assert [row["name"] for row in following["value"]] == ["Bug 0"]
    assert "@odata.nextLink" not in following


async def test_filter_on_assignees_and_text(client, factory: Factory) -> None:
    ada = await factory.member("Ada Lovelace")
    grace = await factory.member("Grace Hopper")
    await make(
        client, ada, "/odata/tasks", name="Ärger mit dem Drucker", assignedTo=[grace.user.id]
    )
    await make(client, ada, "/odata/tasks", name="Printer on fire", assignedTo=[ada.user.id])
    mine = await listing(
        client,
        ada,
        "/odata/tasks",
        **{"$filter": f"assignedTo/any(u: u/email eq '{grace.user.email}')"},
    )
    assert [row["name"] for row in mine["value"]] == ["Ärger mit dem Drucker"]
    folded = await listing(client, ada, "/odata/tasks", **{"$filter": "contains(name, 'ÄRGER')"})
    assert [row["name"] for row in folded["value"]] == ["Ärger mit dem Drucker"]


async def test_bad_query_options_answer_400(client, factory: Factory) -> None:
    ada = await factory.member()
    for options in (
        {"$filter": "nonsense eq 1"},
        {"$filter": "name eq"},
        {"$orderby": "nope"},
        {"$top": "-1"},
        {"$select": "password"},
        {"$expand": "x"},
    ):
        response = await client.get("/odata/bugs", params=options, headers=ada.in_channel())
        assert response.status == 400, options
        assert "error" in await response.json()


async def test_an_option_given_twice_answers_400_naming_it(client, factory: Factory) -> None:
    ada = await factory.member()
    for query, name in (
        ("$filter=name eq 'a'&$filter=name eq 'b'", "$filter"),
        ("$top=1&$orderby=name&$top=2", "$top"),
    ):
        response = await client.get(f"/odata/bugs?{query}", headers=ada.in_channel())
        assert response.status == 400, query
        assert await response.json() == {"error": f"{name} is given more than once"}


async def test_lists_never_show_another_channel(client, factory: Factory) -> None:
    ada = await factory.member()
    await make(client, ada, "/odata/bugs", name="Team A's bug")
    await factory.team("19:team-b@thread.tacv2", name="Team B")
    await factory.channel("19:channel-b@thread.tacv2", team_id="19:team-b@thread.tacv2")
    eve = await factory.member("Eve", team_id="19:team-b@thread.tacv2")
    headers = eve.in_channel(team="19:team-b@thread.tacv2", channel="19:channel-b@thread.tacv2")
    for options in (
        {},
        {"$filter": "channelId eq '19:channel-a@thread.tacv2'"},
        {"$filter": "teamId eq '19:team-a@thread.tacv2'"},
    ):
        body = await (await client.get("/odata/bugs", params=options, headers=headers)).json()
        assert body["value"] == [] and body["@odata.count"] == 0


async def test_status_list_filters_by_type(client, factory: Factory) -> None:
    ada = await factory.member()
    body = await listing(client, ada, "/odata/status", **{"$filter": "type eq 'Bug'"})
    assert body["@odata.count"] == 3
    assert [row["name"] for row in body["value"]] == ["Not Started", "In Progress", "Completed"]
    assert all(row["type"] == "Bug" for row in body["value"])
    everything = await listing(client, ada, "/odata/status")
    assert everything["@odata.count"] == 6
