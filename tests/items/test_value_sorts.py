"""Lists sorted by status, priority or severity are read value by value (`bot.items.value_sorts`):
whatever the items hold (names outside the catalogue, case variants of one name, no severity),
whatever the filter, paging and direction, every page is the one the plain `ORDER BY` gives."""

from typing import Any
from unittest import mock

import pytest
from aiohttp.test_utils import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import update
from yarl import URL

from bot.db.tables import Item
from bot.items import value_sorts
from tests.factories import Factory, Member

BUGS = 12
# Catalogue names, their case variants, and names no value of the channel has.
STATUSES = ["Not Started", "In Progress", "Completed", "in progress", "Invalid", "Zzz gone"]
PRIORITIES = ["Urgent", "High", "Normal", "Low", "high", "Ärger", "ärger", "  spaced"]
SEVERITIES = ["Critical", "High", "Medium", "Low", "critical", "Ω gone", None]
FILTERS = [
    None,
    "status eq 'In Progress'",
    "priority eq 'High' or severity eq null",
    "not assignedTo/any()",
    "dueDate eq null",
    "contains(name,'2')",
]

EXAMPLES = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    # The app and its bugs are made once per test; each example rewrites their values.
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture
async def bugs(client: TestClient, factory: Factory) -> tuple[Member, list[str]]:
    ada = await factory.member()
    ids = []
    for number in range(BUGS):
        body: dict[str, Any] = {"name": f"Bug {number}"}
        if number % 3:
            body["dueDate"] = f"2026-12-{1 + number:02d}"
        if number % 4 == 0:
            body["assignedTo"] = [ada.user.id]
        response = await client.post("/odata/bugs", json=body, headers=ada.in_channel())
        assert response.status == 201, await response.text()
        ids.append((await response.json())["_id"])
        # A task in the same channel, which no bug list may show.
        response = await client.post("/odata/tasks", json=body, headers=ada.in_channel())
        assert response.status == 201, await response.text()
    return ada, ids


async def pages(client: TestClient, member: Member, params: dict[str, str]) -> list[Any]:
    """Every page of the list (its ids and count), following its next links."""
    response = await client.get("/odata/bugs", params=params, headers=member.in_channel())
    found = []
    for _ in range(3 * BUGS):  # bounded: a broken cursor must fail, not loop
        assert response.status == 200, await response.text()
        body = await response.json()
        found.append(([row["_id"] for row in body["value"]], body.get("@odata.count")))
        if "@odata.nextLink" not in body:
            return found
        path = URL(body["@odata.nextLink"]).path_qs
        response = await client.get(path, headers=member.in_channel())
    raise AssertionError("the next links never ended")


values = st.tuples(
    st.sampled_from(STATUSES), st.sampled_from(PRIORITIES), st.sampled_from(SEVERITIES)
)


@EXAMPLES
@given(
    held=st.lists(values, min_size=BUGS, max_size=BUGS),
    field=st.sampled_from(sorted(value_sorts.FIELDS)),
    descending=st.booleans(),
    filter_=st.sampled_from(FILTERS),
    top=st.sampled_from([1, 2, 5, 1000]),
    skip=st.sampled_from([0, 1, 4]),
    count=st.booleans(),
)
async def test_a_value_sorted_list_gives_the_plain_sorts_pages(
    client: TestClient,
    factory: Factory,
    bugs: tuple[Member, list[str]],
    held: list[tuple[str, str, str | None]],
    field: str,
    descending: bool,
    filter_: str | None,
    top: int,
    skip: int,
    count: bool,
) -> None:
    ada, ids = bugs
    async with factory.work() as uow:
        for item_id, (status, priority, severity) in zip(ids, held, strict=True):
            values = {"status": status, "priority": priority, "severity": severity}
            await uow.execute(update(Item).where(Item.id == item_id).values(**values))
    params = {
        "$orderby": f"{field} desc" if descending else field,
        "$top": str(top),
        "$skip": str(skip),
        "$count": "true" if count else "false",
    }
    if filter_ is not None:
        params["$filter"] = filter_
    by_value = await pages(client, ada, params)
    with mock.patch.object(value_sorts, "sorted_field", lambda _query: None):
        plain = await pages(client, ada, params)
    assert by_value == plain


async def test_a_sort_with_another_key_after_the_value_is_read_the_plain_way(
    client: TestClient, bugs: tuple[Member, list[str]]
) -> None:
    ada, ids = bugs
    params = {"$orderby": "status,dueDate desc", "$top": "5"}
    with mock.patch.object(value_sorts.ValueSortedPages, "rows") as by_value:
        found = await pages(client, ada, params)
    by_value.assert_not_called()
    assert sorted(row for page, _count in found for row in page) == sorted(ids)
