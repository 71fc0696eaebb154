"""Conversation references in the database: how the notifier reaches a channel or a chat later."""

from typing import Any

from sqlalchemy import insert, select, update

from bot.db.tables import Channel, ConversationReference, Team
from bot.db.uow import UnitOfWork
from bot.errors import NotFound


def channel_reference(turn_reference: dict[str, Any], *, channel_id: str) -> dict[str, Any]:
    """A turn's reference pointed at a channel's own conversation (its thread id)."""
    conversation = dict(turn_reference.get("conversation") or {})
    conversation.update(id=channel_id, isGroup=True, conversationType="channel")
    conversation.pop("name", None)
    reference = {**turn_reference, "conversation": conversation}
    reference.pop("activityId", None)
    return reference


async def save(
    uow: UnitOfWork, *, reference: dict[str, Any], channel_ref: str | None = None
) -> None:
    """Record (or refresh) the reference under its conversation id; `channel_ref` is our channel."""
    conversation = reference["conversation"]
    # A redelivered activity saving the same one waits, then refreshes this row.
    await uow.hold(f"conversation {conversation['id']}")
    key = ConversationReference.conversation_id == conversation["id"]
    row = {
        "channel_id": channel_ref,
        "service_url": reference["serviceUrl"],
        "tenant_id": conversation.get("tenantId"),
        "reference": reference,
        "updated_at": uow.clock.now(),
    }
    if await uow.value(select(ConversationReference.conversation_id).where(key)) is None:
        await uow.execute(
            insert(ConversationReference).values(conversation_id=conversation["id"], **row)
        )
    else:
        await uow.execute(update(ConversationReference).where(key).values(row))


async def load(uow: UnitOfWork, *, conversation_id: str) -> dict[str, Any]:
    """The stored reference of a conversation, or of the channel whose thread id it is."""
    # A thread (`<channel>;messageid=<root>`) is reached through its channel's reference.
    channel_id, _, root = conversation_id.partition(";messageid=")
    # A statement, not the ORM: a read takes one pooled connection, whatever else it reads.
    stored: dict[str, Any] | None = await uow.value(
        select(ConversationReference.reference).where(
            ConversationReference.conversation_id == channel_id
        )
    )
    if stored is None:
        raise NotFound(f"No conversation reference for '{channel_id}': is the app installed?")
    if root:
        return {**stored, "conversation": {**stored["conversation"], "id": conversation_id}}
    return stored


async def for_channel(uow: UnitOfWork, *, channel_ref: str) -> dict[str, Any]:
    """The reference of one of our channels (by internal id)."""
    teams_id = await uow.value(select(Channel.teams_id).where(Channel.id == channel_ref))
    if teams_id is None:
        raise NotFound(f"Channel '{channel_ref}' is not known.")
    return await load(uow, conversation_id=teams_id)


async def tenant_of(uow: UnitOfWork, *, conversation_id: str) -> str | None:
    """The tenant a conversation (or a thread of it) belongs to: as its reference recorded it,
    else its channel's team's."""
    channel_id, _, _ = conversation_id.partition(";messageid=")
    row = await uow.row(
        select(ConversationReference.tenant_id, Team.tenant_id.label("team_tenant"))
        .outerjoin(Channel, Channel.id == ConversationReference.channel_id)
        .outerjoin(Team, Team.id == Channel.team_id)
        .where(ConversationReference.conversation_id == channel_id)
    )
    return (row["tenant_id"] or row["team_tenant"]) if row else None
