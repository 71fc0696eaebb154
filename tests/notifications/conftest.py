"""Two rigs: the thread rig (tests/discussions/head) for notification rules, and the personal
notifications rig: the real app and its worker's turns, the local connector with Team A
installed through the bot, and its members signed in to the REST API."""

from dataclasses import dataclass
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from pytest_aiohttp import AiohttpClient, AiohttpServer

from bot.app import create_app
from bot.clock import FrozenClock
from bot.directory.users import find_user, user_out
from bot.keys import WORKER
from cards.layout import Card
from tests.discussions.head.conftest import bot, connector, post, rig, service_url
from tests.factories import CHANNEL, TEAM, Factory, Member
from tests.teams.activities import (
    ADA,
    GRACE,
    LIN,
    installed,
    personal_chat_id,
    personal_installed,
)
from tests.teams.bot import ADAPTIVE
from tests.teams.connector import Connector, TeamsMember

__all__ = ["Office", "bot", "connector", "office", "post", "rig", "service_url"]

PUBLIC_URL = "https://tracker.example.test"


@dataclass
class Office:
    """Team A's people at work: Teams activities in, REST calls, what reached each 1:1 chat."""

    client: TestClient
    connector: Connector
    service_url: str
    factory: Factory

    async def teams(self, activity: dict[str, Any]) -> None:
        """Post an activity to the bot as Teams does; the bot answers 200."""
        response = await self.client.post("/api/messages", json=activity)
        assert response.status == 200, await response.text()

    async def added_personally(self, who: TeamsMember) -> None:
        """`who` adds the app in their personal scope; the greeting it answers is left out of
        what the connector shows next."""
        await self.teams(personal_installed(self.service_url, who))
        self.connector.calls.clear()

    async def member(self, who: TeamsMember) -> Member:
        """`who` signed in to the REST API, as roster sync recorded them."""
        async with self.factory.work() as uow:
            user = user_out(await find_user(uow, ref=who.object_id))
        return Member(user=user, cookie=await self.factory.session(user))

    async def bug(self, by: Member, **fields: Any) -> dict[str, Any]:
        response = await self.client.post(
            "/odata/bugs", json={"name": "Checkout is down", **fields}, headers=by.in_channel()
        )
        assert response.status == 201, await response.text()
        return dict(await response.json())

    async def assign(self, by: Member, item_id: str, *people: TeamsMember) -> None:
        """PATCH the bug's assignees (by UPN), as the REST API's clients do."""
        response = await self.client.patch(
            f"/odata/bugs({item_id})",
            json={"assignedTo": [person.upn for person in people]},
            headers=by.in_channel(),
        )
        assert response.status == 204, await response.text()

    async def work_off(self) -> None:
        """Run the worker's turns until nothing is left: the pump, then the sends it queued."""
        worker = self.client.app[WORKER]
        while await worker.run_once():
            pass

    def personal_cards(self, who: TeamsMember) -> list[Card]:
        """The cards the bot sent to `who`'s 1:1 chat."""
        path = f"/v3/conversations/{personal_chat_id(who)}/activities"
        return [
            attachment["content"]
            for call in self.connector.sent()
            if call.path == path
            for attachment in call.body.get("attachments") or ()
            if attachment["contentType"] == ADAPTIVE
        ]


@pytest.fixture
async def office(
    db: str,
    make_settings,  # noqa: ANN001
    clock: FrozenClock,
    aiohttp_client: AiohttpClient,
    aiohttp_server: AiohttpServer,
    factory: Factory,
) -> Office:
    connector = Connector(
        team_id=TEAM, channels={TEAM: None, CHANNEL: "Bugs"}, members=[ADA, GRACE, LIN]
    )
    server = await aiohttp_server(connector.app())
    service_url = str(server.make_url("")).rstrip("/")
    settings = make_settings(db, JOBS_POLL_SECONDS=0, PUBLIC_URL=PUBLIC_URL)
    client = await aiohttp_client(create_app(settings, clock=clock))
    office = Office(client, connector, service_url, factory)
    await office.teams(installed(service_url))
    connector.calls.clear()
    return office
