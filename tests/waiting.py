"""Waiting in tests for something to happen, never for time to pass: a condition polled, or an
event, bounded only so that a hang fails the test instead of stalling the run. The bound is
generous on purpose (a loaded machine can be slow by seconds); it is never what a test measures."""

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import TypeVar

# Seconds before a wait that never ends fails its test.
PATIENCE = 60.0
POLL = 0.01

Condition = Callable[[], bool | Awaitable[bool]]
T = TypeVar("T")


async def until(condition: Condition, what: str, *, poll: float = POLL) -> None:
    """Return once `condition()` (plain or awaitable) is true; fail naming `what` after
    `PATIENCE`."""
    try:
        async with asyncio.timeout(PATIENCE):
            while True:
                met = condition()
                if inspect.isawaitable(met):
                    met = await met
                if met:
                    return
                await asyncio.sleep(poll)
    except TimeoutError:
        raise AssertionError(f"still waiting, after {PATIENCE:.0f} s, for {what}") from None


async def until_set(event: asyncio.Event, what: str) -> None:
    """Return once `event` is set; fail naming `what` after `PATIENCE`."""
    try:
        async with asyncio.timeout(PATIENCE):
            await event.wait()
    except TimeoutError:
        raise AssertionError(f"still waiting, after {PATIENCE:.0f} s, for {what}") from None


async def finished(work: Awaitable[T], what: str) -> T:
    """What `work` gives once it ends; fail naming `what` after `PATIENCE`."""
    try:
        async with asyncio.timeout(PATIENCE):
            return await work
    except TimeoutError:
        raise AssertionError(f"still waiting, after {PATIENCE:.0f} s, for {what}") from None
