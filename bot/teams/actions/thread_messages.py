"""Channel messages the bot reads with resource-specific consent (ChannelMessage.Read.Group):
a reply in an item's thread is kept as part of its discussion, with its edits, deletions and
restorations; any other channel message that does not @mention the bot is none of its business."""

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from botbuilder.schema import Activity

from bot.db.uow import UnitOfWork
from bot.discussions import service as discussions
from bot.discussions.service import APPLICATION, USER, TeamsMessage
from bot.discussions.shapes import sender
from bot.timestamps import as_utc

HTML = "text/html"
BOT_PREFIX = "28:"  # a bot's Teams id; people's start with "29:"


def entities_of(activity: Activity) -> list[dict[str, Any]]:
    """The activity's entities as dicts (the SDK keeps a mention's fields aside)."""
    return [
        {**(entity.additional_properties or {}), "type": entity.type}
        for entity in activity.entities or ()
    ]


def is_channel_post(activity: Activity) -> bool:
    """A message people posted in a channel (not a chat, not a card's submit)."""
    conversation = activity.conversation
    kind = conversation.conversation_type if conversation else None
    return kind == "channel" and activity.value is None


def mentions_bot(entities: Sequence[Mapping[str, Any]], bot_id: str | None) -> bool:
    return bot_id is not None and any(
        entity.get("type") == "mention"
        and isinstance(entity.get("mentioned"), Mapping)
        and entity["mentioned"].get("id") == bot_id
        for entity in entities
    )


async def in_thread(uow: UnitOfWork, activity: Activity) -> bool:
    """Whether the message was posted in an item's thread."""
    conversation_id = activity.conversation.id
    return await discussions.thread_item(uow, conversation_id=conversation_id) is not None


async def keep_reply(
    uow: UnitOfWork,
    activity: Activity,
    entities: Sequence[Mapping[str, Any]],
    *,
    onward: discussions.Onward | None = None,
) -> bool:
    """Store the message if its conversation is an item's thread (and note it for `onward`,
    the item's source); whether it was one."""
    sent_by = activity.from_property
    message = TeamsMessage(
        message_id=str(activity.id),
        author_id=sent_by.aad_object_id if sent_by else None,
        author_name=sent_by.name if sent_by else None,
        body=body_of(activity),
        mentions=graph_mentions(entities),
        at=_when(uow, activity),
    )
    # What the bot posted itself (a comment from the item's source, told) never goes back out.
    from_bot = bool(sent_by and str(sent_by.id or "").startswith(BOT_PREFIX))
    return await discussions.record_reply(
        uow,
        conversation_id=activity.conversation.id,
        message=message,
        onward=None if from_bot else onward,
    )


async def keep_edit(
    uow: UnitOfWork, activity: Activity, *, revised: discussions.Revised | None = None
) -> None:
    """Store the message's new body (and note it for `revised`, the item's source)."""
    await discussions.record_edit(
        uow,
        conversation_id=activity.conversation.id,
        message_id=str(activity.id),
        body=body_of(activity),
        at=_when(uow, activity),
        revised=revised,
    )


async def keep_deletion(
    uow: UnitOfWork,
    activity: Activity,
    *,
    deleted: bool,
    revised: discussions.Revised | None = None,
) -> None:
    await discussions.record_deletion(
        uow,
        conversation_id=activity.conversation.id,
        message_id=str(activity.id),
        at=_when(uow, activity),
        deleted=deleted,
        revised=revised,
    )


def body_of(activity: Activity) -> str:
    """The message's HTML: Teams' `text/html` attachment when there is one, else its text.
    Files attached in Teams never reach a bot: only this body does, links in it included."""
    for attachment in activity.attachments or ():
        if attachment.content_type == HTML and isinstance(attachment.content, str):
            return attachment.content
    return activity.text or ""


def graph_mentions(entities: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The message's mentions as Microsoft Graph lists them."""
    found: list[dict[str, Any]] = []
    for entity in entities:
        mentioned = entity.get("mentioned")
        if entity.get("type") != "mention" or not isinstance(mentioned, Mapping):
            continue
        teams_id = str(mentioned.get("id") or "")
        name = mentioned.get("name")
        if teams_id.startswith(BOT_PREFIX):
            who = sender(APPLICATION, teams_id.removeprefix(BOT_PREFIX), name)
        else:
            who = sender(USER, mentioned.get("aadObjectId") or teams_id, name)
        found.append({"id": len(found), "mentionText": name, "mentioned": who})
    return found


def _when(uow: UnitOfWork, activity: Activity) -> datetime:
    """When Teams says it happened, else now."""
    stamp = activity.timestamp
    return as_utc(stamp) if isinstance(stamp, datetime) else uow.clock.now()
