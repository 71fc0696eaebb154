"""Teams-shaped activities, and Bot Framework tokens signed with a local key."""

import itertools
import time
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from tests.auth.jwks import SigningKey
from tests.factories import CHANNEL, TEAM, TENANT
from tests.teams.connector import TeamsMember

APP_ID = "3c1d2e4f-0000-4000-8000-00000000b07a"
BOT_ID = f"28:{APP_ID}"
BOT_FRAMEWORK_ISSUER = "https://api.botframework.com"

ADA = TeamsMember("0a0a0a0a-0000-4000-8000-0000000000a1", "ada@contoso.test", "Ada Lovelace")
GRACE = TeamsMember("0a0a0a0a-0000-4000-8000-0000000000b2", "grace@contoso.test", "Grace Hopper")
LIN = TeamsMember("0a0a0a0a-0000-4000-8000-0000000000c3", "lin@contoso.test", "Lin Chen")
MALLORY = TeamsMember("0a0a0a0a-0000-4000-8000-0000000000d4", "mallory@else.test", "Mallory")
# A group chat's conversation id, as Teams makes them; the chat belongs to no team.
GROUP_CHAT = "19:8d1a3c0e5b7f4e2a9c6d0b1f3e5a7c9d@thread.v2"

_ids = itertools.count(1)


def teams_activity(
    kind: str,
    service_url: str,
    *,
    sender: TeamsMember | None = ADA,
    team: str | None = TEAM,
    channel: str | None = CHANNEL,
    event_type: str | None = None,
    channel_name: str | None = None,
    group_chat: str | None = None,
    **fields: Any,
) -> dict[str, Any]:
    """An activity as Teams posts it to the bot: tenant, team and channel in channelData; in a
    group chat (`group_chat`, the chat's id) the tenant alone, whatever `team` and `channel` say."""
    if group_chat:
        team = channel = None
    channel_data: dict[str, Any] = {"tenant": {"id": TENANT}}
    if team:
        channel_data["team"] = {"id": team, "name": "Team A", "aadGroupId": "group-a"}
    if channel:
        channel_data["channel"] = {"id": channel, "name": channel_name}
    if event_type:
        channel_data["eventType"] = event_type
    activity: dict[str, Any] = {
        "type": kind,
        "id": f"17000000000{next(_ids)}",
        "channelId": "msteams",
        "serviceUrl": service_url,
        "timestamp": "2026-11-21T09:30:00.000Z",
        "conversation": _conversation(kind, channel, group_chat, sender),
        "recipient": {"id": BOT_ID, "name": "Tracker"},
        "channelData": channel_data,
        **fields,
    }
    if sender is not None:
        activity["from"] = {
            "id": sender.account["id"],
            "name": sender.name,
            "aadObjectId": sender.object_id,
        }
    return activity


def _conversation(
    kind: str, channel: str | None, group_chat: str | None, sender: TeamsMember | None
) -> dict[str, Any]:
    """The conversation of a channel (a message: its thread), a group chat or the sender's 1:1
    chat with the bot."""
    if group_chat:
        return {
            "id": group_chat,
            "conversationType": "groupChat",
            "isGroup": True,
            "tenantId": TENANT,
        }
    if channel:
        thread = f"{channel};messageid=1700000000000" if kind == "message" else channel
        return {"id": thread, "conversationType": "channel", "isGroup": True, "tenantId": TENANT}
    return {
        "id": personal_chat_id(sender),
        "conversationType": "personal",
        "isGroup": False,
        "tenantId": TENANT,
    }


def personal_chat_id(member: TeamsMember | None) -> str:
    """The id Teams gives a person's 1:1 chat with the bot (one per person)."""
    return f"a:1personal-{member.object_id if member else 'nobody'}"


def personal_installed(service_url: str, sender: TeamsMember = ADA) -> dict[str, Any]:
    """The installationUpdate Teams sends when someone adds the app in their personal scope."""
    return teams_activity(
        "installationUpdate", service_url, sender=sender, team=None, channel=None, action="add"
    )


def personal_removed(service_url: str, sender: TeamsMember = ADA) -> dict[str, Any]:
    """The installationUpdate Teams sends when someone removes the app from their personal scope."""
    return teams_activity(
        "installationUpdate", service_url, sender=sender, team=None, channel=None, action="remove"
    )


def mention(
    service_url: str, text: str, *, people: tuple[TeamsMember, ...] = (), **fields: Any
) -> dict[str, Any]:
    """A channel message that @mentions the bot (and `people`, named in `text` as `<at>…</at>`)."""
    return teams_activity(
        "message",
        service_url,
        text=f"<at>Tracker</at> {text}",
        entities=[
            {
                "type": "mention",
                "mentioned": {"id": BOT_ID, "name": "Tracker"},
                "text": "<at>Tracker</at>",
            },
            *map(person_mention, people),
        ],
        **fields,
    )


def installed(service_url: str) -> dict[str, Any]:
    """The conversationUpdate Teams sends when the app is added to a team."""
    return teams_activity(
        "conversationUpdate",
        service_url,
        channel=TEAM,
        event_type="teamMemberAdded",
        membersAdded=[{"id": BOT_ID}],
    )


def emulator_message(service_url: str, text: str) -> dict[str, Any]:
    """What the Bot Framework Emulator sends: no tenant, team, channel or Entra id."""
    return {
        "type": "message",
        "id": f"emulator-{next(_ids)}",
        "channelId": "emulator",
        "serviceUrl": service_url,
        "from": {"id": "emulator-user", "name": "User", "role": "user"},
        "recipient": {"id": "emulator-bot", "name": "Bot", "role": "bot"},
        "conversation": {"id": "emulator-conversation-1"},
        "text": text,
    }


@dataclass
class BotFrameworkIssuer:
    """Signs tokens as the Bot Framework does and publishes its keys as OpenID metadata."""

    key: SigningKey
    base_url: str = ""

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/v1/.well-known/openidconfiguration", self._metadata)
        app.router.add_get("/keys", self._keys)
        return app

    @property
    def metadata_url(self) -> str:
        return f"{self.base_url}/v1/.well-known/openidconfiguration"

    def token(self, service_url: str, *, key: SigningKey | None = None, **overrides: Any) -> str:
        now = int(time.time())
        claims = {
            "iss": BOT_FRAMEWORK_ISSUER,
            "aud": APP_ID,
            "serviceurl": service_url,
            "nbf": now - 60,
            "exp": now + 3600,
        }
        claims.update(overrides)
        return (key or self.key).sign({k: v for k, v in claims.items() if v is not None})

    async def _metadata(self, _request: web.Request) -> web.Response:
        return web.json_response(
            {"issuer": BOT_FRAMEWORK_ISSUER, "jwks_uri": f"{self.base_url}/keys"}
        )

    async def _keys(self, _request: web.Request) -> web.Response:
        return web.json_response({"keys": [{**self.key.jwk(), "endorsements": ["msteams"]}]})


def person_mention(member: TeamsMember) -> dict[str, Any]:
    """The entity Teams adds for a person @mentioned in a message."""
    return {
        "type": "mention",
        "mentioned": {
            "id": member.account["id"],
            "name": member.name,
            "aadObjectId": member.object_id,
        },
        "text": f"<at>{member.name}</at>",
    }


def personal_message(service_url: str, text: str, **fields: Any) -> dict[str, Any]:
    """A message in the 1:1 chat with the bot (no team, no channel)."""
    return teams_activity("message", service_url, team=None, channel=None, text=text, **fields)


def invoke(service_url: str, name: str, value: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """An invoke activity (card action, messaging extension) in the channel unless told."""
    return teams_activity("invoke", service_url, name=name, value=value, **fields)


def card_action(
    service_url: str,
    button: dict[str, Any],
    *,
    sender: TeamsMember = ADA,
    group_chat: str | None = None,
    personal: bool = False,
    **typed: Any,
) -> dict[str, Any]:
    """What Teams posts when an Action.Execute is clicked (by `sender`, in the channel, in
    `group_chat` or in the sender's 1:1 chat): its verb, its data and the inputs."""
    value = {
        "action": {
            "type": "Action.Execute",
            "verb": button["verb"],
            "data": {**button.get("data", {}), **typed},
        },
        "trigger": "manual",
    }
    where: dict[str, Any] = {"team": None, "channel": None} if personal else {}
    return invoke(
        service_url, "adaptiveCard/action", value, sender=sender, group_chat=group_chat, **where
    )
