"""Dates in item requests: ISO 8601 strings in the extended format only (docs/api.md). Numbers,
digit strings and the basic format were read as Unix seconds and stored as 1970 dates."""

from typing import Any

import pytest

from tests.factories import Factory
from tests.items.refusals import create, stored

NOT_A_DATE = (
    "Value error, must be an ISO 8601 date or date-time in the extended format "
    "(2026-12-01, 2026-12-01T09:30:00Z, 2026-12-01T09:30:00+02:00)"
)

REFUSED = [
    pytest.param("20261201", id="basic-format-date"),
    pytest.param("20261201T093000Z", id="basic-format-date-time"),
    pytest.param("1700000000", id="digit-string"),
    pytest.param(1700000000000, id="milliseconds-number"),
    pytest.param(1700000000, id="seconds-number"),
    pytest.param(1.5, id="float"),
    pytest.param(True, id="boolean"),
    pytest.param("2026-12-01 09:30:00", id="space-for-T"),
    pytest.param("2026-W48-2", id="week-date"),
    pytest.param("2026-02-30", id="no-such-day"),
    pytest.param("soon", id="words"),
]

ACCEPTED = [
    pytest.param("2026-12-01", "2026-12-01T00:00:00.000Z", id="date"),
    pytest.param("2026-12-01T09:30", "2026-12-01T09:30:00.000Z", id="minutes-no-offset"),
    pytest.param("2026-12-01T09:30:00.25Z", "2026-12-01T09:30:00.250Z", id="fraction"),
    pytest.param("2026-12-01T09:30:00+02:00", "2026-12-01T07:30:00.000Z", id="offset"),
    pytest.param("2026-12-01t09:30:00z", "2026-12-01T09:30:00.000Z", id="rfc-3339-lowercase"),
]


@pytest.mark.parametrize("field", ["startDate", "dueDate", "completedDate"])
@pytest.mark.parametrize("value", REFUSED)
async def test_a_date_not_in_the_extended_format_is_refused_on_create_and_patch(
    client, factory: Factory, field: str, value: Any
) -> None:
    ada = await factory.member()
    bug = await create(client, ada)
    before = await stored(factory)
    expected = (400, {"error": f"{field}: {NOT_A_DATE}"})
    created = await client.post(
        "/odata/bugs", json={"name": "x", field: value}, headers=ada.in_channel()
    )
    assert (created.status, await created.json()) == expected
    patched = await client.patch(
        f"/odata/bugs({bug['_id']})", json={field: value}, headers=ada.in_channel()
    )
    assert (patched.status, await patched.json()) == expected
    assert await stored(factory) == before


@pytest.mark.parametrize("value", REFUSED)
async def test_a_date_not_in_the_extended_format_is_refused_by_bulk_edit(
    client, factory: Factory, value: Any
) -> None:
    ada = await factory.member()
    bug = await create(client, ada)
    before = await stored(factory)
    response = await client.post(
        "/api/bulk/bug", json={"ids": [bug["_id"]], "dueDate": value}, headers=ada.in_channel()
    )
    assert (response.status, await response.json()) == (400, {"error": f"dueDate: {NOT_A_DATE}"})
    assert await stored(factory) == before


@pytest.mark.parametrize(("value", "shown"), ACCEPTED)
async def test_an_extended_format_date_is_stored_as_that_instant_in_utc(
    client, factory: Factory, value: str, shown: str
) -> None:
    ada = await factory.member()
    bug = await create(client, ada, dueDate=value)
    assert bug["dueDate"] == shown
    response = await client.post(
        "/api/bulk/bug", json={"ids": [bug["_id"]], "startDate": value}, headers=ada.in_channel()
    )
    assert response.status == 200
    details = await client.get(f"/api/bugs/{bug['_id']}/details", headers=ada.in_channel())
    assert (await details.json())["startDate"] == shown


async def test_a_filter_date_in_the_basic_format_is_refused(client, factory: Factory) -> None:
    ada = await factory.member()
    await create(client, ada, dueDate="2026-12-01")
    response = await client.get(
        "/odata/bugs",
        params={"$filter": "dueDate eq '$date:20261201'"},
        headers=ada.in_channel(),
    )
    assert response.status == 400
    assert "'20261201' is not a valid date and time" in (await response.json())["error"]
