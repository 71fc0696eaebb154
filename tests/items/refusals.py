"""What the refused-request tests share: a second team with a member, items created through the
API, and every row a refusal must leave as it was."""

from typing import Any

from aiohttp.test_utils import TestClient
from sqlalchemy import Column, Table, select

from bot.db.tables import Base, Item, ItemAssignee, ItemCounter, PendingEvent
from tests.factories import Factory, Member

TEAM_B = "19:team-b@thread.tacv2"
CHANNEL_B = "19:channel-b@thread.tacv2"


async def stored(factory: Factory) -> dict[str, list[dict[str, Any]]]:
    """Every item, assignee, counter and pending event row: what a refusal must leave alone."""
    tables = [
        Base.metadata.tables[model.__tablename__]
        for model in (Item, ItemAssignee, ItemCounter, PendingEvent)
    ]
    async with factory.work() as uow:
        return {
            table.name: [
                dict(row._mapping)
                for row in await uow.session.execute(
                    select(*request_columns(table)).order_by(*table.primary_key.columns)
                )
            ]
            for table in tables
        }


def request_columns(table: Table) -> list[Column[Any]]:
    """The columns a request writes: not when the worker's pump processed an event, which it
    does in the background whatever the request did."""
    processed = PendingEvent.__table__.c.processed_at
    return [column for column in table.columns if column is not processed]


async def create(
    client: TestClient, member: Member, of: str = "bug", team_b: bool = False, **fields: Any
) -> dict[str, Any]:
    """A new item of kind `of`, created through the API."""
    headers = member.in_channel(TEAM_B, CHANNEL_B) if team_b else member.in_channel()
    response = await client.post(f"/odata/{of}s", json={"name": "A bug", **fields}, headers=headers)
    assert response.status == 201, await response.text()
    return await response.json()


async def team_b_member(factory: Factory) -> Member:
    await factory.team(TEAM_B, name="Team B")
    await factory.channel(CHANNEL_B, team_id=TEAM_B)
    return await factory.member("Bob", team_id=TEAM_B)
