"""/metrics: requests by method, route template and status with their latency; the pool, the jobs
backlog and the pending events read when scraped; each app its own counts; a bearer token."""

from datetime import timedelta
from pathlib import Path

from aiohttp.test_utils import TestClient
from sqlalchemy import update

from bot.app import create_app
from bot.clock import FrozenClock
from bot.db.tables import Job
from bot.jobs import queue
from bot.keys import ENGINE
from bot.web.metrics_page import UNAUTHORIZED
from tests import databases
from tests.factories import Factory, create_item
from tests.scrape import scrape

TOKEN = "scrape-token-0123456789abcdef0123456789"
REQUESTS = "tracker_http_requests_total"
LATENCY = "tracker_http_request_duration_seconds"
DETAILS = "/api/bugs/{id}/details"


async def test_requests_are_counted_by_method_route_template_and_status(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member("Ada")
    bug = await create_item(client, ada)
    for bug_id in (bug["_id"], bug["_id"], "0" * 24):
        await client.get(f"/api/bugs/{bug_id}/details", headers=ada.in_channel())
    await client.get("/no/such/path")

    samples = await scrape(client)
    assert samples.count(REQUESTS, method="GET", route=DETAILS, status="200") == 2
    assert samples.count(REQUESTS, method="GET", route=DETAILS, status="404") == 1
    assert samples.count(REQUESTS, method="POST", route="/odata/bugs", status="201") == 1
    assert samples.count(REQUESTS, method="GET", route="(unmatched)", status="404") == 1
    assert samples.count(f"{LATENCY}_count", method="GET", route=DETAILS) == 3
    assert samples.count(f"{LATENCY}_bucket", method="GET", route=DETAILS, le="+Inf") == 3
    # Templates only: neither an id nor a path the client made up becomes a label.
    assert bug["_id"] not in samples.text and "/no/such/path" not in samples.text


async def test_two_apps_in_one_process_count_apart(
    db: str, make_settings, clock: FrozenClock, aiohttp_client
) -> None:
    one, two = [await aiohttp_client(create_app(make_settings(db), clock=clock)) for _ in range(2)]
    for _ in range(3):
        await one.get("/healthz")
    healthz = {"method": "GET", "route": "/healthz", "status": "200"}
    assert (await scrape(one)).count(REQUESTS, **healthz) == 3
    assert (await scrape(two)).count(REQUESTS, **healthz) == 0


async def test_the_jobs_backlog_and_the_pending_events_are_read_when_scraped(
    db: str, make_settings, clock: FrozenClock, aiohttp_client, factory: Factory
) -> None:
    """No worker in this app: the jobs wait."""
    client = await aiohttp_client(create_app(make_settings(db, JOBS_POLL_SECONDS=0), clock=clock))
    await create_item(client, await factory.member("Ada"))  # a pending event, now
    now = clock.now()
    async with factory.work() as uow:
        for kind, ago in (("probe.a", 600), ("probe.a", 60), ("probe.b", 30), ("probe.b", -600)):
            await queue.enqueue(uow, kind=kind, payload={}, run_at=now - timedelta(seconds=ago))
        held = await queue.enqueue(uow, kind="probe.b", payload={}, run_at=now)
        await uow.execute(
            update(Job)
            .where(Job.id == held)
            .values(lease_owner="another process", lease_until=now + timedelta(minutes=5))
        )
    clock.advance(timedelta(seconds=120))

    samples = await scrape(client)
    assert samples.value("tracker_jobs_due", kind="probe.a") == 2
    assert samples.value("tracker_jobs_oldest_due_age_seconds", kind="probe.a") == 720
    # The one due in ten minutes is not yet due; the one another worker holds does not wait.
    assert samples.value("tracker_jobs_due", kind="probe.b") == 1
    assert samples.value("tracker_jobs_oldest_due_age_seconds", kind="probe.b") == 150
    assert samples.value("tracker_events_oldest_pending_age_seconds") == 120
    assert samples.value("tracker_database_up") == 1
    # No worker runs here, so it has no last turn to report.
    assert samples.value("tracker_jobs_worker_last_turn_age_seconds") is None


async def test_the_pool_and_the_workers_last_turn_are_read_when_scraped(
    client: TestClient,
) -> None:
    samples = await scrape(client)
    size = samples.value("tracker_db_pool_size")
    assert size is not None and size > 0
    assert samples.value("tracker_db_pool_checked_out") is not None
    assert samples.value("tracker_db_pool_overflow") == 0
    age = samples.value("tracker_jobs_worker_last_turn_age_seconds")
    assert age is not None and age >= 0
    assert samples.value("tracker_events_oldest_pending_age_seconds") == 0
    assert samples.value("process_resident_memory_bytes")


async def test_with_the_database_gone_the_counts_are_still_served(
    db: str, make_settings, clock: FrozenClock, aiohttp_client, tmp_path: Path
) -> None:
    folder = tmp_path / "own"
    url = f"sqlite+aiosqlite:///{folder / 'app.db'}" if db.startswith("sqlite") else db
    client = await aiohttp_client(create_app(make_settings(url), clock=clock))
    await client.get("/healthz")
    async with databases.unreachable(url, client.app[ENGINE], folder):
        samples = await scrape(client)
    assert samples.value("tracker_database_up") == 0
    assert samples.count(REQUESTS, method="GET", route="/healthz", status="200") == 1


async def test_a_metrics_token_is_asked_for_when_set(
    db: str, make_settings, clock: FrozenClock, aiohttp_client
) -> None:
    client = await aiohttp_client(create_app(make_settings(db, METRICS_TOKEN=TOKEN), clock=clock))
    for sent in ({}, {"Authorization": "Bearer not-the-token"}, {"Authorization": TOKEN}):
        refused = await client.get("/metrics", headers=sent)
        assert refused.status == 401
        assert await refused.json() == {"error": UNAUTHORIZED}
    samples = await scrape(client, {"Authorization": f"Bearer {TOKEN}"})
    assert samples.count(REQUESTS, method="GET", route="/metrics", status="401") == 3


async def test_metrics_are_text_and_not_part_of_the_json_api(client: TestClient) -> None:
    response = await client.get("/metrics")
    assert response.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
    document = await (await client.get("/openapi.json")).json()
    assert "/metrics" not in document["paths"]


async def test_metrics_can_be_switched_off(
    db: str, make_settings, clock: FrozenClock, aiohttp_client
) -> None:
    client = await aiohttp_client(
        create_app(make_settings(db, METRICS_ENABLED="false"), clock=clock)
    )
    assert (await client.get("/healthz")).status == 200
    assert (await client.get("/metrics")).status == 404
