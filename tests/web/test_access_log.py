"""One access line per request: its id, the user and channel once known, the route template,
the status and the latency; never the raw path or query, and not aiohttp's own line."""

import logging

import aiohttp
from aiohttp.test_utils import TestClient

from bot.app import create_app
from bot.clock import FrozenClock
from tests.factories import Factory, create_item
from tests.logged import captured
from tests.web.served import served


async def test_a_channel_request_is_one_line_with_its_ids_route_status_and_latency(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member("Ada")
    bug = await create_item(client, ada)
    with captured(logging.INFO) as out:
        response = await client.get(
            f"/api/bugs/{bug['_id']}/details?$select=name",
            headers={**ada.in_channel(), "x-request-id": "trace-42"},
        )
    assert response.status == 200
    [line] = out.of("bot.access")
    assert line.pop("latency_ms") >= 0
    assert line.pop("channel_id") and line.pop("time")
    assert line == {
        "level": "INFO",
        "logger": "bot.access",
        "message": line["message"],
        "request_id": "trace-42",
        "user_id": ada.user.id,
        "method": "GET",
        "route": "/api/bugs/{id}/details",
        "status": 200,
    }
    assert line["message"].startswith("GET /api/bugs/{id}/details 200 ")
    assert bug["_id"] not in out.everything() and "select" not in out.everything()


async def test_a_refused_request_is_logged_with_the_status_it_was_answered(
    client: TestClient,
) -> None:
    with captured(logging.INFO) as out:
        await client.get("/api/me")
        await client.delete("/healthz")
        await client.get("/no/such/path")
    statuses = [(line["route"], line["status"]) for line in out.of("bot.access")]
    assert statuses == [("/api/me", 401), ("(unmatched)", 405), ("(unmatched)", 404)]
    assert all("user_id" not in line for line in out.of("bot.access"))
    assert "/no/such/path" not in out.everything()


async def test_lines_are_info_so_a_warning_level_writes_none(client: TestClient) -> None:
    with captured(logging.WARNING) as out:
        await client.get("/healthz")
    assert out.lines() == []


async def test_served_as_app_py_serves_only_the_apps_line_is_written(
    db: str, make_settings, clock: FrozenClock
) -> None:
    """aiohttp's access log writes the raw request line, a download link's signature and all."""
    app = create_app(make_settings(db), clock=clock)
    with captured(logging.INFO) as out:
        async with served(app) as (host, port), aiohttp.ClientSession() as session:
            async with session.get(f"http://{host}:{port}/healthz?signature=abc123") as answer:
                assert answer.status == 200
    assert [line["route"] for line in out.of("bot.access")] == ["/healthz"]
    assert out.of("aiohttp.access") == [] and "abc123" not in out.everything()
