"""Stored messages in the seed's Discussion message shape, as Microsoft Graph writes them."""

from functools import lru_cache
from typing import Any
from urllib.parse import quote, urlencode

import orjson

from bot.discussions.service import APPLICATION, Place
from bot.timestamps import format_timestamp

# The content type the API reports for the root's attachment (the seed's), never one posted.
CONNECTOR_CARD = "application/vnd.microsoft.teams.card.o365connector"
TEAMS_LINK = "https://teams.microsoft.com/l/message"
CHANNEL_LINK = "https://teams.microsoft.com/l/channel"
LINKS_KEPT = 256  # threads whose link parts are kept: a page's messages share one
LOCALE = "en-us"


def context(base_url: str, name: str, *, entity: bool = False) -> str:
    """`@odata.context` of a discussion's list (`messages`, `comments`) or of one message."""
    return f"{base_url.rstrip('/')}/odata/$metadata#{name}" + ("/$entity" if entity else "")


def web_url(place: Place, *, message_id: str, root_id: str) -> str:
    """The Teams deep link to a message of the thread whose root is `root_id`."""
    channel, query = _thread_link(place, root_id)
    return f"{channel}/{quote(message_id, safe='')}?{query}"


def channel_url(place: Place) -> str:
    """The Teams deep link to the channel: where a message with no thread there points."""
    name = quote(place.channel_name, safe="")
    query = urlencode(
        {"groupId": place.group_id or "", "tenantId": place.tenant_id or ""}, quote_via=quote
    )
    return f"{CHANNEL_LINK}/{quote(place.channel_id, safe=':@')}/{name}?{query}"


@lru_cache(maxsize=LINKS_KEPT)
def _thread_link(place: Place, root_id: str) -> tuple[str, str]:
    """What every message of a thread's links shares: made once per thread, not per message."""
    query = {
        "tenantId": place.tenant_id or "",
        "groupId": place.group_id or "",
        "parentMessageId": root_id,
        "teamName": place.team_name,
        "channelName": place.channel_name,
    }
    return f"{TEAMS_LINK}/{quote(place.channel_id, safe=':@')}", urlencode(query, quote_via=quote)


def message(row: Any, place: Place, *, root_id: str | None) -> dict[str, Any]:
    """One stored message (root or reply) as the API shows it; with no `root_id` (the item has
    no thread: a comment from its source), its link is the channel's."""
    modified = row["modified_at"]
    edited, deleted = row["edited_at"], row["deleted_at"]
    return {
        "id": row["message_id"],
        # Graph's etag is the last change in milliseconds since the epoch.
        "etag": str(int(modified.timestamp() * 1000)),
        "replyToId": row["reply_to_id"],
        "messageType": "message",
        "createdDateTime": format_timestamp(row["created_at"]),
        "lastModifiedDateTime": format_timestamp(modified),
        "lastEditedDateTime": format_timestamp(edited) if edited else None,
        "deletedDateTime": format_timestamp(deleted) if deleted else None,
        "subject": None,
        "summary": None,
        "chatId": None,
        "importance": "normal",
        "locale": LOCALE,
        "webUrl": (
            web_url(place, message_id=row["message_id"], root_id=root_id)
            if root_id is not None
            else channel_url(place)
        ),
        "policyViolation": None,
        "from": sender(row["author_kind"], row["author_id"], row["author_name"]),
        "body": {"contentType": "html", "content": row["body"]},
        "channelIdentity": {"teamId": place.team_id, "channelId": place.channel_id},
        "attachments": _attachments(row),
        "mentions": row["mentions"] or [],
        "reactions": [],
    }


def sender(kind: str, identity: str | None, name: str | None) -> dict[str, Any]:
    """`from` (or a mention's `mentioned`): an application or a user, the rest null."""
    who: dict[str, Any] = {"application": None, "device": None, "conversation": None, "user": None}
    if kind == APPLICATION:
        who["application"] = {
            "id": identity,
            "displayName": name,
            "applicationIdentityType": "bot",
        }
    else:
        who["user"] = {"id": identity, "displayName": name, "userIdentityType": "aadUser"}
    return who


def _attachments(row: Any) -> list[dict[str, Any]]:
    card = row["card"]
    if card is None:
        return []
    return [
        {
            "id": row["message_id"],
            "contentType": CONNECTOR_CARD,
            "contentUrl": None,
            "content": orjson.dumps(card).decode(),
            "name": None,
            "thumbnailUrl": None,
        }
    ]
