"""Creates of values racing one another: tens of parallel requests keep names unique and the
severity limit, each refusal the documented answer and none a 500. On PostgreSQL a row lock on the
kind's values did not cover the rows a concurrent create inserted (`bot.fields.catalog_locks`);
SQLite's writers take turns anyway, and run the same tests."""

import asyncio
import json

import pytest
from aiohttp.test_utils import TestClient

from tests.factories import Factory, Member
from tests.fields.helpers import field_values
from tests.items.test_concurrency import send


async def _create_all(
    client: TestClient, member: Member, path: str, bodies: list[dict[str, object]]
) -> list[tuple[int, dict[str, str]]]:
    """Every body POSTed to `path` at once; the answers in order, bodies parsed."""
    answers = await asyncio.gather(
        *(send(client, "POST", path, json=body, headers=member.in_channel()) for body in bodies)
    )
    return [(status, json.loads(text)) for status, text in answers]


@pytest.mark.parametrize(
    ("path", "field", "extra", "label"),
    [
        pytest.param("/odata/status", "status", {"category": "Active"}, "Status", id="status"),
        pytest.param("/odata/priority", "priority", {}, "Priority", id="priority"),
        pytest.param("/odata/severity", "severity", {}, "Severity", id="severity"),
    ],
)
async def test_30_parallel_creates_of_one_name_make_one_and_refuse_the_rest(
    client: TestClient,
    factory: Factory,
    path: str,
    field: str,
    extra: dict[str, object],
    label: str,
) -> None:
    ada = await factory.member()
    # The same name in two cases: names compare without case.
    bodies = [{"name": "Zap" if n % 2 else "ZAP", "type": "Bug", **extra} for n in range(30)]
    answers = await _create_all(client, ada, path, bodies)
    exists = f"{label} already existed."
    assert sorted(status for status, _ in answers) == [201] + [400] * 29, answers
    refusals = [body for status, body in answers if status == 400]
    assert all(body == {"code": exists, "message": exists} for body in refusals), refusals
    stored = await field_values(factory, field)
    assert [name for name in stored if name.casefold() == "zap"] == [
        next(body["name"] for status, body in answers if status == 201)
    ]


async def test_12_parallel_severity_creates_in_a_fresh_channel_stop_at_8(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    assert len(await field_values(factory, "severity")) == 4  # the defaults
    bodies = [{"name": f"Level {n}"} for n in range(12)]
    answers = await _create_all(client, ada, "/odata/severity", bodies)
    assert sorted(status for status, _ in answers) == [201] * 4 + [400] * 8, answers
    refusals = [body["error"] for status, body in answers if status == 400]
    assert all("at most 8 severities" in error for error in refusals), refusals
    assert len(await field_values(factory, "severity")) == 8
