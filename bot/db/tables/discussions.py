"""An item's thread in its channel, and the messages of its discussion."""

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.tables.base import ID, Base
from bot.db.types import UTCDateTime


class ItemThread(Base):
    """An item's one post in its channel: its discussion and its notifications gather beneath."""

    __tablename__ = "item_threads"
    item_id: Mapped[str] = mapped_column(
        ForeignKey("items.id", ondelete="CASCADE"), primary_key=True
    )
    channel_id: Mapped[str] = mapped_column(
        ForeignKey("channels.id", ondelete="CASCADE"), index=True
    )
    # Teams' id of the thread, `<channel>;messageid=<root>`: None while the bot is starting it.
    conversation_id: Mapped[str | None] = mapped_column(String(255), unique=True)
    root_message_id: Mapped[str | None] = mapped_column(String(64))
    started_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    started_at: Mapped[datetime] = mapped_column(UTCDateTime)


class DiscussionMessage(Base):
    """The thread's root (the bot's item card) or a reply, as Teams knows it."""

    __tablename__ = "discussion_messages"
    __table_args__ = (
        UniqueConstraint("item_id", "message_id"),
        Index(None, "item_id", "created_at", "id"),
    )
    id: Mapped[str] = mapped_column(ID, primary_key=True)
    item_id: Mapped[str] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"))
    message_id: Mapped[str] = mapped_column(String(64))  # Teams' message (activity) id
    reply_to_id: Mapped[str | None] = mapped_column(String(64))  # the root's message id
    author_kind: Mapped[str] = mapped_column(String(12))  # application | user
    # Entra object id of a person, or the bot's app id; None when Teams did not say.
    author_id: Mapped[str | None] = mapped_column(String(64))
    author_user_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    author_name: Mapped[str | None] = mapped_column(String(255))
    body: Mapped[str] = mapped_column(Text)  # HTML
    card: Mapped[dict[str, Any] | None] = mapped_column(JSON)  # the root's connector card
    mentions: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    modified_at: Mapped[datetime] = mapped_column(UTCDateTime)
    edited_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    deleted_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
