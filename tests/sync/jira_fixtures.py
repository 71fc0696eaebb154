"""The local Jira on a loopback port (at teardown every exchange it logged must conform to
Jira's published description, `tests/vendor_apis/openapi.py`), and a project linked to it."""

from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from bot.clock import FrozenClock
from bot.sync.standins.jira import JiraStandin
from tests.factories import Member
from tests.sync.linking import run_jobs
from tests.vendor_apis.openapi import problems_of

MakeJira = Callable[..., Any]

JIRA_STATES = [
    {"id": "10000", "name": "To Do", "category": "New"},
    {"id": "10001", "name": "In Progress", "category": "Active"},
    {"id": "10002", "name": "In Review", "category": "Active"},
    {"id": "10003", "name": "Done", "category": "Done"},
]


def jira_body(standin: JiraStandin, **overrides: Any) -> dict[str, Any]:
    return {
        "displayName": "Fabrikam",
        "source": "Jira",
        "sourceId": standin.project,
        "hostname": standin.base_url,
        "email": standin.email,
        "token": standin.token,
        "states": JIRA_STATES,
        "sync": {"enabled": True},
        **overrides,
    }


async def link_jira(client: TestClient, member: Member, standin: JiraStandin) -> dict[str, Any]:
    """A Jira project linked through the API, its first import run."""
    response = await client.post(
        "/api/projects", json=jira_body(standin), headers=member.in_channel()
    )
    assert response.status == 201, await response.text()
    project: dict[str, Any] = await response.json()
    await run_jobs(client)
    return project


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
