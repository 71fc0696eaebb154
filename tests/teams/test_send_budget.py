"""The send budget against Teams' published limits, on the real database and a virtual time that
moves only when a sender waits; two budgets on one database stand for two processes."""

import asyncio
from datetime import UTC, datetime, timedelta

from bot.db.engine import session_factory
from bot.teams.outbound.send_budget import THREAD_LIMITS, SendBudget
from tests.factories import Factory

START = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)


class VirtualTime:
    def __init__(self) -> None:
        self.at = START

    def now(self) -> datetime:
        return self.at

    async def sleep(self, seconds: float) -> None:
        self.at += timedelta(seconds=seconds)

    @property
    def seconds(self) -> float:
        return (self.at - START).total_seconds()


def budget(factory: Factory, time: VirtualTime) -> SendBudget:
    return SendBudget(session_factory(factory.engine), now=time.now, sleep=time.sleep)


async def send_times(
    sender: SendBudget, time: VirtualTime, conversation: str, count: int, tenant: str = "t"
) -> list[float]:
    times = []
    for _ in range(count):
        await sender.wait_turn(conversation, tenant=tenant)
        times.append(time.seconds)
    return times


async def test_a_burst_to_one_thread_stays_within_every_window(factory: Factory) -> None:
    time = VirtualTime()
    times = await send_times(budget(factory, time), time, "thread", 130)
    for limit, window in THREAD_LIMITS:
        for first, later in zip(times, times[limit:], strict=False):
            assert later - first >= window - 1e-6, (limit, window)
    # And no slower than the limits need: 120 sends take two 30-second windows, not more.
    assert times[119] <= 60.0
    assert times[:7] == [0.0] * 7


async def test_threads_are_paced_apart(factory: Factory) -> None:
    time = VirtualTime()
    sender = budget(factory, time)
    await send_times(sender, time, "busy", 7)
    assert await send_times(sender, time, "quiet", 7) == [0.0] * 7


async def test_a_tenant_gets_fifty_sends_a_second_across_its_threads(factory: Factory) -> None:
    time = VirtualTime()
    sender = budget(factory, time)
    times = []
    for n in range(120):
        times += await send_times(sender, time, f"thread {n}", 1)
    assert times[:50] == [0.0] * 50
    assert times[50] >= 1.0 - 1e-6
    for first, later in zip(times, times[50:], strict=False):
        assert later - first >= 1.0 - 1e-6
    # Another tenant is not held by this one's sends.
    assert await send_times(sender, time, "elsewhere", 1, tenant="other") == [time.seconds]


async def test_two_processes_share_one_thread_budget(factory: Factory) -> None:
    time = VirtualTime()
    first, second = budget(factory, time), budget(factory, time)
    stamps: list[float] = []

    async def send(sender: SendBudget) -> None:
        await sender.wait_turn("thread", tenant="t")
        stamps.append(time.seconds)

    await asyncio.gather(*(send(first if n % 2 else second) for n in range(9)))
    stamps.sort()
    assert stamps[:7] == [0.0] * 7
    assert stamps[7] >= 1.0 - 1e-6  # the eighth waited for the first second to pass
