"""Talking to the bot in tests: say a command, click a button, read the cards it answered."""

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import ClientResponse
from aiohttp.test_utils import TestClient

from bot.directory.users import find_user, user_out
from cards.layout import Card
from tests.cards.samples import assert_valid
from tests.cards.samples import facts as facts  # where the chat tests read them
from tests.factories import CHANNEL, TEAM, Factory
from tests.teams.activities import ADA, card_action, mention, personal_message
from tests.teams.connector import Connector, TeamsMember

ADAPTIVE = "application/vnd.microsoft.card.adaptive"
Post = Callable[..., Awaitable[ClientResponse]]  # an activity to /api/messages, headers as keywords


def sent_cards(connector: Connector) -> list[Card]:
    """Every Adaptive Card the bot sent, each checked valid and under Teams' limit."""
    cards = [
        attachment["content"]
        for call in connector.sent()
        for attachment in (call.body or {}).get("attachments") or ()
        if attachment.get("contentType") == ADAPTIVE
    ]
    for card in cards:
        assert_valid(card)
    return cards


@dataclass
class Chat:
    """One person talking to the bot over real HTTP: in the channel, or in `group_chat`."""

    post: Post
    service_url: str
    connector: Connector
    sender: TeamsMember = ADA
    group_chat: str | None = None  # a group chat's id: messages and clicks go there

    def _where(self, fields: dict[str, Any]) -> dict[str, Any]:
        return {"sender": self.sender, "group_chat": self.group_chat, **fields}

    async def say(self, text: str, *, personal: bool = False, **fields: Any) -> Card:
        """The card answering a command (with a mention in the channel or the group chat, or
        in the 1:1 chat)."""
        self.connector.calls.clear()
        fields = self._where(fields)
        activity = (
            personal_message(self.service_url, text, **fields)
            if personal
            else mention(self.service_url, text, **fields)
        )
        response = await self.post(activity)
        assert response.status == 200
        [card] = sent_cards(self.connector)
        return card

    async def line(self, text: str, **fields: Any) -> str:
        """The one line answering a command the bot refuses."""
        self.connector.calls.clear()
        activity = mention(self.service_url, text, **self._where(fields))
        assert (await self.post(activity)).status == 200
        [said] = self.connector.texts()
        return said

    async def click(self, button: dict[str, Any], *, personal: bool = False, **typed: Any) -> Card:
        """The card that replaces the clicked one (on a card in the 1:1 chat if `personal`)."""
        activity = card_action(
            self.service_url,
            button,
            sender=self.sender,
            group_chat=self.group_chat,
            personal=personal,
            **typed,
        )
        response = await self.post(activity)
        assert response.status == 200
        body = await response.json()
        assert body["statusCode"] == 200 and body["type"] == ADAPTIVE
        assert_valid(body["value"])
        return body["value"]


async def api_headers(
    factory: Factory, member: TeamsMember, channel: str = CHANNEL
) -> dict[str, str]:
    """`member`'s session in a channel of Team A (its Bugs unless told), as REST API headers."""
    async with factory.work() as uow:
        user = user_out(await find_user(uow, ref=member.object_id))
    return {
        "Cookie": f"graphNodeCookie={await factory.session(user)}",
        "x-svc-teamid": TEAM,
        "x-svc-channelId": channel,
    }


async def rest_items(
    client: TestClient,
    factory: Factory,
    member: TeamsMember,
    of: str = "bug",
    *,
    channel: str = CHANNEL,
    **params: str,
) -> list[dict[str, Any]]:
    """A channel's items (Team A's Bugs unless told) as the REST API shows them to `member`."""
    headers = await api_headers(factory, member, channel)
    response = await client.get(f"/odata/{of}s", params=params, headers=headers)
    assert response.status == 200, await response.text()
    return list((await response.json())["value"])
