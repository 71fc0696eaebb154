"""Installation and roster sync over real HTTP: what Teams reports becomes the API's directory."""

from argparse import Namespace

from aiohttp.test_utils import TestClient
from sqlalchemy import select

from bot.cli import commands as cli
from bot.clock import FrozenClock
from bot.db.tables import Channel, ConversationReference, Project, Team, TeamMember, User
from bot.keys import SETTINGS
from bot.teams.roster import ONE_INSTALL
from tests.factories import CHANNEL, TEAM, TENANT, Factory
from tests.teams.activities import ADA, GRACE, LIN, MALLORY, installed, teams_activity
from tests.teams.bot import Post
from tests.teams.connector import GROUP_ID, Connector

RELEASES = "19:releases@thread.tacv2"


async def session_of(bot: TestClient, upn: str) -> dict[str, str]:
    """A session made by the admin CLI's own command, as cookie headers."""
    made = await cli.session_create(bot.app[SETTINGS], Namespace(user=upn))
    return {"Cookie": f"graphNodeCookie={made.cookie}"}


async def context(bot: TestClient, upn: str, channel: str = CHANNEL) -> tuple[int, dict]:
    headers = {**await session_of(bot, upn), "x-svc-teamid": TEAM, "x-svc-channelId": channel}
    response = await bot.get("/api/context", headers=headers)
    return response.status, await response.json()


async def member_upns(factory: Factory) -> set[str]:
    async with factory.work() as uow:
        rows = await uow.session.scalars(
            select(User.username).join(TeamMember).join(Team).where(Team.teams_id == TEAM)
        )
        return set(rows.all())


async def test_installation_records_the_team_its_channels_members_and_references(
    post: Post, service_url: str, connector: Connector, factory: Factory
) -> None:
    response = await post(installed(service_url))
    assert response.status == 200, await response.text()

    async with factory.work() as uow:
        team = await uow.session.scalar(select(Team).where(Team.teams_id == TEAM))
        assert team is not None
        assert (team.name, team.tenant_id, team.group_id) == ("Team A", TENANT, GROUP_ID)
        channels = {c.teams_id: c.name for c in await uow.session.scalars(select(Channel))}
        assert channels == {TEAM: "General", CHANNEL: "Bugs"}
        projects = await uow.session.scalars(select(Channel.teams_id).join(Project))
        assert sorted(projects.all()) == sorted([TEAM, CHANNEL])  # each channel's bootstrap
        stored = {
            r.conversation_id: r for r in await uow.session.scalars(select(ConversationReference))
        }
    assert set(stored) == {TEAM, CHANNEL}
    assert stored[CHANNEL].service_url == service_url
    assert stored[CHANNEL].reference["conversation"]["id"] == CHANNEL
    assert await member_upns(factory) == {ADA.upn, GRACE.upn, LIN.upn}
    # Three members at two a page: the continuation token was followed.
    assert len([p for p in connector.paths("GET") if p.endswith("/pagedmembers")]) == 2


async def test_a_roster_member_uses_the_api_with_a_cli_session_right_after_installation(
    post: Post, bot: TestClient, service_url: str
) -> None:
    await post(installed(service_url))
    status, body = await context(bot, GRACE.upn)
    assert status == 200, body
    assert body["team"]["teamId"] == TEAM
    assert body["team"]["groupId"] == GROUP_ID
    assert body["channel"]["channelId"] == CHANNEL
    assert body["user"]["username"] == GRACE.upn


async def test_installing_twice_changes_nothing(
    post: Post, service_url: str, factory: Factory
) -> None:
    await post(installed(service_url))
    await post(teams_activity("installationUpdate", service_url, channel=TEAM, action="add"))
    async with factory.work() as uow:
        assert len((await uow.session.scalars(select(Channel))).all()) == 2
    assert await member_upns(factory) == {ADA.upn, GRACE.upn, LIN.upn}


async def test_people_who_join_and_leave_gain_and_lose_access(
    post: Post, bot: TestClient, service_url: str, connector: Connector, factory: Factory
) -> None:
    await post(installed(service_url))
    connector.members.append(MALLORY)
    joined = teams_activity(
        "conversationUpdate",
        service_url,
        channel=TEAM,
        event_type="teamMemberAdded",
        membersAdded=[{"id": MALLORY.account["id"], "aadObjectId": MALLORY.object_id}],
    )
    assert (await post(joined)).status == 200
    assert (await context(bot, MALLORY.upn))[0] == 200

    left = teams_activity(
        "conversationUpdate",
        service_url,
        channel=TEAM,
        event_type="teamMemberRemoved",
        membersRemoved=[{"id": GRACE.account["id"], "aadObjectId": GRACE.object_id}],
    )
    assert (await post(left)).status == 200
    status, body = await context(bot, GRACE.upn)
    assert status == 403, body
    assert await member_upns(factory) == {ADA.upn, LIN.upn, MALLORY.upn}


async def test_a_full_resync_drops_people_no_longer_in_the_team(
    post: Post, service_url: str, connector: Connector, factory: Factory, clock: FrozenClock
) -> None:
    await post(installed(service_url))
    connector.members.remove(LIN)
    clock.advance(2 * ONE_INSTALL)  # a later install, not the first one's second announcement
    await post(installed(service_url))
    assert await member_upns(factory) == {ADA.upn, GRACE.upn}


async def test_a_channel_created_then_renamed_is_recorded_with_its_bootstrap(
    post: Post, bot: TestClient, service_url: str, factory: Factory
) -> None:
    await post(installed(service_url))
    created = teams_activity(
        "conversationUpdate",
        service_url,
        channel=RELEASES,
        channel_name="Releases",
        event_type="channelCreated",
    )
    assert (await post(created)).status == 200
    status, body = await context(bot, ADA.upn, RELEASES)
    assert (status, body["channel"]["name"]) == (200, "Releases")

    renamed = teams_activity(
        "conversationUpdate",
        service_url,
        channel=RELEASES,
        channel_name="Shipping",
        event_type="channelRenamed",
    )
    await post(renamed)
    status, body = await context(bot, ADA.upn, RELEASES)
    assert (status, body["channel"]["name"]) == (200, "Shipping")
    async with factory.work() as uow:
        assert await uow.session.get(ConversationReference, RELEASES) is not None
        projects = await uow.session.scalars(
            select(Project.id).join(Channel).where(Channel.teams_id == RELEASES)
        )
        assert len(projects.all()) == 1


async def _native_project_names(bot: TestClient, channel: str) -> tuple[str, str]:
    """The native project's names as a bug of the channel shows them (lists cache them)."""
    headers = {**await session_of(bot, ADA.upn), "x-svc-teamid": TEAM, "x-svc-channelId": channel}
    page = await (await bot.get("/odata/bugs", headers=headers)).json()
    project = page["value"][0]["projectId"]
    return project["displayName"], project["projectName"]


def _channel_event(service_url: str, name: str, event_type: str) -> dict:
    return teams_activity(
        "conversationUpdate",
        service_url,
        channel=RELEASES,
        channel_name=name,
        event_type=event_type,
    )


async def _releases_with_a_bug(post: Post, bot: TestClient, service_url: str) -> dict[str, str]:
    """The Releases channel, created in Teams, with one bug; Ada's headers in it."""
    await post(installed(service_url))
    await post(_channel_event(service_url, "Releases", "channelCreated"))
    headers = {**await session_of(bot, ADA.upn), "x-svc-teamid": TEAM, "x-svc-channelId": RELEASES}
    created = await bot.post("/odata/bugs", json={"name": "Crash"}, headers=headers)
    assert created.status == 201, await created.text()
    assert await _native_project_names(bot, RELEASES) == ("Releases", "Releases")
    return headers


async def test_a_channel_renamed_in_teams_renames_its_native_project(
    post: Post, bot: TestClient, service_url: str
) -> None:
    await _releases_with_a_bug(post, bot, service_url)
    await post(_channel_event(service_url, "Shipping", "channelRenamed"))
    assert await _native_project_names(bot, RELEASES) == ("Shipping", "Shipping")


async def test_a_native_project_name_given_here_survives_the_channels_rename(
    post: Post, bot: TestClient, service_url: str
) -> None:
    headers = await _releases_with_a_bug(post, bot, service_url)
    native = (await (await bot.get("/api/projects", headers=headers)).json())["value"][0]
    renamed = await bot.patch(
        f"/api/projects/{native['_id']}", json={"displayName": "Release train"}, headers=headers
    )
    assert renamed.status == 200, await renamed.text()
    await post(_channel_event(service_url, "Shipping", "channelRenamed"))
    # The name given here stays; the one still the channel's follows it.
    assert await _native_project_names(bot, RELEASES) == ("Release train", "Shipping")


async def test_a_deleted_channel_is_refused_by_the_api_and_keeps_its_data(
    post: Post, bot: TestClient, service_url: str, factory: Factory
) -> None:
    await post(installed(service_url))
    deleted = teams_activity(
        "conversationUpdate",
        service_url,
        channel=CHANNEL,
        channel_name="Bugs",
        event_type="channelDeleted",
    )
    assert (await post(deleted)).status == 200
    status, body = await context(bot, ADA.upn)
    assert status == 403
    assert body == {"error": f"Channel '{CHANNEL}' has been deleted in Teams."}
    async with factory.work() as uow:
        channel = await uow.session.scalar(select(Channel).where(Channel.teams_id == CHANNEL))
        assert channel is not None and channel.deleted_at is not None

    restored = teams_activity(
        "conversationUpdate",
        service_url,
        channel=CHANNEL,
        channel_name="Bugs",
        event_type="channelRestored",
    )
    await post(restored)
    assert (await context(bot, ADA.upn))[0] == 200


async def test_a_team_renamed_in_teams_is_renamed_here(
    post: Post, bot: TestClient, service_url: str
) -> None:
    await post(installed(service_url))
    renamed = teams_activity(
        "conversationUpdate", service_url, channel=TEAM, event_type="teamRenamed"
    )
    renamed["channelData"]["team"]["name"] = "Team Alpha"
    await post(renamed)
    assert (await context(bot, ADA.upn))[1]["team"]["name"] == "Team Alpha"
