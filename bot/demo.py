"""The demo team, channel and users that `make run` and `python -m bot admin demo` set up."""

from datetime import timedelta

from pydantic import Field

from bot import workspace
from bot.auth import service as auth
from bot.directory import service as directory
from bot.schemas import ApiModel
from bot.uow import UnitOfWork

TENANT_ID = "00000000-0000-0000-0000-00000000d3e0"
TEAM_ID = "19:demo-team@thread.tacv2"
TEAM_NAME = "Demo Team"
GROUP_ID = "00000000-0000-0000-0000-00000000a001"
CHANNEL_ID = "19:demo-bugs@thread.tacv2"
CHANNEL_NAME = "Bugs"
# The personal tab's entity id, sent as x-svc-entityId by the my-items views.
ENTITY_ID = "my-items"
USERS = [
    ("00000000-0000-0000-0000-0000000000a1", "ada@demo.example", "Ada Lovelace"),
    ("00000000-0000-0000-0000-0000000000b2", "grace@demo.example", "Grace Hopper"),
]


class DemoOut(ApiModel):
    cookie: str
    team_id: str = Field(alias="teamId")
    channel_id: str = Field(alias="channelId")
    entity_id: str = Field(alias="entityId")
    user_id: str = Field(alias="userId")


async def seed_demo(uow: UnitOfWork, *, session_ttl: timedelta) -> DemoOut:
    """Create the demo once (re-running changes nothing) and sign in as its first user."""
    await directory.upsert_team(
        uow, team_id=TEAM_ID, name=TEAM_NAME, tenant_id=TENANT_ID, group_id=GROUP_ID
    )
    await workspace.add_channel(uow, team_id=TEAM_ID, channel_id=CHANNEL_ID, name=CHANNEL_NAME)
    users = []
    for object_id, upn, name in USERS:
        user = await directory.upsert_user(
            uow, source_id=object_id, username=upn, display_name=name, email=upn
        )
        await directory.add_member(uow, team_id=TEAM_ID, user_ref=user.id)
        users.append(user)
    session = await auth.issue_session(uow, user_id=users[0].id, ttl=session_ttl)
    return DemoOut(
        cookie=session.secret,
        team_id=TEAM_ID,
        channel_id=CHANNEL_ID,
        entity_id=ENTITY_ID,
        user_id=users[0].id,
    )
