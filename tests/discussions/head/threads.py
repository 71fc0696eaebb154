"""A started thread for an item (as starting a discussion leaves it), and what tests do with it:
change items over the API, run the worker's turns, read what reached the connector."""

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from aiohttp.test_utils import TestClient
from sqlalchemy import select

from bot.db.tables import Channel, DiscussionMessage, ItemThread
from bot.directory.users import find_user, user_out
from bot.discussions.heads import current_root
from bot.ids import new_id
from bot.keys import MESSENGER, WORKER
from tests.cards import samples
from tests.factories import CHANNEL, Factory, Member, create_item
from tests.teams.activities import ADA, GRACE, LIN
from tests.teams.connector import Call, Connector, TeamsMember

WINDOW = timedelta(seconds=2)  # THREAD_COALESCE_SECONDS's default


@dataclass
class Rig:
    bot: TestClient
    connector: Connector
    factory: Factory
    ada: Member
    grace: Member
    lin: Member

    @classmethod
    async def open(cls, bot: TestClient, connector: Connector, factory: Factory) -> "Rig":
        members = [await member(factory, person) for person in (ADA, GRACE, LIN)]
        return cls(bot, connector, factory, *members)

    async def bug(self, of: str = "bug", **fields: Any) -> dict[str, Any]:
        """A bug (or an item `of` another kind) made by Ada over the API."""
        return await create_item(self.bot, self.ada, of, **fields)

    async def discussed_bug(self, of: str = "bug", **fields: Any) -> tuple[dict[str, Any], str]:
        """A bug (or task) with a started thread; its thread's conversation id."""
        bug = await self.bug(of, **fields)
        return bug, await start_thread(self.bot, self.factory, bug["_id"])

    async def patch(self, who: Member, item_id: str, of: str = "bug", **fields: Any) -> None:
        response = await self.bot.patch(
            f"/odata/{of}s({item_id})", json=fields, headers=who.in_channel()
        )
        assert response.status == 204, await response.text()

    async def delete(self, who: Member, item_id: str) -> None:
        response = await self.bot.delete(f"/odata/bugs({item_id})", headers=who.in_channel())
        assert response.status == 204, await response.text()

    async def turn(self, after: timedelta = timedelta(0)) -> None:
        """Let `after` pass, then one turn of the worker: pending events, then due jobs."""
        self.factory.clock.advance(after)
        await self.bot.app[WORKER].run_once()

    def updates(self) -> list[Call]:
        return [call for call in self.connector.calls if call.method == "PUT"]

    def replies(self) -> list[Call]:
        return self.connector.sent()


async def member(factory: Factory, person: TeamsMember) -> Member:
    """A person roster sync added, signed in to the API."""
    async with factory.work() as uow:
        user = user_out(await find_user(uow, ref=person.object_id))
    return Member(user=user, cookie=await factory.session(user))


async def start_thread(bot: TestClient, factory: Factory, item_id: str) -> str:
    """The item's thread, started: its row, and its root message holding the item's card."""
    root_id = new_id()[-13:]
    conversation_id = f"{CHANNEL};messageid={root_id}"
    async with factory.work() as uow:
        channel_id = await uow.value(select(Channel.id).where(Channel.teams_id == CHANNEL))
        now = uow.clock.now()
        root = await current_root(uow, item_id=item_id)
        assert root is not None
        uow.add(
            ItemThread(
                item_id=item_id,
                channel_id=channel_id,
                conversation_id=conversation_id,
                root_message_id=root_id,
                started_by=None,
                started_at=now,
            ),
            DiscussionMessage(
                id=new_id(),
                item_id=item_id,
                message_id=root_id,
                reply_to_id=None,
                author_kind="application",
                author_id=None,
                author_user_id=None,
                author_name="Tracker",
                body="",
                card=bot.app[MESSENGER].describe(root),
                mentions=[],
                created_at=now,
                modified_at=now,
                edited_at=None,
                deleted_at=None,
            ),
        )
    return conversation_id


async def messages(factory: Factory, item_id: str) -> list[DiscussionMessage]:
    """The item's stored discussion, root first."""
    async with factory.work(write=False) as uow:
        return await uow.entities(
            select(DiscussionMessage)
            .where(DiscussionMessage.item_id == item_id)
            .order_by(DiscussionMessage.created_at, DiscussionMessage.reply_to_id.is_not(None))
        )


def facts(card: dict[str, Any]) -> dict[str, str]:
    """A posted root card's facts by name (it is an Adaptive Card, as Teams' stub insists)."""
    return samples.facts(card)
