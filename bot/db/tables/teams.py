"""What the bot keeps to talk to Teams later: a conversation reference per conversation."""

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.tables.base import ID, Base
from bot.db.types import UTCDateTime


class ConversationReference(Base):
    """Where and how to reach a Teams conversation (a channel's own conversation, a chat)."""

    __tablename__ = "conversation_references"
    # Teams' conversation id: a channel's thread id, or a chat's id.
    conversation_id: Mapped[str] = mapped_column(String(255), primary_key=True)
    channel_id: Mapped[str | None] = mapped_column(
        ForeignKey("channels.id", ondelete="CASCADE"), index=True
    )
    service_url: Mapped[str] = mapped_column(String(255))
    tenant_id: Mapped[str | None] = mapped_column(String(64))
    # The serialized botbuilder ConversationReference, as the SDK reads it back.
    reference: Mapped[dict[str, Any]] = mapped_column(JSON)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)


class TeamsSend(Base):
    """One message sent to Teams: counted by every process to stay within Teams' limits."""

    __tablename__ = "teams_sends"
    __table_args__ = (
        Index(None, "conversation_id", "sent_at"),
        Index(None, "tenant_id", "sent_at"),
        Index(None, "sent_at"),
    )
    id: Mapped[str] = mapped_column(ID, primary_key=True)
    conversation_id: Mapped[str] = mapped_column(String(255))  # a thread counts as its own
    tenant_id: Mapped[str | None] = mapped_column(String(64))
    sent_at: Mapped[datetime] = mapped_column(UTCDateTime)
