"""What a channel configures: its projects (sources) and its field values."""

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.tables.base import ID, Base
from bot.db.types import UTCDateTime


class Project(Base):
    """A source of items: the channel's own store (Svc.Native) or an external tracker."""

    __tablename__ = "projects"
    id: Mapped[str] = mapped_column(ID, primary_key=True)
    channel_id: Mapped[str] = mapped_column(
        ForeignKey("channels.id", ondelete="CASCADE"), index=True
    )
    source: Mapped[str] = mapped_column(String(32))
    source_id: Mapped[str] = mapped_column(String(255))
    display_name: Mapped[str] = mapped_column(String(255))
    project_name: Mapped[str] = mapped_column(String(255))
    hostname: Mapped[str] = mapped_column(String(255))
    color: Mapped[str] = mapped_column(String(16))
    enable: Mapped[bool] = mapped_column(Boolean)
    enable_bug: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)


class FieldValue(Base):
    """One status, priority or severity of a channel, per item kind."""

    __tablename__ = "field_values"
    __table_args__ = (
        # Names are unique per channel, field and kind, whatever their case.
        UniqueConstraint("channel_id", "field", "type", "name_key"),
        Index(None, "channel_id", "field", "type", "order"),
    )
    id: Mapped[str] = mapped_column(ID, primary_key=True)
    channel_id: Mapped[str] = mapped_column(ForeignKey("channels.id", ondelete="CASCADE"))
    field: Mapped[str] = mapped_column(String(16))  # status | priority | severity
    type: Mapped[str] = mapped_column(String(8))  # Task | Bug
    name: Mapped[str] = mapped_column(String(255))
    name_key: Mapped[str] = mapped_column(String(255))  # the name case-folded
    color: Mapped[str] = mapped_column(String(16))
    category: Mapped[str | None] = mapped_column(String(16))  # statuses: New | Active | Done
    description: Mapped[str] = mapped_column(Text)
    primary: Mapped[bool] = mapped_column(Boolean)
    order: Mapped[int]
    value: Mapped[int]
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
