"""Who speaks to the bot and where: the roster's user and channel, or the demo's in the Emulator."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from botbuilder.core import TurnContext
from botbuilder.schema import Activity
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot import demo
from bot.clock import Clock
from bot.db.uow import Actor, ChannelScope, UnitOfWork, VersionedCache, unit_of_work
from bot.directory.access import admit_to_channel, find_caller
from bot.discussions.threads import Discussions
from bot.errors import Forbidden
from bot.files.store import FileStore
from bot.items.deletions import ItemDeletions
from bot.settings import Settings

NOT_ON_ROSTER = (
    "Sorry, I can only work for members of this team, and you are not on its roster yet. "
    "If you just joined, try again in a minute."
)
UNKNOWN_USER = (
    "Sorry, I don't know you yet: I work for members of the teams I am installed in. "
    "Ask a team owner to add the app to your team."
)
DEMO_MISSING = "The demo team is not set up: run `python -m bot admin demo`, then try again."
PERSONAL = "personal"  # a conversation's type in the 1:1 chat with the bot


def personal_chat_of(activity: Activity) -> str | None:
    """The conversation id of the 1:1 chat with the bot the activity comes from; None elsewhere."""
    conversation = activity.conversation
    if conversation is None or conversation.conversation_type != PERSONAL:
        return None
    return str(conversation.id)


@dataclass(frozen=True, slots=True)
class TeamsAddress:
    """The Teams ids an activity carries (all None in the Emulator)."""

    tenant_id: str | None
    team_id: str | None
    channel_id: str | None
    user_object_id: str | None

    @classmethod
    def of(cls, turn_context: TurnContext) -> "TeamsAddress":
        activity = turn_context.activity
        data: dict[str, Any] = activity.channel_data or {}
        sender = activity.from_property
        return cls(
            tenant_id=(data.get("tenant") or {}).get("id")
            or (activity.conversation.tenant_id if activity.conversation else None),
            team_id=(data.get("team") or {}).get("id"),
            channel_id=(data.get("channel") or {}).get("id"),
            user_object_id=sender.aad_object_id if sender else None,
        )

    @property
    def is_emulator(self) -> bool:
        """An Emulator conversation: no team, no channel, no Entra user."""
        return not (self.team_id or self.channel_id or self.user_object_id)


@dataclass(frozen=True, slots=True)
class BotContext:
    """What a command runs with: the caller, the channel (None in a chat), and a way to work."""

    actor: Actor
    channel: ChannelScope | None
    sessions: async_sessionmaker[AsyncSession]
    clock: Clock
    settings: Settings  # the installation's, which a channel's settings fall back on
    public_url: str = ""  # the base of the app's own item links
    # The app's list cache, as the REST API's requests use it (statuses, projects, counts).
    cache: VersionedCache | None = None
    # Starts an item's thread and waits for Teams (None only where no app runs: unit tests).
    discussions: Discussions | None = None
    # The 1:1 chat's conversation id when the command comes from there: personal settings.
    personal_chat: str | None = None
    # Where attachments live: deleting an item removes its files (None only in unit tests).
    files: FileStore | None = None
    # Told of an item about to be deleted (None only in unit tests).
    deletions: ItemDeletions | None = None

    @asynccontextmanager
    async def work(self, *, write: bool = True) -> AsyncIterator[UnitOfWork]:
        """One transaction acting as the caller in the channel (committed when the block ends)."""
        async with unit_of_work(self.sessions, self.clock, write=write, cache=self.cache) as uow:
            uow.actor, uow.channel = self.actor, self.channel
            yield uow


async def resolve_caller(
    uow: UnitOfWork, *, address: TeamsAddress, emulator_allowed: bool
) -> tuple[Actor, ChannelScope | None]:
    """The roster user and, in a channel, the channel they may act in; Forbidden otherwise."""
    if address.is_emulator and emulator_allowed:
        return await _demo_caller(uow)
    team_id, channel_id = address.team_id, address.channel_id
    caller = None
    if address.user_object_id:
        caller = await find_caller(
            uow, object_id=address.user_object_id, team_id=team_id, channel_id=channel_id
        )
    if caller is None:
        raise Forbidden(NOT_ON_ROSTER if team_id else UNKNOWN_USER)
    if not team_id or not channel_id:
        return caller.actor, None
    if not caller.on_roster:
        raise Forbidden(NOT_ON_ROSTER)
    channel = admit_to_channel(caller.access, team_id=team_id, channel_id=channel_id)
    return caller.actor, channel


async def _demo_caller(uow: UnitOfWork) -> tuple[Actor, ChannelScope]:
    team_id, channel_id = demo.TEAM_ID, demo.CHANNEL_ID
    caller = await find_caller(
        uow, object_id=demo.USERS[0][0], team_id=team_id, channel_id=channel_id
    )
    if caller is None:
        raise Forbidden(DEMO_MISSING)
    channel = admit_to_channel(caller.access, team_id=team_id, channel_id=channel_id)
    return caller.actor, channel
