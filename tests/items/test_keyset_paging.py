"""Next links page by keyset: following them yields every row once, in order, whatever the sort."""

import base64
import json

import pytest
from yarl import URL

from tests.factories import Factory

BASE = "http://127.0.0.1:3978"


async def ids_by_next_links(client, member, options: dict[str, str]) -> list[str]:  # noqa: ANN001
    response = await client.get("/odata/tasks", params=options, headers=member.in_channel())
    assert response.status == 200, await response.text()
    body = await response.json()
    seen = [row["_id"] for row in body["value"]]
    for _ in range(100):  # bounded: a broken cursor must fail, not loop
        if "@odata.nextLink" not in body:
            break
        link = URL(body["@odata.nextLink"])
        assert "$skip" not in link.query and "$skiptoken" in link.query
        response = await client.get(link.path_qs, headers=member.in_channel())
        assert response.status == 200, await response.text()
        body = await response.json()
        seen += [row["_id"] for row in body["value"]]
    assert "@odata.nextLink" not in body, "the next links never ended"
    return seen


@pytest.mark.parametrize(
    "orderby",
    [
        None,
        "dueDate desc",
        "dueDate",
        "name",
        "name desc,priority",
        "priority,dueDate desc",
        "internalId desc",
        "completedDate,name",
        "status desc",
        "updatedAt",
    ],
)
async def test_following_next_links_lists_every_row_once_in_order(
    client, factory: Factory, orderby: str | None
) -> None:
    ada = await factory.member()
    names = ["alpha", "Alpha", "beta", "ÄRGER", "ärger", "gamma", "Gamma", "delta"]
    for number in range(23):
        body = {
            "name": names[number % len(names)],
            "priority": ["High", "Low", "Normal"][number % 3],
            # Some without a due date, several sharing one: ties and nulls across page breaks.
            "dueDate": None if number % 4 == 0 else f"2026-12-{1 + number % 5:02d}",
            "status": "Completed" if number % 5 == 0 else "Not Started",
        }
        assert (
            await client.post("/odata/tasks", json=body, headers=ada.in_channel())
        ).status == 201
    options = {"$orderby": orderby} if orderby else {}
    whole = await client.get(
        "/odata/tasks", params={**options, "$top": "1000"}, headers=ada.in_channel()
    )
    expected = [row["_id"] for row in (await whole.json())["value"]]
    paged = await ids_by_next_links(client, ada, {**options, "$top": "4"})
    assert paged == expected
    assert len(set(paged)) == 23


async def test_a_filter_applies_on_every_page(client, factory: Factory) -> None:
    ada = await factory.member()
    for number in range(9):
        status = "In Progress" if number % 3 else "Not Started"
        await client.post(
            "/odata/tasks", json={"name": f"t{number}", "status": status}, headers=ada.in_channel()
        )
    paged = await ids_by_next_links(
        client, ada, {"$filter": "status eq 'In Progress'", "$top": "2", "$orderby": "name"}
    )
    assert len(paged) == 6


@pytest.mark.parametrize("token", ["%%%", "bm90IGpzb24", "WyJhIl0", "WzEsMiwzXQ"])
async def test_a_token_this_service_did_not_make_answers_400(
    client, factory: Factory, token: str
) -> None:
    ada = await factory.member()
    response = await client.get(
        "/odata/tasks",
        params={"$skiptoken": token, "$orderby": "dueDate"},
        headers=ada.in_channel(),
    )
    assert response.status == 400
    assert (await response.json())["error"].startswith("Invalid $skiptoken: ")


@pytest.mark.parametrize(
    ("orderby", "values"),
    [
        ("internalId", [2**63]),  # numbers are unique: no id after them
        ("internalId", [2**31]),
        ("dueDate", ["2026-11-21T09:30:00", "a"]),
        ("dueDate", ["0001-01-01T00:00:00+05:00", "a"]),
        ("name", ["a\u0000", "a"]),
    ],
)
async def test_a_token_with_values_no_column_holds_answers_400(
    client, factory: Factory, orderby: str, values: list
) -> None:
    ada = await factory.member()
    token = base64.urlsafe_b64encode(json.dumps(values).encode()).decode().rstrip("=")
    response = await client.get(
        "/odata/bugs", params={"$skiptoken": token, "$orderby": orderby}, headers=ada.in_channel()
    )
    assert response.status == 400
    assert (await response.json())["error"].startswith("Invalid $skiptoken: ")
