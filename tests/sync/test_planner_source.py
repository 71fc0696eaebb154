"""The Planner connector against the local Planner: tokens fetched once for everyone waiting and
again once when one expires, the plan's tasks compared by ETag with details read for the moved
ones and a rolling sweep, guarded writes, and failures in the port's terms."""

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta

import aiohttp
import pytest
from yarl import URL

from bot.clock import FrozenClock
from bot.sync.pacer import HostPacer
from bot.sync.planner import PlannerSource
from bot.sync.planner import cursor as cursors
from bot.sync.planner.client import Credentials
from bot.sync.planner.fields import sent_priority, state_of
from bot.sync.planner.tokens import Tokens
from bot.sync.source import (
    SourceChange,
    SourceError,
    SourceFields,
    SourceItem,
    SourceNotFound,
    SourceStale,
    SourceThrottled,
    SourceUnauthorized,
)
from bot.sync.standins.planner import PlannerStandin
from tests.vendor_apis.planner_fixtures import MakePlanner, batches, details_read, make_planner

__all__ = ["make_planner"]


@pytest.fixture
async def planner(make_planner: MakePlanner, clock: FrozenClock) -> PlannerStandin:
    return await make_planner(clock=clock, page_size=4)  # type: ignore[no-any-return]


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


def connect(
    http: aiohttp.ClientSession,
    planner: PlannerStandin,
    clock: FrozenClock,
    *,
    secret: str | None = None,
    tenant: str | None = None,
    plan: str | None = None,
) -> PlannerSource:
    credentials = Credentials(
        URL(planner.authority_url),
        tenant or planner.tenant_id,
        planner.client_id,
        secret or planner.client_secret,
    )
    return PlannerSource(
        http,
        base_url=URL(planner.graph_url),
        plan_id=plan or planner.plan_id,
        credentials=credentials,
        clock=clock,
        pacer=HostPacer(),
        tokens=Tokens(),
    )


async def pull(source: PlannerSource, cursor: str | None) -> tuple[list[SourceItem], str]:
    items: list[SourceItem] = []
    async for page in source.changed_since(cursor, item_types=["Task"], query=None):
        items += page.items
        cursor = page.cursor
    assert cursor is not None
    return items, cursor


async def test_concurrent_calls_share_one_token_request(
    http: aiohttp.ClientSession, planner: PlannerStandin, clock: FrozenClock
) -> None:
    ids = planner.seed(6)
    source = connect(http, planner, clock)
    read = await asyncio.gather(*(source.read([task_id]) for task_id in ids))
    assert [items[0].id for items in read] == ids
    assert planner.tokens_issued == 1
    assert len(planner.exchanges_to("POST", "/oauth2/v2.0/token")) == 1


async def test_a_token_expiring_mid_pull_is_fetched_again_once_for_all(
    http: aiohttp.ClientSession, planner: PlannerStandin, clock: FrozenClock
) -> None:
    planner.seed(10)
    source = connect(http, planner, clock)
    await source.check()
    held = planner.hang_next(path_part="/$batch")
    pulling = asyncio.create_task(pull(source, None))
    await held.arrived.wait()  # the details' batch is in flight with the token
    planner.expire_tokens()
    held.release()
    items, _ = await pulling
    assert len(items) == 10
    assert planner.tokens_issued == 2
    assert [x.status for x in planner.exchanges_to("POST", "/$batch")] == [401, 200]


async def test_a_token_is_kept_until_it_nearly_expires(
    http: aiohttp.ClientSession, planner: PlannerStandin, clock: FrozenClock
) -> None:
    source = connect(http, planner, clock)
    await source.check()
    clock.advance(timedelta(minutes=50))
    await source.check()
    assert planner.tokens_issued == 1
    clock.advance(timedelta(minutes=9))  # within two minutes of its end: a new one
    await source.check()
    assert planner.tokens_issued == 2


async def test_wrong_credentials_and_an_unknown_plan_are_told_apart(
    http: aiohttp.ClientSession, planner: PlannerStandin, clock: FrozenClock
) -> None:
    with pytest.raises(SourceUnauthorized, match="Invalid client secret"):
        await connect(http, planner, clock, secret="wrong").check()
    with pytest.raises(SourceUnauthorized, match="Tenant not found"):
        await connect(http, planner, clock, tenant="elsewhere").check()
    with pytest.raises(SourceNotFound):
        await connect(http, planner, clock, plan="no-such-plan").check()
    found = await connect(http, planner, clock).check()
    assert (found.id, found.name) == (planner.plan_id, "Fabrikam")


async def test_pulls_read_details_of_moved_tasks_and_sweep_the_rest_within_ten_polls(
    http: aiohttp.ClientSession, planner: PlannerStandin, clock: FrozenClock
) -> None:
    ids = planner.seed(30)
    source = connect(http, planner, clock)
    imported, cursor = await pull(source, None)
    assert sorted(item.id for item in imported) == sorted(ids)
    planner.change(ids[3], percentComplete=50)
    details_before = len(details_read(planner))
    changed, cursor = await pull(source, cursor)
    moved = next(item for item in changed if item.id == ids[3])
    assert moved.fields.state == "PLSTT-InProgress"
    read = len(details_read(planner)) - details_before
    assert read == len(changed) < 30  # the moved one and this poll's tenth, no more
    swept: set[str] = {item.id for item in changed}
    for _ in range(9):
        changed, cursor = await pull(source, cursor)
        swept |= {item.id for item in changed}
    assert swept == set(ids)  # every task's details read within ten polls


async def test_a_pull_reads_the_details_in_json_batches_of_twenty(
    http: aiohttp.ClientSession, planner: PlannerStandin, clock: FrozenClock
) -> None:
    ids = planner.seed(45)
    source = connect(http, planner, clock)
    imported, cursor = await pull(source, None)
    assert len(imported) == 45
    assert [len(batch) for batch in batches(planner)] == [20, 20, 5]  # not 45 requests
    assert sorted(details_read(planner)) == sorted(ids)
    assert planner.exchanges_to("GET", "/details") == []
    for task_id in ids[:25]:
        planner.change(task_id, percentComplete=100)
    sent = len(planner.exchanges)
    changed, _ = await pull(source, cursor)
    assert {i.id for i in changed} >= set(ids[:25])
    assert all(i.fields.state == "PLSTT-Completed" for i in changed if i.id in ids[:25])
    listing = (45 + 3) // 4  # the plan's tasks, four to a page
    assert len(planner.exchanges) - sent == listing + (len(changed) + 19) // 20


async def test_a_throttled_request_inside_a_batch_holds_the_host_and_loses_nothing(
    http: aiohttp.ClientSession, planner: PlannerStandin, clock: FrozenClock
) -> None:
    ids = planner.seed(30)
    source = connect(http, planner, clock)
    _, cursor = await pull(source, None)
    for task_id in ids:
        planner.change(task_id, title=f"Changed {task_id}")
    throttled_one = ids[7]
    planner.fail_next(status=429, retry_after=30, path_part=f"/tasks/{throttled_one}/details")
    got: list[SourceItem] = []
    with pytest.raises(SourceThrottled) as throttled:
        async for page in source.changed_since(cursor, item_types=["Task"], query=None):
            got += page.items
            cursor = page.cursor  # kept by the engine as each page is stored
    assert throttled.value.retry_after == 30
    assert {i.id for i in got} == set(ids) - {throttled_one}  # the batch's others, kept
    sent = len(planner.exchanges)
    with pytest.raises(SourceThrottled):
        await pull(source, cursor)
    assert len(planner.exchanges) == sent  # nothing sent before Retry-After has passed
    clock.advance(timedelta(seconds=30))
    changed, _ = await pull(source, cursor)
    assert throttled_one in {i.id for i in changed}
    got += changed
    assert {i.id: i.fields.title for i in got} == {t: f"Changed {t}" for t in ids}


async def test_a_failed_request_inside_a_batch_is_sent_again_in_the_next(
    http: aiohttp.ClientSession, planner: PlannerStandin, clock: FrozenClock
) -> None:
    ids = planner.seed(25)
    planner.fail_next(status=503, path_part=f"/tasks/{ids[3]}/details")  # no Retry-After
    planner.fail_next(status=500, path_part=f"/tasks/{ids[4]}/details")
    source = connect(http, planner, clock)
    with pytest.raises(SourceThrottled):  # a 503 holds the host, as Graph asks
        await pull(source, None)
    planner.fail_next(status=502, path_part=f"/tasks/{ids[5]}/details")
    clock.advance(timedelta(minutes=1))
    imported, _ = await pull(source, None)
    assert sorted(i.id for i in imported) == sorted(ids)
    assert [len(batch) for batch in batches(planner)][2:] == [20, 5, 1]  # the 502, once more


async def test_a_description_edit_is_found_by_the_sweep(
    http: aiohttp.ClientSession, planner: PlannerStandin, clock: FrozenClock
) -> None:
    (task_id,) = planner.seed(1)
    source = connect(http, planner, clock)
    _, cursor = await pull(source, None)
    planner.describe(task_id, "Edited there")
    found = []
    for _ in range(10):
        changed, cursor = await pull(source, cursor)
        found += [item.fields.body for item in changed]
    assert found == ["Edited there"]


def test_the_cursor_of_ten_thousand_tasks_stays_small() -> None:
    held = cursors.Cursor(7, {f"{n:028d}": cursors.digest(f'W/"etag-{n}"') for n in range(10_000)})
    text = held.dumps()
    assert len(text) < 500_000
    assert cursors.loads(text) == held
    assert cursors.loads("not a cursor") == cursors.Cursor()


async def test_writes_are_guarded_by_the_task_and_details_etags(
    http: aiohttp.ClientSession, planner: PlannerStandin, clock: FrozenClock
) -> None:
    source = connect(http, planner, clock)
    fields = SourceFields(title="Made here", body="First words", priority="2", state=None)
    made = await source.create(
        SourceChange("Task", fields, frozenset({"title", "body", "priority"}))
    )
    there = planner.task(made.id)
    assert there is not None
    assert (there["title"], there["priority"], there["description"]) == (
        "Made here",
        3,
        "First words",
    )
    assert there["bucketId"] == planner.buckets[0]
    planner.describe(made.id, "Changed there")
    rewrite = SourceChange(
        "Task",
        SourceFields(title="Made here", body="Second words"),
        frozenset({"body"}),
        made.version,
    )
    with pytest.raises(SourceStale):
        await source.update(made.id, rewrite)
    planner.change(made.id, title="Renamed there")
    rename = SourceChange("Task", SourceFields(title="Again"), frozenset({"title"}), made.version)
    with pytest.raises(SourceStale):
        await source.update(made.id, rename)
    (fresh,) = await source.read([made.id])
    updated = await source.update(
        made.id,
        SourceChange("Task", SourceFields(title="Again"), frozenset({"title"}), fresh.version),
    )
    assert (updated.fields.title, updated.fields.body) == ("Again", "Changed there")
    await source.delete(made.id)
    await source.delete(made.id)  # gone already: not an error
    assert planner.task(made.id) is None


async def test_throttling_holds_the_host_and_a_foreign_next_link_is_refused(
    http: aiohttp.ClientSession, planner: PlannerStandin, clock: FrozenClock
) -> None:
    source = connect(http, planner, clock)
    await source.check()
    planner.fail_next(status=429, retry_after=30)
    with pytest.raises(SourceThrottled) as throttled:
        await source.check()
    assert throttled.value.retry_after == 30
    sent = len(planner.exchanges)
    with pytest.raises(SourceThrottled):
        await source.check()
    assert len(planner.exchanges) == sent  # nothing sent while held
    clock.advance(timedelta(seconds=30))
    await source.check()
    with pytest.raises(SourceError, match="outside"):
        source._client.within("http://elsewhere.example/v1.0/planner/tasks")


async def test_planner_has_no_comments_or_hooks_to_sync(
    http: aiohttp.ClientSession, planner: PlannerStandin, clock: FrozenClock
) -> None:
    source = connect(http, planner, clock)
    assert await source.comments("any") == []
    registration = await source.register_hooks("http://127.0.0.1:9/hook", "secret")
    assert (registration.ids, registration.problem) == ([], None)
    assert planner.exchanges == []


def test_progress_and_priority_in_planners_terms() -> None:
    assert [state_of(p) for p in (0, 1, 50, 99, 100)] == [
        "PLSTT-NotStarted",
        "PLSTT-InProgress",
        "PLSTT-InProgress",
        "PLSTT-InProgress",
        "PLSTT-Completed",
    ]
    assert [sent_priority(str(p)) for p in range(11)] == [1, 1, 3, 3, 3, 5, 5, 5, 9, 9, 9]
    assert sent_priority("High") is None


async def test_deletions_after_a_pull_take_the_pulls_listing(
    http: aiohttp.ClientSession, planner: PlannerStandin, clock: FrozenClock
) -> None:
    ids = planner.seed(9)  # three pages of four
    source = connect(http, planner, clock)
    _, cursor = await pull(source, None)
    listing = f"/plans/{planner.plan_id}/tasks"
    listings = len(planner.exchanges_to("GET", listing))
    assert await source.ids_in_scope(item_types=["Task"], query=None) == set(ids)
    assert len(planner.exchanges_to("GET", listing)) == listings  # not listed again
    planner.delete(ids[0])
    assert await source.ids_in_scope(item_types=["Task"], query=None) == set(ids[1:])
    doing = planner.buckets[1]
    planner.change(ids[1], bucketId=doing)
    await pull(source, cursor)
    assert await source.ids_in_scope(item_types=["Task"], query=doing) == {ids[1]}
