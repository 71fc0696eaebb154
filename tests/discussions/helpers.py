"""Talking to the discussion API and posting as Teams does in a thread."""

import itertools
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from aiohttp import ClientResponse
from aiohttp.test_utils import TestClient
from sqlalchemy import select

from bot.db.tables import DiscussionMessage, ItemThread
from tests.factories import CHANNEL, Factory, Member, create_item
from tests.teams.activities import ADA, person_mention, teams_activity
from tests.teams.connector import Connector, TeamsMember

_ids = itertools.count(1)
LATER = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
CONNECTOR_CARD = "application/vnd.microsoft.teams.card.o365connector"  # the API's description
ADAPTIVE_CARD = "application/vnd.microsoft.card.adaptive"  # what the bot posts


@dataclass
class Desk:
    client: TestClient
    connector: Connector
    service_url: str
    factory: Factory
    ada: Member

    async def bug(self, **fields: Any) -> dict[str, Any]:
        return await create_item(self.client, self.ada, **fields)

    async def start(self, item_id: str, of: str = "bugs", **headers: str) -> ClientResponse:
        return await self.client.post(
            f"/api/{of}/{item_id}/messages", headers={**self.ada.in_channel(), **headers}
        )

    async def started(self, item_id: str, of: str = "bugs") -> dict[str, Any]:
        response = await self.start(item_id, of)
        assert response.status == 200, await response.text()
        self.connector.calls.clear()
        return dict(await response.json())

    async def messages(self, item_id: str, of: str = "bugs", **params: str) -> ClientResponse:
        return await self.client.get(
            f"/api/{of}/{item_id}/messages", params=params, headers=self.ada.in_channel()
        )

    async def comments(self, item_id: str, of: str = "bugs", **params: str) -> ClientResponse:
        return await self.client.get(
            f"/api/{of}/{item_id}/comments", params=params, headers=self.ada.in_channel()
        )

    async def comment(self, item_id: str, body: Any, of: str = "bugs") -> ClientResponse:
        return await self.client.post(
            f"/api/{of}/{item_id}/comments", json=body, headers=self.ada.in_channel()
        )

    async def teams(self, activity: dict[str, Any]) -> None:
        """Post an activity to the bot as Teams does; the bot answers 200."""
        response = await self.client.post("/api/messages", json=activity)
        assert response.status == 200, await response.text()

    def reply(
        self,
        root_id: str,
        html: str,
        *,
        sender: TeamsMember = ADA,
        message_id: str | None = None,
        at: datetime | None = None,
        mentioning: tuple[TeamsMember, ...] = (),
        channel: str = CHANNEL,
    ) -> dict[str, Any]:
        """A reply in the thread `root_id` as Teams sends it to a bot with RSC: no mention."""
        return thread_activity(
            "message",
            self.service_url,
            f"{channel};messageid={root_id}",
            message_id or f"17100000000{next(_ids)}",
            html,
            sender=sender,
            # After the root (posted at the frozen clock's start), in the order sent.
            at=at or LATER + timedelta(seconds=next(_ids)),
            replyToId=root_id,
            entities=[person_mention(person) for person in mentioning],
        )

    async def stored(self) -> tuple[list[Any], list[Any]]:
        """Every thread row and message row, as the database holds them."""
        async with self.factory.work() as uow:
            threads = (await uow.session.execute(select(*ItemThread.__table__.c))).all()
            messages = (
                await uow.session.execute(
                    select(*DiscussionMessage.__table__.c).order_by(DiscussionMessage.created_at)
                )
            ).all()
        return list(threads), list(messages)


def thread_activity(
    kind: str,
    service_url: str,
    conversation_id: str,
    message_id: str,
    html: str,
    *,
    sender: TeamsMember = ADA,
    at: datetime | None = None,
    event_type: str | None = None,
    **fields: Any,
) -> dict[str, Any]:
    """A message, or an edit or deletion of one, in a channel thread."""
    activity = teams_activity(
        kind,
        service_url,
        sender=sender,
        event_type=event_type,
        conversation={
            "id": conversation_id,
            "conversationType": "channel",
            "isGroup": True,
            "tenantId": "tenant",
        },
        text=html,
        textFormat="plain",
        attachments=[{"contentType": "text/html", "content": f"<p>{html}</p>"}],
        **fields,
    )
    activity["id"] = message_id
    if at is not None:
        activity["timestamp"] = at.isoformat().replace("+00:00", "Z")
    return activity
