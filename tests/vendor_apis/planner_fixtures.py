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


def batches(standin: PlannerStandin) -> list[list[str]]:
    """The URLs each JSON batch sent to the local Planner asked for, batch by batch."""
    return [
        [request["url"] for request in x.request_body["requests"]]
        for x in standin.exchanges_to("POST", "/$batch")
    ]


def details_read(standin: PlannerStandin) -> list[str]:
    """The ids of the tasks whose details were asked for, in JSON batches or alone, in order."""
    asked = [url for batch in batches(standin) for url in batch]
    asked += [x.path.removeprefix("/v1.0") for x in standin.exchanges_to("GET", "/details")]
    return [url.split("/")[3] for url in asked if url.endswith("/details")]
