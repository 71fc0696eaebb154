"""docs/api.md's limits, each enforced at its edge and named in the refusal: request body 1 MiB,
`name` 255 characters, `body` 64 KiB of UTF-8, bulk `ids` 1–1000, `$top` 1000 (clamped, with a
next link), `$filter` 2048 characters and 10 levels of nesting."""

import io
import re
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from sqlalchemy import func, select

from bot.app import ROUTE_TABLES
from bot.db.tables import FieldValue, Item, ItemAssignee
from tests.factories import Factory, Member, insert_copies

MIB = 1024 * 1024
BASE = "http://127.0.0.1:3978"
PATH_PARAMETER = re.compile(r"\{(\w+)(?::[^}]*)?\}")
BODY_ROUTES = [
    pytest.param(endpoint.method, endpoint.path, id=f"{endpoint.method} {endpoint.path}")
    for table in ROUTE_TABLES
    for endpoint in table.endpoints
    if endpoint.body is not None
]


async def create(client: TestClient, member: Member, path: str, **body: Any) -> dict[str, Any]:
    response = await client.post(path, json=body, headers=member.in_channel())
    assert response.status == 201, await response.text()
    return await response.json()


async def refused(
    client: TestClient, member: Member, method: str, path: str, body: Any, status: int = 400
) -> str:
    """The error message of a request that must be refused with `status`."""
    response = await client.request(method, path, json=body, headers=member.in_channel())
    payload = await response.json()
    assert response.status == status, payload
    assert list(payload) == ["error"], payload
    return str(payload["error"])


async def stored(factory: Factory) -> tuple[list[Any], list[Any], list[Any]]:
    """Items, assignees and field values: what a refused request must leave alone."""
    async with factory.work() as uow:
        session = uow.session
        items = list(await session.execute(select(Item.__table__).order_by(Item.id)))
        links = list(
            await session.execute(
                select(ItemAssignee.__table__).order_by(ItemAssignee.item_id, ItemAssignee.user_id)
            )
        )
        values = list(await session.execute(select(FieldValue.__table__).order_by(FieldValue.id)))
    return items, links, values


# --- request body: 1 MiB ---------------------------------------------------------------------


@pytest.mark.parametrize(("method", "path"), BODY_ROUTES)
async def test_a_request_body_over_1_mib_answers_413_naming_the_limit(
    client: TestClient, factory: Factory, method: str, path: str
) -> None:
    ada = await factory.member()
    bug = await create(client, ada, "/odata/bugs", name="Kept")
    before = await stored(factory)
    url = PATH_PARAMETER.sub(bug["_id"], path)
    padded = b'{"name": "x"}' + b" " * (MIB + 1 - len(b'{"name": "x"}'))
    response = await client.request(
        method,
        url,
        data=io.BytesIO(padded),  # streamed: aiohttp warns about large bytes bodies
        headers={**ada.in_channel(), "Content-Type": "application/json"},
    )
    assert response.status == 413
    assert await response.json() == {"error": "Request body is larger than the 1 MiB limit."}
    assert await stored(factory) == before


async def test_a_request_body_of_exactly_1_mib_is_read(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    body = b'{"name": "Padded to the limit"}'
    response = await client.post(
        "/odata/bugs",
        data=io.BytesIO(body + b" " * (MIB - len(body))),
        headers={**ada.in_channel(), "Content-Type": "application/json"},
    )
    assert response.status == 201, await response.text()


# --- string fields: name 255 characters, body 64 KiB of UTF-8 --------------------------------


async def test_a_name_over_255_characters_answers_400_naming_the_limit(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    bug = await create(client, ada, "/odata/bugs", name="ä" * 255)  # characters, not bytes
    status = await create(
        client, ada, "/odata/status", name="s" * 255, type="Task", category="Active"
    )
    before = await stored(factory)
    too_long = "n" * 256
    message = "name: String should have at most 255 characters"
    attempts = [
        ("POST", "/odata/bugs", {"name": too_long}),
        ("POST", "/odata/tasks", {"name": too_long}),
        ("PATCH", f"/odata/bugs('{bug['_id']}')", {"name": too_long}),
        ("POST", "/odata/status", {"name": too_long, "type": "Bug", "category": "New"}),
        ("PATCH", f"/odata/status('{status['_id']}')", {"name": too_long}),
    ]
    for method, path, body in attempts:
        assert await refused(client, ada, method, path, body) == message, (method, path)
    assert await stored(factory) == before


async def test_a_body_over_64_kib_of_utf8_answers_400_naming_the_limit(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    at_limit = "é" * (32 * 1024)  # 65,536 bytes of UTF-8 in 32,768 characters
    assert len(at_limit.encode()) == 64 * 1024
    bug = await create(client, ada, "/odata/bugs", name="Long body", body=at_limit)
    task = await create(client, ada, "/odata/tasks", name="Long body", body="x" * 64 * 1024)
    before = await stored(factory)
    message = "body: Value error, must be at most 64 KiB of UTF-8"
    # Fewer characters than 64 Ki, more bytes: the limit counts UTF-8 bytes.
    for over in (at_limit + "x", "€" * 21846, "x" * (64 * 1024 + 1)):
        assert len(over.encode()) > 64 * 1024
        for method, path, body in (
            ("POST", "/odata/bugs", {"name": "Too long", "body": over}),
            ("POST", "/odata/tasks", {"name": "Too long", "body": over}),
            ("PATCH", f"/odata/bugs('{bug['_id']}')", {"body": over}),
            ("PATCH", f"/odata/tasks('{task['_id']}')", {"body": over}),
        ):
            assert await refused(client, ada, method, path, body) == message, (method, path)
    assert await stored(factory) == before


# --- bulk ids: 1 to 1000 ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "message"),
    [
        (0, "ids: List should have at least 1 item after validation, not 0"),
        (1001, "ids: List should have at most 1000 items after validation, not 1001"),
    ],
)
async def test_bulk_ids_outside_1_to_1000_answer_400_naming_the_limit(
    client: TestClient, factory: Factory, count: int, message: str
) -> None:
    ada = await factory.member()
    bug = await create(client, ada, "/odata/bugs", name="Kept")
    before = await stored(factory)
    body = {"ids": [bug["_id"]] * count, "priority": "Low"}
    for kind in ("bug", "task"):
        assert await refused(client, ada, "POST", f"/api/bulk/{kind}", body) == message
    assert await stored(factory) == before


async def test_bulk_edit_of_1000_ids_is_accepted(client: TestClient, factory: Factory) -> None:
    ada = await factory.member()
    bug = await create(client, ada, "/odata/bugs", name="Edited")
    ids = [bug["_id"], *(f"{n:024x}" for n in range(999))]  # unknown ids answer for themselves
    response = await client.post(
        "/api/bulk/bug", json={"ids": ids, "priority": "Low"}, headers=ada.in_channel()
    )
    assert response.status == 200, await response.text()
    results = await response.json()
    assert len(results) == 1000
    assert results[0] == {"_id": bug["_id"], "name": "Edited", "status": "success"}
    assert {result["error"] for result in results[1:]} == {"Svc_NOTFOUND"}


# --- $top: at most 1000, clamped with a next link --------------------------------------------


async def test_top_over_1000_is_clamped_to_1000_with_a_next_link(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    first = await create(client, ada, "/odata/bugs", name="Many")
    await insert_copies(factory, first["_id"], 1000)
    async with factory.work() as uow:
        assert await uow.session.scalar(select(func.count()).select_from(Item)) == 1001

    response = await client.get(
        "/odata/bugs", params={"$top": "5000", "$select": "internalId"}, headers=ada.in_channel()
    )
    assert response.status == 200, await response.text()
    page = await response.json()
    assert len(page["value"]) == 1000
    assert page["@odata.count"] == 1001
    next_link = page["@odata.nextLink"]
    assert next_link.startswith(f"{BASE}/odata/bugs?")
    assert "%24top=1000" in next_link or "$top=1000" in next_link, next_link

    following = await client.get(next_link.removeprefix(BASE), headers=ada.in_channel())
    assert following.status == 200, await following.text()
    rest = await following.json()
    assert "@odata.nextLink" not in rest
    numbers = [row["internalId"] for row in page["value"] + rest["value"]]
    assert sorted(numbers) == list(range(1, 1002))  # every row once across the two pages


async def test_top_of_1000_or_less_is_kept(client: TestClient, factory: Factory) -> None:
    ada = await factory.member()
    for top in ("1000", "3"):
        response = await client.get("/odata/status", params={"$top": top}, headers=ada.in_channel())
        page = await response.json()
        assert response.status == 200, page
        assert len(page["value"]) == min(int(top), 6) and page["@odata.count"] == 6
        assert ("@odata.nextLink" in page) == (top == "3")


# --- $filter: 2048 characters, 10 levels -----------------------------------------------------


async def test_a_filter_over_2048_characters_answers_400_naming_the_limit(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    await create(client, ada, "/odata/bugs", name="Needle")
    clause = "name eq '"
    at_limit = clause + "x" * (2048 - len(clause) - 1) + "'"
    assert len(at_limit) == 2048
    response = await client.get(
        "/odata/bugs", params={"$filter": at_limit}, headers=ada.in_channel()
    )
    assert response.status == 200, await response.text()
    assert (await response.json())["value"] == []
    over = clause + "x" * (2048 - len(clause)) + "'"
    for text in (over, "name eq 'Needle' or " + over):
        response = await client.get(
            "/odata/bugs", params={"$filter": text}, headers=ada.in_channel()
        )
        assert response.status == 400
        assert await response.json() == {
            "error": "Invalid $filter: it is longer than 2048 characters"
        }


@pytest.mark.parametrize(("opening", "levels"), [("(", 1), ("not (", 2)], ids=["parens", "not"])
async def test_a_filter_nested_deeper_than_10_answers_400_naming_the_limit(
    client: TestClient, factory: Factory, opening: str, levels: int
) -> None:
    """Each `(` is a level; `not (` two (the `not` waits for its operand inside)."""
    ada = await factory.member()
    await create(client, ada, "/odata/bugs", name="Needle")
    await create(client, ada, "/odata/bugs", name="Haystack")

    async def ask(wraps: int) -> tuple[int, Any]:
        text = opening * wraps + "name eq 'Needle'" + ")" * wraps
        response = await client.get(
            "/odata/bugs", params={"$filter": text}, headers=ada.in_channel()
        )
        return response.status, await response.json()

    wraps = 10 // levels  # exactly 10 levels
    status, payload = await ask(wraps)
    assert status == 200, payload
    negated = opening.startswith("not") and wraps % 2 == 1
    assert [row["name"] for row in payload["value"]] == ["Haystack" if negated else "Needle"]
    for deeper in (wraps + 1, 2 * wraps, 100 // levels):
        assert await ask(deeper) == (
            400,
            {"error": "Invalid $filter: it is nested deeper than 10 levels"},
        ), deeper


def test_every_route_with_a_body_is_in_the_413_test() -> None:
    """The 413 test is generated from the route table; it must not come out empty."""
    assert {tuple(param.values) for param in BODY_ROUTES} >= {
        ("POST", "/odata/bugs"),
        ("POST", "/api/bulk/task"),
        ("PATCH", "/odata/status({key})"),
    }


async def test_a_2kb_filter_of_non_ascii_text_reaches_the_app(client, factory: Factory) -> None:
    """Percent-encoded, 2,000 emoji make a request line of about 24 KB: still answered in JSON."""
    ada = await factory.member()
    response = await client.get(
        "/odata/bugs", params={"$filter": f"name eq '{'😀' * 2000}'"}, headers=ada.in_channel()
    )
    assert response.status == 200
    assert (await response.json())["value"] == []
