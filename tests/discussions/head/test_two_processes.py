"""Two app processes on one database: each burst is one refresh, whichever process runs it."""

import asyncio
from datetime import timedelta

from pytest_aiohttp import AiohttpClient

from bot.app import create_app
from bot.clock import FrozenClock
from bot.keys import WORKER
from tests.discussions.head.threads import WINDOW, Rig

SOON = timedelta(milliseconds=100)


async def test_two_processes_make_one_refresh_per_burst(
    rig: Rig,
    db: str,
    make_settings,
    clock: FrozenClock,
    aiohttp_client: AiohttpClient,  # noqa: ANN001
) -> None:
    other = await aiohttp_client(create_app(make_settings(db, JOBS_POLL_SECONDS=0), clock=clock))
    workers = [rig.bot.app[WORKER], other.app[WORKER]]
    bugs = [await rig.discussed_bug(name=f"Bug {n}") for n in range(3)]
    for priority in ("High", "Low", "Urgent"):
        for bug, _ in bugs:
            await rig.patch(rig.ada, bug["_id"], priority=priority)
        # Both pumps take events at once: each item's burst is opened by one, joined by the other.
        await asyncio.gather(*(worker.run_passes() for worker in workers))
        clock.advance(SOON)

    clock.advance(WINDOW - 3 * SOON)
    await asyncio.gather(*(worker.run_once() for worker in workers))
    await asyncio.gather(*(worker.run_once() for worker in workers))
    assert sorted(call.path.split("/")[3] for call in rig.updates()) == sorted(t for _, t in bugs)
    assert [call.body["text"] for call in rig.replies()] == [
        "Ada Lovelace changed priority Normal → Urgent"
    ] * 3
