"""The pacer against Teams' published limits, on a virtual clock that moves only when it waits."""

import asyncio

from bot.teams.pacing import TEAMS_LIMITS, Pacer


class VirtualTime:
    def __init__(self) -> None:
        self.now = 0.0

    def read(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds


async def send_times(
    pacer: Pacer, clock: VirtualTime, conversation: str, count: int
) -> list[float]:
    times = []
    for _ in range(count):
        await pacer.wait_turn(conversation)
        times.append(clock.now)
    return times


async def test_a_burst_stays_within_every_window() -> None:
    clock = VirtualTime()
    pacer = Pacer(now=clock.read, sleep=clock.sleep)
    times = await send_times(pacer, clock, "thread", 130)
    for limit, window in TEAMS_LIMITS:
        for first, later in zip(times, times[limit:], strict=False):
            assert later - first >= window - 1e-9, (limit, window)
    # And no slower than the limits need: 120 sends take two 30-second windows, not more.
    assert times[119] <= 60.0
    assert times[:7] == [0.0] * 7


async def test_conversations_are_paced_separately() -> None:
    clock = VirtualTime()
    pacer = Pacer(now=clock.read, sleep=clock.sleep)
    await send_times(pacer, clock, "busy", 7)
    assert await send_times(pacer, clock, "quiet", 7) == [0.0] * 7


async def test_concurrent_senders_to_one_thread_share_its_budget() -> None:
    clock = VirtualTime()
    pacer = Pacer(now=clock.read, sleep=clock.sleep)
    stamps: list[float] = []

    async def send() -> None:
        await pacer.wait_turn("thread")
        stamps.append(clock.now)

    await asyncio.gather(*(send() for _ in range(9)))
    assert sorted(stamps)[7:] == [1.0, 2.0]
