"""The rig fixture: each test of the table runs once per source (and per database)."""

import pytest
from aiohttp.test_utils import TestClient

from bot.clock import FrozenClock
from bot.settings import Settings
from tests.sync.jira_fixtures import MakeJira, make_jira
from tests.sync.standin_fixtures import MakeAzureDevOps
from tests.sync.table.azure_devops import AzureDevOpsRig
from tests.sync.table.jira import JiraRig
from tests.sync.table.planner import PlannerRig
from tests.sync.table.rig import SourceRig
from tests.teams.bot import Post
from tests.teams.conftest import chat, connector, poster, service_url
from tests.vendor_apis.planner_fixtures import MakePlanner, make_planner

# The bot's fixtures (the chat rows talk to the app the table's `client` serves).
__all__ = ["chat", "connector", "make_jira", "make_planner", "service_url"]

# Each names a fixture `<name>_rig` that starts the source's stand-in and wraps it.
SOURCES = ["azure_devops", "jira", "planner"]


@pytest.fixture(params=SOURCES)
def rig(request: pytest.FixtureRequest) -> SourceRig:
    return request.getfixturevalue(f"{request.param}_rig")  # type: ignore[no-any-return]


@pytest.fixture
def settings(db: str, make_settings, rig: SourceRig) -> Settings:  # noqa: ANN001
    """The sync tests' settings, and what the rig's source needs besides (`app_settings`:
    Planner's token endpoint is a setting)."""
    return make_settings(  # type: ignore[no-any-return]
        db,
        SYNC_ALLOWED_HOSTS="127.0.0.1",
        JOBS_POLL_SECONDS=0,
        PUBLIC_URL="http://127.0.0.1:9",
        **getattr(rig, "app_settings", {}),
    )


@pytest.fixture
async def azure_devops_rig(
    make_azure_devops: MakeAzureDevOps, clock: FrozenClock
) -> AzureDevOpsRig:
    return AzureDevOpsRig(await make_azure_devops(clock=clock))


@pytest.fixture
async def jira_rig(make_jira: MakeJira, clock: FrozenClock) -> JiraRig:
    return JiraRig(await make_jira(clock=clock))


@pytest.fixture
async def planner_rig(make_planner: MakePlanner, clock: FrozenClock) -> PlannerRig:
    return PlannerRig(await make_planner(clock=clock))


@pytest.fixture
def post(client: TestClient) -> Post:
    """Activities to the app under test (the bot's `chat` posts through it)."""
    return poster(client)
