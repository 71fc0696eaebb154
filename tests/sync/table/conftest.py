"""The rig fixture: each test of the table runs once per source (and per database)."""

import pytest

from bot.clock import FrozenClock
from tests.sync.jira_fixtures import MakeJira, make_jira
from tests.sync.standin_fixtures import MakeAzureDevOps
from tests.sync.table.azure_devops import AzureDevOpsRig
from tests.sync.table.jira import JiraRig
from tests.sync.table.rig import SourceRig

__all__ = ["make_jira"]

# Each names a fixture `<name>_rig` that starts the source's stand-in and wraps it.
SOURCES = ["azure_devops", "jira"]


@pytest.fixture(params=SOURCES)
def rig(request: pytest.FixtureRequest) -> SourceRig:
    return request.getfixturevalue(f"{request.param}_rig")  # type: ignore[no-any-return]


@pytest.fixture
async def azure_devops_rig(
    make_azure_devops: MakeAzureDevOps, clock: FrozenClock
) -> AzureDevOpsRig:
    return AzureDevOpsRig(await make_azure_devops(clock=clock))


@pytest.fixture
async def jira_rig(make_jira: MakeJira, clock: FrozenClock) -> JiraRig:
    return JiraRig(await make_jira(clock=clock))
