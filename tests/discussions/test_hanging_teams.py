"""A Microsoft Teams that hangs costs the discussion starts waiting on it their wait
(TEAMS_WAIT_SECONDS) and nobody else anything: its calls hold none of the threads the rest of
the app works on, and none of them outlives the wait."""

import asyncio
import os

import pytest

from tests.discussions.conftest import WAIT_SECONDS
from tests.discussions.helpers import Desk
from tests.files.helpers import upload

# Python's default thread pool (asyncio.to_thread, where uploads write): min(32, CPUs + 4).
DEFAULT_THREADS = min(32, (os.cpu_count() or 1) + 4)
HANGING = DEFAULT_THREADS + 2
# Only a guard, so that a call outliving its wait fails the test instead of stalling it.
GUARD_SECONDS = 10 * WAIT_SECONDS


class TestWhileStartsHang:
    @pytest.fixture
    def teams_wait_seconds(self) -> float:
        return 60  # the starts stay held while the test looks at everyone else

    async def test_an_upload_is_answered_while_starts_hang_on_teams(self, desk: Desk) -> None:
        bugs = [await desk.bug() for _ in range(HANGING)]
        other = await desk.bug()
        desk.connector.stall = asyncio.Event()
        starts = [asyncio.create_task(desk.start(bug["_id"])) for bug in bugs]
        await desk.connector.until(lambda stub: stub.held >= DEFAULT_THREADS)

        uploading = asyncio.create_task(upload(desk.client, desk.ada, other["_id"]))
        done, _ = await asyncio.wait({uploading, *starts}, return_when=asyncio.FIRST_COMPLETED)

        assert uploading in done, "a start ended before the upload was answered"
        assert uploading.result()[0] == 201
        assert desk.connector.held >= DEFAULT_THREADS and not any(s.done() for s in starts)
        desk.connector.stall.set()
        assert [(await start).status for start in starts] == [200] * HANGING


async def test_a_start_answered_502_leaves_no_call_hanging_on_teams(desk: Desk) -> None:
    bug = await desk.bug()
    desk.connector.stall = asyncio.Event()

    response = await desk.start(bug["_id"])
    assert response.status == 502
    assert "in time" in (await response.json())["error"]

    async with asyncio.timeout(GUARD_SECONDS):  # the bot closes the connection it gave up on
        await desk.connector.until(lambda stub: stub.dropped == 1)
    assert desk.connector.held == 0
    assert await desk.stored() == ([], [])
