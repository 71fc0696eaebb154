"""What a channel configures: its projects (sources) and its field values."""

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, ForeignKey, Index, String, Text, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.tables.base import ID, Base
from bot.db.types import UTCDateTime


class Project(Base):
    """A source of items: the channel's own store (Svc.Native) or an external tracker."""

    __tablename__ = "projects"
    # A channel configures each external project once.
    __table_args__ = (UniqueConstraint("channel_id", "source", "source_id"),)
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
    # Azure DevOps and Jira: the source's state catalogue, [{id, name, category}].
    states: Mapped[list[dict[str, Any]]] = mapped_column(JSON, server_default=text("'[]'"))
    # Write-only secrets (token, password), Fernet-encrypted with a key derived from SECRET_KEY.
    credentials: Mapped[str | None] = mapped_column(Text)
    # The names of the secrets set (shown as the project's `credentials`; the values never are).
    credential_names: Mapped[list[str]] = mapped_column(JSON, server_default=text("'[]'"))
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


class FieldMapping(Base):
    """Links one channel value (a status, priority or severity) to one value of an external
    project's source, per item kind. Each source value is mapped at most once."""

    __tablename__ = "field_mappings"
    __table_args__ = (UniqueConstraint("project_id", "type", "entity_type", "source_value_id"),)
    id: Mapped[str] = mapped_column(ID, primary_key=True)
    channel_id: Mapped[str] = mapped_column(
        ForeignKey("channels.id", ondelete="CASCADE"), index=True
    )
    project_id: Mapped[str] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    # A deleted channel value takes its mappings with it.
    field_id: Mapped[str] = mapped_column(
        ForeignKey("field_values.id", ondelete="CASCADE"), index=True
    )
    type: Mapped[str] = mapped_column(String(16))  # status | priority | severity
    entity_type: Mapped[str] = mapped_column(String(8))  # Task | Bug
    source_value_id: Mapped[str] = mapped_column(String(255))  # the API's `sourceId`
    source_value_name: Mapped[str] = mapped_column(String(255))  # the API's `sourceName`
    enable: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
