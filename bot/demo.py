"""The demo team, channel and users that `make run` and `python -m bot admin demo` set up."""

from datetime import timedelta

from pydantic import Field
from sqlalchemy import select

from bot import workspace
from bot.auth import service as auth
from bot.db.tables import Item
from bot.db.uow import UnitOfWork
from bot.directory.access import resolve_channel
from bot.directory.actors import actor_of
from bot.directory.teams import upsert_team
from bot.directory.users import add_member, upsert_user
from bot.events import notification_rules
from bot.items import service as items
from bot.items.schemas import BugCreate, TaskCreate
from bot.schemas import ApiModel, ItemKind

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


# name, status, priority, severity, assignees (indexes into USERS), due in days from now
BUGS = [
    ("Login button does nothing on Safari", "In Progress", "High", "High", [0], 2),
    ("Crash when a channel name has an emoji", "Not Started", "Urgent", "Critical", [1], 1),
    ("Search ignores accents (café vs cafe)", "In Progress", "Normal", "Medium", [0, 1], -1),
    ("Export to CSV drops the last row", "Not Started", "High", "Medium", [], None),
    ("Typo in the welcome card", "Completed", "Low", "Low", [1], None),
]
TASKS = [
    ("Write the onboarding guide", "In Progress", "Normal", None, [1], 5),
    ("Set up the release checklist", "Not Started", "High", None, [0], 7),
    ("Review the Q4 roadmap", "Completed", "Normal", None, [0, 1], None),
]


class DemoOut(ApiModel):
    cookie: str
    team_id: str = Field(alias="teamId")
    channel_id: str = Field(alias="channelId")
    entity_id: str = Field(alias="entityId")
    user_id: str = Field(alias="userId")


async def seed_demo(uow: UnitOfWork, *, session_ttl: timedelta) -> DemoOut:
    """Create the demo once (re-running changes nothing) and sign in as its first user."""
    user_id = await ensure_demo(uow)
    session = await auth.issue_session(uow, user_id=user_id, ttl=session_ttl)
    return DemoOut(
        cookie=session.secret,
        team_id=TEAM_ID,
        channel_id=CHANNEL_ID,
        entity_id=ENTITY_ID,
        user_id=user_id,
    )


async def ensure_demo(uow: UnitOfWork) -> str:
    """Create the demo once (re-running changes nothing); its first user's id."""
    await upsert_team(uow, team_id=TEAM_ID, name=TEAM_NAME, tenant_id=TENANT_ID, group_id=GROUP_ID)
    channel = await workspace.add_channel(
        uow, team_id=TEAM_ID, channel_id=CHANNEL_ID, name=CHANNEL_NAME
    )
    # As an installation leaves a channel: with the default rules, all off.
    await notification_rules.add_default_rules(uow, channel_ids=[channel.id])
    users = []
    for object_id, upn, name in USERS:
        user = await upsert_user(
            uow, source_id=object_id, username=upn, display_name=name, email=upn
        )
        await add_member(uow, team_id=TEAM_ID, user_ref=user.id)
        users.append(user)
    uow.actor = actor_of(users[0])
    uow.channel = await resolve_channel(
        uow, user_id=users[0].id, team_id=TEAM_ID, channel_id=CHANNEL_ID
    )
    await _seed_items(uow, [user.username for user in users])
    return users[0].id


async def _seed_items(uow: UnitOfWork, usernames: list[str]) -> None:
    """A handful of bugs and tasks, the first time only."""
    assert uow.channel is not None
    seeded = await uow.value(
        select(Item.id).where(Item.channel_id == uow.channel.channel_id).limit(1)
    )
    if seeded is not None:
        return
    now = uow.clock.now()
    for kind, rows in ((ItemKind.BUG, BUGS), (ItemKind.TASK, TASKS)):
        for name, status, priority, severity, who, due_in in rows:
            fields = {
                "name": name,
                "status": status,
                "priority": priority,
                "assignedTo": [usernames[index] for index in who],
                "dueDate": now + timedelta(days=due_in) if due_in is not None else None,
            }
            body = (
                BugCreate.model_validate({**fields, "severity": severity})
                if severity
                else (TaskCreate.model_validate(fields))
            )
            await items.create_item(uow, kind=kind, body=body, entity_id=None)
