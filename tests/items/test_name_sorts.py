"""Lists sorted by a name (status, priority, severity, title): by the name without case, ties by
id the sort's way, paged by next links, and following renames of statuses and priorities."""

import pytest
from yarl import URL

from tests.factories import Factory

NAMES = ["alpha", "Alpha", "beta", "ÄRGER", "ärger", "Gamma", "delta"]
STATUSES = ["Not Started", "In Progress", "Completed"]
PRIORITIES = ["Urgent", "High", "Normal", "Low"]
SEVERITIES = ["Critical", "High", "Medium", "Low"]
FIELDS = {"status": "status", "priority": "priority", "severity": "severity", "name": "name"}


async def fill(client, member, count: int = 17) -> list[dict]:  # noqa: ANN001
    """Bugs sharing names, statuses, priorities and severities: ties everywhere."""
    made = []
    for number in range(count):
        body = {
            "name": NAMES[number % len(NAMES)],
            "status": STATUSES[number % len(STATUSES)],
            "priority": PRIORITIES[number * 3 % len(PRIORITIES)],
            "severity": SEVERITIES[number % len(SEVERITIES)],
            "dueDate": None if number % 4 == 0 else f"2026-12-{1 + number % 5:02d}",
        }
        response = await client.post("/odata/bugs", json=body, headers=member.in_channel())
        assert response.status == 201, await response.text()
        made.append(await response.json())
    return made


async def listed(client, member, **options: str) -> list[dict]:  # noqa: ANN001
    """Every row of the list, following its next links."""
    response = await client.get("/odata/bugs", params=options, headers=member.in_channel())
    assert response.status == 200, await response.text()
    body = await response.json()
    rows = body["value"]
    for _ in range(100):  # bounded: a broken cursor must fail, not loop
        if "@odata.nextLink" not in body:
            return rows
        response = await client.get(
            URL(body["@odata.nextLink"]).path_qs, headers=member.in_channel()
        )
        assert response.status == 200, await response.text()
        body = await response.json()
        rows += body["value"]
    raise AssertionError("the next links never ended")


def by_name(rows: list[dict], field: str, descending: bool) -> list[str]:
    """The ids in the order the API promises: the name folded, then the id, the same way."""
    ordered = sorted(rows, key=lambda row: (row[field].lower(), row["_id"]), reverse=descending)
    return [row["_id"] for row in ordered]


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("field", list(FIELDS))
async def test_a_name_sort_orders_by_the_name_without_case_ties_by_id(
    client, factory: Factory, field: str, descending: bool
) -> None:
    ada = await factory.member()
    made = await fill(client, ada)
    orderby = f"{field} desc" if descending else field
    whole = await listed(client, ada, **{"$orderby": orderby, "$top": "1000"})
    assert [row["_id"] for row in whole] == by_name(made, field, descending)
    paged = await listed(client, ada, **{"$orderby": orderby, "$top": "3"})
    assert [row["_id"] for row in paged] == [row["_id"] for row in whole]


@pytest.mark.parametrize(
    ("orderby", "filter_"),
    [
        ("status,dueDate desc", None),  # a nullable key after the name: nulls across pages
        ("priority desc,name", None),
        ("severity", "status eq 'In Progress'"),
        ("name desc", "dueDate eq null or priority eq 'High'"),
        ("status desc", "not assignedTo/any()"),
    ],
)
async def test_next_links_of_a_name_sort_list_every_row_once_in_order(
    client, factory: Factory, orderby: str, filter_: str | None
) -> None:
    ada = await factory.member()
    await fill(client, ada, 23)
    options = {"$orderby": orderby} | ({"$filter": filter_} if filter_ else {})
    whole = [row["_id"] for row in await listed(client, ada, **options, **{"$top": "1000"})]
    paged = [row["_id"] for row in await listed(client, ada, **options, **{"$top": "2"})]
    assert paged == whole
    assert len(set(paged)) == len(paged) > 2


async def _level_id(client, member, path: str, name: str) -> str:  # noqa: ANN001
    response = await client.get(
        path, params={"$filter": "type eq 'Bug'", "$top": "1000"}, headers=member.in_channel()
    )
    assert response.status == 200, await response.text()
    return next(level["_id"] for level in (await response.json())["value"] if level["name"] == name)


async def test_renaming_a_status_moves_its_items_in_the_status_sort(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    made = await fill(client, ada, 9)
    completed = await _level_id(client, ada, "/odata/status", "Completed")
    response = await client.patch(
        f"/odata/status({completed})", json={"name": "Abandoned"}, headers=ada.in_channel()
    )
    assert response.status == 204, await response.text()
    for row in made:
        row["status"] = "Abandoned" if row["status"] == "Completed" else row["status"]
    rows = await listed(client, ada, **{"$orderby": "status", "$top": "2"})
    assert [row["status"] for row in rows][:3] == ["Abandoned"] * 3
    assert [row["_id"] for row in rows] == by_name(made, "status", descending=False)


async def test_renaming_a_priority_moves_its_items_in_the_priority_sort(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    made = await fill(client, ada, 9)
    low = await _level_id(client, ada, "/api/priority", "Low")
    response = await client.patch(
        f"/odata/priority({low})", json={"name": "zzz later"}, headers=ada.in_channel()
    )
    assert response.status == 204, await response.text()
    for row in made:
        row["priority"] = "zzz later" if row["priority"] == "Low" else row["priority"]
    rows = await listed(client, ada, **{"$orderby": "priority desc", "$top": "2"})
    assert rows[0]["priority"] == "zzz later"
    assert [row["_id"] for row in rows] == by_name(made, "priority", descending=True)


async def test_reordering_statuses_reorders_them_and_the_list_keeps_sorting_by_name(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    made = await fill(client, ada, 9)
    before = await listed(client, ada, **{"$orderby": "status desc", "$top": "4"})
    in_progress = await _level_id(client, ada, "/odata/status", "In Progress")
    response = await client.patch(
        f"/odata/status({in_progress})", json={"order": 0}, headers=ada.in_channel()
    )
    assert response.status == 204, await response.text()
    statuses = await client.get(
        "/odata/status", params={"$filter": "type eq 'Bug'"}, headers=ada.in_channel()
    )
    assert [s["name"] for s in (await statuses.json())["value"]][0] == "In Progress"
    after = await listed(client, ada, **{"$orderby": "status desc", "$top": "4"})
    # `$orderby=status` sorts by the name (docs/api.md); the order is the board's columns'.
    assert [row["_id"] for row in after] == [row["_id"] for row in before]
    assert [row["_id"] for row in after] == by_name(made, "status", descending=True)


async def test_the_tabs_filters_keep_a_priority_sort(client, factory: Factory) -> None:
    ada = await factory.member("Ada Lovelace")
    grace = await factory.member("Grace Hopper")
    made = await fill(client, ada, 12)
    for row in made[::3]:
        response = await client.patch(
            f"/odata/bugs({row['_id']})",
            json={"assignedTo": [grace.user.id]},
            headers=ada.in_channel(),
        )
        assert response.status == 204, await response.text()
    chosen = {row["_id"] for row in made[::3]}
    filters = {
        f"assignedTo/any(u: u/_id eq '{grace.user.id}')": lambda row: row["_id"] in chosen,
        "not assignedTo/any()": lambda row: row["_id"] not in chosen,
        "dueDate lt 2026-12-03T00:00:00Z and completedDate eq null": lambda row: bool(
            row["dueDate"] and row["dueDate"] < "2026-12-03" and not row["completedDate"]
        ),
        "dueDate eq null": lambda row: row["dueDate"] is None,
        "(contains(name,'ÄR') or contains(body,'ÄR'))": lambda row: "är" in row["name"].lower(),
    }
    for filter_, keeps in filters.items():
        rows = await listed(
            client, ada, **{"$filter": filter_, "$orderby": "priority", "$top": "2"}
        )
        expected = by_name([row for row in made if keeps(row)], "priority", descending=False)
        assert [row["_id"] for row in rows] == expected, filter_
        assert expected, filter_


async def test_a_renamed_item_sorts_by_its_new_name(client, factory: Factory) -> None:
    ada = await factory.member()
    made = await fill(client, ada, count=5)
    renamed = made[0]["_id"]
    response = await client.patch(
        f"/odata/bugs('{renamed}')", json={"name": "ZZZ last"}, headers=ada.in_channel()
    )
    assert response.status < 300, await response.text()
    made[0]["name"] = "ZZZ last"
    for descending in (False, True):
        orderby = "name desc" if descending else "name"
        whole = await listed(client, ada, **{"$orderby": orderby, "$top": "2"})
        assert [row["_id"] for row in whole] == by_name(made, "name", descending)
