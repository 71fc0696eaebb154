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


class WaitingPersonalChat(Base):
    """A 1:1 chat with the bot of someone no team roster has named yet (Teams may install the
    app in a person's personal scope before any team): kept by their Entra object id until the
    roster sync records them, then moved to `personal_chats`."""

    __tablename__ = "waiting_personal_chats"
    object_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    conversation_id: Mapped[str] = mapped_column(String(255))  # its conversation reference's
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)


class RosterSync(Base):
    """When a team's roster was last synced on an install: Teams announces one install twice
    (installationUpdate and conversationUpdate), and the second finds it done."""

    __tablename__ = "roster_syncs"
    team_id: Mapped[str] = mapped_column(String(255), primary_key=True)  # Teams' team id
    synced_at: Mapped[datetime] = mapped_column(UTCDateTime)
