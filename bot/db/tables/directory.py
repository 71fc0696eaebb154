"""Directory and identity: tenants, teams, channels, users, memberships, auth tokens."""

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.tables.base import ID, Base
from bot.db.types import UTCDateTime


class Tenant(Base):
    """A Microsoft Entra tenant, known from a team or an SSO sign-in."""

    __tablename__ = "tenants"
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class Team(Base):
    __tablename__ = "teams"
    id: Mapped[str] = mapped_column(ID, primary_key=True)
    # Teams' own id (the General channel's thread id): what clients send as x-svc-teamid.
    teams_id: Mapped[str] = mapped_column(String(255), unique=True)
    name: Mapped[str] = mapped_column(String(255))
    tenant_id: Mapped[str | None] = mapped_column(ForeignKey("tenants.id"), index=True)
    group_id: Mapped[str | None] = mapped_column(String(64))  # the Microsoft 365 group
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
    # When a channel message that does not @mention the app first arrived: Teams delivers every
    # channel message here (resource-specific consent), so thread replies are kept unmentioned.
    unmentioned_message_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class Channel(Base):
    __tablename__ = "channels"
    id: Mapped[str] = mapped_column(ID, primary_key=True)
    team_id: Mapped[str] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"), index=True)
    # The channel's thread id (19:…@thread.tacv2): what clients send as x-svc-channelId.
    teams_id: Mapped[str] = mapped_column(String(255), unique=True)
    name: Mapped[str] = mapped_column(String(255))
    membership_type: Mapped[str] = mapped_column(String(16))  # standard | private | shared
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
    # Set when Teams reports the channel deleted: the API refuses it, its items stay.
    deleted_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # How long before a due date DUESOON fires here; None: the installation's setting.
    due_soon_minutes: Mapped[int | None]
    # Noise control (None: the installation's setting): replies to more than `digest_threshold`
    # items within `digest_window_seconds` become one digest; quiet hours hold notifications.
    digest_window_seconds: Mapped[int | None]
    digest_threshold: Mapped[int | None]
    quiet_hours: Mapped[dict[str, Any] | None] = mapped_column(JSON)  # {start, end, timeZone}
    # When the channel was last told its notifications keep failing (told once a day at most).
    notify_failing_told_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class User(Base):
    __tablename__ = "users"
    id: Mapped[str] = mapped_column(ID, primary_key=True)
    source_id: Mapped[str] = mapped_column(String(64), unique=True)  # the Entra object id
    # The UPN, stored lowercased: UPNs compare without case, and one spelling keeps it unique.
    username: Mapped[str] = mapped_column(String(255), unique=True)
    display_name: Mapped[str] = mapped_column(String(255))
    email: Mapped[str | None] = mapped_column(String(255))
    source: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)


class UserMapping(Base):
    """How a user is known at an external source (the user's `mapping` array): matched by the
    sync engine (by email, or Entra object id for Planner) or set by hand. One local user per
    source user at a host."""

    __tablename__ = "user_mappings"
    __table_args__ = (UniqueConstraint("source", "project_hostname", "source_user_id"),)
    id: Mapped[str] = mapped_column(ID, primary_key=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    source: Mapped[str] = mapped_column(String(32))  # the source kind
    project_hostname: Mapped[str] = mapped_column(String(255))  # the source's address, folded
    source_user_id: Mapped[str] = mapped_column(String(255))  # the user's id there
    display_name: Mapped[str] = mapped_column(String(255))
    email: Mapped[str | None] = mapped_column(String(255))
    username: Mapped[str | None] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class TeamMember(Base):
    __tablename__ = "team_members"
    team_id: Mapped[str] = mapped_column(
        ForeignKey("teams.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[str] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class AuthToken(Base):
    """A session (sliding expiry) or an API token (fixed expiry); only a hash of the secret."""

    __tablename__ = "auth_tokens"
    id: Mapped[str] = mapped_column(ID, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(16))  # session | api
    sliding_seconds: Mapped[int | None]
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class PersonalChat(Base):
    """A person's 1:1 chat with the bot: where their personal notifications go, if wanted."""

    __tablename__ = "personal_chats"
    user_id: Mapped[str] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    conversation_id: Mapped[str] = mapped_column(String(255))  # its conversation reference's
    notify: Mapped[bool] = mapped_column(Boolean)  # `notify off` / `notify on`
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
