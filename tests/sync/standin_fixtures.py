"""The local Azure DevOps on a loopback port; at teardown every exchange it logged, and every
service-hook call it made, must conform to the vendor's published description."""

from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack
from typing import Any

import pytest

from bot.sync.standins.azure_devops import AzureDevOpsStandin
from tests.vendor_apis.conformance import problems_of

MakeAzureDevOps = Callable[..., Any]


@pytest.fixture
async def make_azure_devops() -> AsyncIterator[MakeAzureDevOps]:
    """Starts stand-ins with the given options (a `clock`, a `wiql_limit`, ...)."""
    started: list[AzureDevOpsStandin] = []
    async with AsyncExitStack() as stack:

        async def make(**options: Any) -> AzureDevOpsStandin:
            standin = await stack.enter_async_context(AzureDevOpsStandin(**options))
            started.append(standin)
            return standin

        yield make
    problems = [
        problem
        for standin in started
        for problem in problems_of(standin.exchanges, [call.payload for call in standin.hook_calls])
    ]
    assert not problems, "exchanges the description does not allow:\n" + "\n".join(problems)


@pytest.fixture
async def azure_devops(make_azure_devops: MakeAzureDevOps) -> AzureDevOpsStandin:
    return await make_azure_devops()  # type: ignore[no-any-return]
