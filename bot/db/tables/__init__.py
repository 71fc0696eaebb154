"""The schema. Alembic migrations are generated from, and checked against, this metadata."""

from bot.db.tables.base import Base
from bot.db.tables.directory import (
    AuthToken,
    Channel,
    PersonalChat,
    Team,
    TeamMember,
    Tenant,
    User,
    UserMapping,
)
from bot.db.tables.discussions import DiscussionMessage, ItemThread
from bot.db.tables.events import DeliveryAttempt, DueAlert, EventDefinition, EventDelivery
from bot.db.tables.fields import FieldMapping, FieldValue, Project
from bot.db.tables.files import Attachment
from bot.db.tables.items import Item, ItemAssignee, ItemCounter, PendingEvent
from bot.db.tables.jobs import Job
from bot.db.tables.sync import ProjectSync, SyncComment, SyncLogLine, SyncRecord
from bot.db.tables.teams import (
    ConversationReference,
    RosterSync,
    TeamsSend,
    WaitingPersonalChat,
)
from bot.db.tables.threads import ChannelDigest, DigestEntry, ThreadLine, ThreadRefresh

__all__ = [
    "Attachment",
    "AuthToken",
    "Base",
    "Channel",
    "ChannelDigest",
    "ConversationReference",
    "DeliveryAttempt",
    "DigestEntry",
    "DiscussionMessage",
    "DueAlert",
    "EventDefinition",
    "EventDelivery",
    "FieldMapping",
    "FieldValue",
    "Item",
    "ItemThread",
    "ItemAssignee",
    "ItemCounter",
    "Job",
    "PendingEvent",
    "PersonalChat",
    "Project",
    "ProjectSync",
    "RosterSync",
    "SyncComment",
    "SyncLogLine",
    "SyncRecord",
    "Team",
    "TeamsSend",
    "TeamMember",
    "Tenant",
    "ThreadLine",
    "ThreadRefresh",
    "WaitingPersonalChat",
    "User",
    "UserMapping",
]
