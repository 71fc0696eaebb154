"""The local Jira on a loopback port; at teardown every exchange it logged must conform to
Jira's published description (`tests/vendor_apis/openapi.py`)."""

from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack
from typing import Any

import pytest

from bot.clock import FrozenClock
from bot.sync.standins.jira import JiraStandin
from tests.vendor_apis.openapi import problems_of

MakeJira = Callable[..., Any]


@pytest.fixture
async def make_jira() -> AsyncIterator[MakeJira]:
    """Starts stand-ins with the given options (a `clock`, a `page_limit`, ...)."""
    started: list[JiraStandin] = []
    async with AsyncExitStack() as stack:

        async def make(**options: Any) -> JiraStandin:
            standin = await stack.enter_async_context(JiraStandin(**options))
            started.append(standin)
            return standin

        yield make
    problems = [problem for standin in started for problem in problems_of(standin.exchanges)]
    assert not problems, "exchanges the description does not allow:\n" + "\n".join(problems)


@pytest.fixture
async def jira(make_jira: MakeJira, clock: FrozenClock) -> JiraStandin:
    return await make_jira(clock=clock)  # type: ignore[no-any-return]
