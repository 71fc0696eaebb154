"""One caller's heavy lists cannot take the service from the others: a list past the statement
bound answers 503 and changes nothing, and a session or token runs at most LISTS_IN_FLIGHT
lists at once (429 with Retry-After beyond that) while other callers and writes go on."""

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from sqlalchemy import select

from bot.app import create_app
from bot.clock import FrozenClock
from bot.db.sqlite_inline import READER_THREADS
from bot.db.tables import Channel
from bot.web import fairness
from bot.web.keys import LISTS_IN_FLIGHT
from tests.factories import CHANNEL, TEAM, Factory, Member, create_item, insert_copies
from tests.waiting import finished, until
from tests.web.held_statements import HeldReads, PastTheBound

# The heaviest filter the 2,048-character limit lets through: 80 substring searches.
HEAVY = " or ".join(f"contains(name,'zq{n:02}')" for n in range(80))
OTHER = "19:channel-ops@thread.tacv2"
ADAS_BUG = "Printer on fire"
# Enough rows that SQLite checks a held list's time many times after its function returns.
BUGS = 100
# The statement bound where it is tested: above what any plain statement takes on a loaded
# machine, since the held list waits it out.
BOUND_S = 1.0
TOO_LONG = {"error": "The query took too long; narrow the filter."}


async def _client(aiohttp_client, make_settings, db: str, clock: FrozenClock, **settings: object):  # noqa: ANN001, ANN202
    app: web.Application = create_app(make_settings(db, **settings), clock=clock)
    return await aiohttp_client(app)


async def _bugs(client: TestClient, factory: Factory, member: Member, count: int) -> None:
    first = await create_item(client, member, name=ADAS_BUG)
    await insert_copies(factory, first["_id"], count - 1)


async def test_a_list_past_the_statement_bound_answers_503_and_others_still_list(
    aiohttp_client,
    make_settings,
    db: str,
    clock: FrozenClock,
    factory: Factory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    past = PastTheBound(db, factory, BOUND_S)
    past.install(monkeypatch)
    client = await _client(aiohttp_client, make_settings, db, clock, QUERY_TIMEOUT_SECONDS=BOUND_S)
    ada = await factory.member("Ada")
    await _bugs(client, factory, ada, BUGS)

    async with past.during():
        heavy = await finished(
            client.get("/odata/bugs", params={"$filter": HEAVY}, headers=ada.in_channel()),
            "the list past its bound to be answered",
        )
    assert heavy.status == 503
    assert await heavy.json() == TOO_LONG

    light = await client.get(
        "/odata/bugs", params={"$top": "1", "$count": "false"}, headers=ada.in_channel()
    )
    assert light.status == 200
    assert [bug["name"] for bug in (await light.json())["value"]] == [ADAS_BUG]


class HeldLists:
    """The app's list slots, with the lists of the credentials in `held` kept running inside
    their slot until `release` is set: a list as long as the test needs, whatever the machine.
    Counts the lists that hold a slot, by credential."""

    def __init__(self, app: web.Application, held: set[str]) -> None:
        self._slots, self._held = app[LISTS_IN_FLIGHT], held
        self._real_slot = self._slots.slot
        self.release = asyncio.Event()
        self.running: Counter[str] = Counter()

    @asynccontextmanager
    async def slot(self, credentials: str | None) -> AsyncIterator[None]:
        async with self._real_slot(credentials):
            self.running[credentials or ""] += 1
            try:
                if credentials in self._held:
                    await self.release.wait()
                yield
            finally:
                self.running[credentials or ""] -= 1


async def test_one_session_runs_at_most_its_share_of_lists_and_is_told_when_to_retry(
    aiohttp_client,
    make_settings,
    db: str,
    clock: FrozenClock,
    factory: Factory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A list over the share is refused after waiting this long for a slot (a second in the app).
    monkeypatch.setattr(fairness, "WAIT_S", 0.05)
    client = await _client(aiohttp_client, make_settings, db, clock, LISTS_IN_FLIGHT=2)
    ada = await factory.member("Ada")
    grace = await factory.member("Grace")
    await _bugs(client, factory, ada, 50)
    lists = HeldLists(client.app, held={ada.cookie})
    monkeypatch.setattr(client.app[LISTS_IN_FLIGHT], "slot", lists.slot)

    async def heavy_list(member: Member) -> tuple[int, str | None, dict]:
        response = await client.get(
            "/odata/bugs", params={"$filter": HEAVY}, headers=member.in_channel()
        )
        return response.status, response.headers.get("Retry-After"), await response.json()

    flood = [asyncio.create_task(heavy_list(ada)) for _ in range(12)]
    # Ada's two lists run (held), and every other one of hers has been refused.
    await until(lambda: sum(task.done() for task in flood) == 10, "Ada's lists over her share")
    assert lists.running[ada.cookie] == 2
    grace_status, _retry, grace_page = await heavy_list(grace)
    assert grace_status == 200, grace_page
    assert grace_page["@odata.count"] == 0
    lists.release.set()
    answers = await asyncio.gather(*flood)

    statuses = Counter(status for status, _retry, _body in answers)
    assert statuses == {200: 2, 429: 10}, statuses
    refused = [(retry, body) for status, retry, body in answers if status == 429]
    assert refused[0] == (
        "1",
        {
            "error": "Too many list requests at once: at most 2 per session or token. "
            "Retry after 1 s."
        },
    )
    # Once her lists have ended, Ada lists again.
    status, _retry, _body = await heavy_list(ada)
    assert status == 200


async def test_another_members_list_is_answered_while_one_members_heavy_lists_run(
    aiohttp_client,
    make_settings,
    db: str,
    clock: FrozenClock,
    factory: Factory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(fairness, "WAIT_S", 0.05)  # Ada's lists over her share: refused soon
    ada = await factory.member("Ada")
    grace = await factory.member("Grace")
    await factory.channel(OTHER, name="Ops")
    async with factory.work(write=False) as uow:
        adas_channel = await uow.value(select(Channel.id).where(Channel.teams_id == CHANNEL))
    lists = HeldReads(name=ADAS_BUG, channel_id=adas_channel)
    lists.install(db, monkeypatch)
    client = await _client(aiohttp_client, make_settings, db, clock)
    await _bugs(client, factory, ada, BUGS)
    for number in range(3):
        response = await client.post(
            "/odata/bugs",
            json={"name": f"zq0{number} in Ops"},
            headers=grace.in_channel(TEAM, OTHER),
        )
        assert response.status == 201, await response.text()

    async def heavy_list(member: Member, channel: str) -> tuple[int, dict]:
        headers = member.in_channel(TEAM, channel)
        response = await client.get("/odata/bugs", params={"$filter": HEAVY}, headers=headers)
        return response.status, await response.json()

    # As many of Ada's lists as SQLite has reader threads: her share of them run, held.
    share = client.app[LISTS_IN_FLIGHT].limit
    over = READER_THREADS - share
    flood = [asyncio.create_task(heavy_list(ada, CHANNEL)) for _ in range(READER_THREADS)]

    def ended() -> int:
        return sum(task.done() for task in flood)

    try:
        await until(lambda: ended() == over, "Ada's lists over her share to be refused")
        await until(lambda: lists.running == share, "Ada's lists to be held running")
        # The same filter in a small channel: on SQLite it goes straight to a reader thread, as
        # Ada's lists were stopped on the loop; a thread is left for it.
        status, page = await finished(heavy_list(grace, OTHER), "Grace's list")
        assert status == 200, page
        assert page["@odata.count"] == 3
        assert ended() == over  # Ada's held lists still run
    finally:
        lists.let_go()
    answers = await asyncio.gather(*flood)
    assert Counter(status for status, _page in answers) == {200: share, 429: over}


async def test_writes_from_one_session_are_not_capped(
    aiohttp_client, make_settings, db: str, clock: FrozenClock, factory: Factory
) -> None:
    client = await _client(aiohttp_client, make_settings, db, clock, LISTS_IN_FLIGHT=1)
    ada = await factory.member("Ada")
    created = await asyncio.gather(
        *(
            client.post("/odata/bugs", json={"name": f"Bug {n}"}, headers=ada.in_channel())
            for n in range(20)
        )
    )
    assert [response.status for response in created] == [201] * 20
