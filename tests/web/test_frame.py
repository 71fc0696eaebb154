"""The HTTP frame every route shares: request ids, error bodies, body parsing, personal context."""

import io
import logging

import pytest
from pydantic import BaseModel, Field

from bot.app import create_app
from bot.db.migrate import head_revision
from bot.errors import MUST_RUN_IN_TEAMS
from bot.web.routing import Access, Call, RouteTable, install
from tests.factories import Factory

probe = RouteTable(tag="probe")


class Note(BaseModel):
    title: str = Field(max_length=10)
    count: int = 0


@probe.route(
    "POST",
    "/probe/notes",
    access=Access.USER,
    body=Note,
    response=Note,
    status=201,
    summary="echo a note",
)
async def echo_note(call: Call) -> Note:
    return call.body


@probe.route("GET", "/probe/personal", access=Access.PERSONAL, response=Note, summary="personal")
async def personal(call: Call) -> Note:
    return Note(title=call.entity_id or "")


@probe.route("GET", "/probe/boom", access=Access.PUBLIC, summary="fails")
async def boom(_call: Call) -> None:
    raise RuntimeError("SELECT secret FROM users -- must never reach a client")


@pytest.fixture
async def probed(settings, clock, aiohttp_client):  # noqa: ANN001, ANN201
    app = create_app(settings, clock=clock)
    install(app, [probe])
    return await aiohttp_client(app)


async def test_every_response_carries_a_request_id_of_its_own(client) -> None:
    ids = set()
    for path in ("/healthz", "/api/me", "/no/such/path", "/healthz"):
        response = await client.get(path)
        assert len(response.headers["x-request-id"]) == 32
        ids.add(response.headers["x-request-id"])
    assert len(ids) == 4


async def test_a_client_request_id_is_kept(client) -> None:
    response = await client.get("/api/me", headers={"x-request-id": "tab-42.retry:1"})
    assert response.headers["x-request-id"] == "tab-42.retry:1"


@pytest.mark.parametrize("sent", ["has spaces", "x" * 129, "line\\nbreak"])
async def test_an_unsafe_request_id_is_replaced(client, sent: str) -> None:
    response = await client.get("/healthz", headers={"x-request-id": sent})
    assert response.headers["x-request-id"] != sent
    assert len(response.headers["x-request-id"]) == 32


async def test_unknown_path_answers_json_404(client) -> None:
    response = await client.get("/api/nothing-here")
    assert response.status == 404
    assert await response.json() == {"error": "No such resource: /api/nothing-here"}


async def test_wrong_method_answers_json_405(client) -> None:
    response = await client.put("/api/me")
    assert response.status == 405
    assert await response.json() == {"error": "Method PUT is not allowed on /api/me."}
    assert response.headers["Allow"] == "GET"  # RFC 9110: a 405 names the methods there are


async def test_trace_answers_405_naming_the_methods_the_path_has(client) -> None:
    response = await client.request("TRACE", "/api/projects")
    assert response.status == 405
    assert set(response.headers["Allow"].split(",")) == {"GET", "POST"}
    assert response.content_type == "application/json"


async def test_unexpected_failure_is_a_bare_500_logged_once(probed, caplog) -> None:
    with caplog.at_level(logging.ERROR):
        response = await probed.get("/probe/boom", headers={"x-request-id": "trace-me"})
    assert response.status == 500
    assert await response.json() == {"error": "Internal error"}
    assert response.headers["x-request-id"] == "trace-me"
    errors = [record for record in caplog.records if record.levelno >= logging.ERROR]
    assert len(errors) == 1
    assert "RuntimeError" in errors[0].exc_text


async def test_a_valid_body_reaches_the_handler(probed, factory: Factory) -> None:
    member = await factory.member()
    response = await probed.post(
        "/probe/notes", json={"title": "hi", "count": 2, "_id": "x"}, headers=member.headers
    )
    assert response.status == 201
    assert await response.json() == {"title": "hi", "count": 2}


async def test_malformed_json_answers_400(probed, factory: Factory) -> None:
    member = await factory.member()
    response = await probed.post(
        "/probe/notes",
        data=b'{"title": ',
        headers={**member.headers, "Content-Type": "application/json"},
    )
    assert response.status == 400
    assert (await response.json())["error"].startswith("Malformed JSON")


async def test_wrong_types_name_the_field(probed, factory: Factory) -> None:
    member = await factory.member()
    response = await probed.post(
        "/probe/notes", json={"title": "ok", "count": "many"}, headers=member.headers
    )
    assert response.status == 400
    assert (await response.json())["error"].startswith("count: ")


async def test_a_field_over_its_limit_names_the_limit(probed, factory: Factory) -> None:
    member = await factory.member()
    response = await probed.post("/probe/notes", json={"title": "x" * 11}, headers=member.headers)
    assert response.status == 400
    assert await response.json() == {"error": "title: String should have at most 10 characters"}


async def test_non_json_content_type_answers_415(probed, factory: Factory) -> None:
    member = await factory.member()
    response = await probed.post(
        "/probe/notes",
        data="title=hi",
        headers={**member.headers, "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert response.status == 415
    assert await response.json() == {"error": "Content-Type must be application/json."}


async def test_a_body_over_one_mebibyte_answers_413(probed, factory: Factory) -> None:
    member = await factory.member()
    response = await probed.post(
        "/probe/notes",
        data=io.BytesIO(b"x" * (1024 * 1024 + 1)),
        headers={**member.headers, "Content-Type": "application/json"},
    )
    assert response.status == 413
    assert await response.json() == {"error": "Request body is larger than the 1 MiB limit."}


async def test_body_errors_come_after_authentication(probed) -> None:
    response = await probed.post("/probe/notes", data=b"{", headers={"Content-Type": "text/plain"})
    assert response.status == 401


async def test_personal_routes_need_the_entity_id(probed, factory: Factory) -> None:
    member = await factory.member()
    missing = await probed.get("/probe/personal", headers=member.headers)
    assert missing.status == 400
    assert await missing.json() == {"code": MUST_RUN_IN_TEAMS, "message": MUST_RUN_IN_TEAMS}
    given = await probed.get(
        "/probe/personal", headers={**member.headers, "x-svc-entityId": "my-tasks"}
    )
    assert given.status == 200
    assert await given.json() == {"title": "my-tasks", "count": 0}


async def test_health_and_readiness(client) -> None:
    assert await (await client.get("/healthz")).json() == {"status": "ok"}
    ready = await client.get("/readyz")
    assert ready.status == 200
    assert await ready.json() == {"status": "ready", "revision": head_revision()}
