"""Small factories that create directory rows and credentials through the real services."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from aiohttp.test_utils import TestClient
from sqlalchemy import insert, update
from sqlalchemy.ext.asyncio import AsyncEngine

from bot import workspace
from bot.auth import service as auth
from bot.clock import FrozenClock
from bot.db.engine import create_engine, session_factory
from bot.db.tables import Item, ItemCounter
from bot.db.uow import UnitOfWork, unit_of_work
from bot.directory.schemas import ChannelOut, MembershipType, TeamOut, UserOut
from bot.directory.teams import upsert_team
from bot.directory.users import add_member, upsert_user
from bot.ids import new_id
from tests.waiting import PATIENCE

TENANT = "72f988bf-86f1-41af-91ab-2d7cd011db47"
TEAM = "19:team-a@thread.tacv2"
CHANNEL = "19:channel-a@thread.tacv2"
SESSION_TTL = timedelta(hours=8)


@dataclass
class Member:
    user: UserOut
    cookie: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Cookie": f"graphNodeCookie={self.cookie}"}

    def in_channel(self, team: str = TEAM, channel: str = CHANNEL) -> dict[str, str]:
        return {**self.headers, "x-svc-teamid": team, "x-svc-channelId": channel}


class Factory:
    def __init__(self, engine: AsyncEngine, clock: FrozenClock) -> None:
        self.engine, self.clock = engine, clock
        self._sessions = session_factory(engine)
        self._count = 0

    @classmethod
    @asynccontextmanager
    async def open(cls, url: str, clock: FrozenClock) -> AsyncIterator["Factory"]:
        # The test's own setup and checks are bounded only against a hang: the app's statement
        # bound is the app's, and bulk setup on a loaded machine can outrun it.
        engine = create_engine(url, statement_timeout_s=PATIENCE)
        try:
            yield cls(engine, clock)
        finally:
            await engine.dispose()

    @asynccontextmanager
    async def work(self, *, write: bool = True) -> AsyncIterator[UnitOfWork]:
        async with unit_of_work(self._sessions, self.clock, write=write) as uow:
            yield uow

    async def team(
        self,
        team_id: str = TEAM,
        *,
        name: str = "Team A",
        tenant_id: str = TENANT,
        group_id: str | None = "a0a0a0a0-0000-0000-0000-000000000001",
    ) -> TeamOut:
        async with self.work() as uow:
            return await upsert_team(
                uow, team_id=team_id, name=name, tenant_id=tenant_id, group_id=group_id
            )

    async def channel(
        self,
        channel_id: str = CHANNEL,
        *,
        team_id: str = TEAM,
        name: str = "Bugs",
        membership: MembershipType = MembershipType.STANDARD,
    ) -> ChannelOut:
        async with self.work() as uow:
            return await workspace.add_channel(
                uow, team_id=team_id, channel_id=channel_id, name=name, membership_type=membership
            )

    async def user(self, name: str | None = None) -> UserOut:
        self._count += 1
        name = name or f"User {self._count}"
        handle = name.lower().replace(" ", ".")
        async with self.work() as uow:
            return await upsert_user(
                uow,
                source_id=f"00000000-0000-0000-0000-{self._count:012d}",
                username=f"{handle}@contoso.test",
                display_name=name,
                email=f"{handle}@contoso.test",
            )

    async def session(self, user: UserOut, *, ttl: timedelta = SESSION_TTL) -> str:
        async with self.work() as uow:
            return (await auth.issue_session(uow, user_id=user.id, ttl=ttl)).secret

    async def api_token(self, user: UserOut, *, ttl: timedelta = timedelta(days=90)) -> str:
        async with self.work() as uow:
            return (await auth.issue_api_token(uow, user_id=user.id, ttl=ttl)).secret

    async def join(self, user: UserOut, team_id: str = TEAM) -> None:
        async with self.work() as uow:
            await add_member(uow, team_id=team_id, user_ref=user.id)

    async def member(self, name: str | None = None, *, team_id: str = TEAM) -> Member:
        """A signed-in user who belongs to the team (Team A and its channel are made if missing)."""
        if team_id == TEAM:
            await self.standard_team()
        user = await self.user(name)
        await self.join(user, team_id)
        return Member(user=user, cookie=await self.session(user))

    async def standard_team(self) -> None:
        """Team A with its standard channel."""
        await self.team()
        await self.channel()


async def create_item(client: TestClient, member: Member, of: str = "bug", **fields: Any) -> dict:
    """A new item of kind `of`, created through the API (201 asserted)."""
    response = await client.post(
        f"/odata/{of}s", json={"name": "A bug", **fields}, headers=member.in_channel()
    )
    assert response.status == 201, await response.text()
    return await response.json()


async def insert_copies(factory: Factory, template_id: str, count: int) -> None:
    """`count` more bugs like the template, inserted directly for speed and numbered on."""
    async with factory.work() as uow:
        template = await uow.session.get(Item, template_id)
        assert template is not None
        columns = {column.key: getattr(template, column.key) for column in Item.__table__.columns}
        copies = []
        for number in range(template.internal_id + 1, template.internal_id + 1 + count):
            item_id = new_id()
            copies.append({**columns, "id": item_id, "source_id": item_id, "internal_id": number})
        await uow.session.execute(insert(Item), copies)
        await uow.session.execute(
            update(ItemCounter)
            .where(ItemCounter.channel_id == template.channel_id, ItemCounter.kind == "bug")
            .values(last_internal_id=template.internal_id + count)
        )
