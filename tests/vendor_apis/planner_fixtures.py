"""The local Planner on a loopback port; at teardown every exchange it logged must conform to
Graph's published metadata (`planner_conformance`). Test modules import these fixtures."""

from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack
from typing import Any

import pytest

from bot.sync.standins.planner import PlannerStandin
from tests.vendor_apis.planner_conformance import problems_of

MakePlanner = Callable[..., Any]


@pytest.fixture
async def make_planner() -> AsyncIterator[MakePlanner]:
    """Starts local Planners with the given options (a `clock`, a `page_size`, ...)."""
    started: list[PlannerStandin] = []
    async with AsyncExitStack() as stack:

        async def make(**options: Any) -> PlannerStandin:
            standin = await stack.enter_async_context(PlannerStandin(**options))
            started.append(standin)
            return standin

        yield make
    problems = [p for standin in started for p in problems_of(list(standin.exchanges))]
    assert not problems, "exchanges Graph's metadata does not allow:\n" + "\n".join(problems)
