"""Starting an item's thread and commenting in it: the two calls that wait, briefly, for
Microsoft Teams (docs/ARCHITECTURE.md). Each claims or reads in a short transaction, asks Teams
outside any transaction, bounded in time, then stores what Teams answered in another."""

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import Clock
from bot.db.uow import Actor, ChannelScope, UnitOfWork, VersionedCache, unit_of_work
from bot.directory.teams import hears_unmentioned_messages
from bot.discussions import service as discussions
from bot.discussions import shapes
from bot.errors import BadGateway, BadRequest
from bot.items import read
from bot.messaging import Commented, Said, ThreadRoot
from bot.schemas import ItemKind

BEING_STARTED = "The discussion is being started right now: ask again in a moment."
NO_ANSWER = "Microsoft Teams did not answer in time; nothing was posted. Try again."
# A claim twice as old as the wait belongs to a caller that is gone (its process died).
STALE_CLAIM_FACTOR = 2


class Posted(Protocol):
    """What Teams answered to a post: the conversation and the new message's id."""

    @property
    def conversation_id(self) -> str: ...

    @property
    def activity_id(self) -> str | None: ...


class Teams(Protocol):
    """The messenger's sends, waited for (`bot.teams.outbound.waited_posts`); a refusal raises
    BadGateway."""

    async def start(self, *, channel_id: str, said: Said) -> Posted: ...

    async def reply(self, *, conversation_id: str, said: Said) -> Posted: ...

    def describe(self, root: ThreadRoot) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Started:
    """A discussion's root message as the API shows it, and its deep link."""

    message: dict[str, Any]

    @property
    def web_url(self) -> str:
        return str(self.message["webUrl"])


@dataclass
class Discussions:
    """What the API and the bot start discussions and post comments with."""

    sessions: async_sessionmaker[AsyncSession]
    clock: Clock
    teams: Teams
    wait: timedelta
    public_url: str
    cache: VersionedCache | None = None
    # Where comments made here go on to (the sync engine sends them to the item's source).
    onward: discussions.Onward | None = None
    # Where their edits and deletions go on to (the same).
    revised: discussions.Revised | None = None

    async def start(
        self, *, actor: Actor, channel: ChannelScope, kind: ItemKind, item_id: str
    ) -> Started:
        """Start the item's thread with its card as the root; store it (as the API describes
        it); the root message."""
        stale = self.wait * STALE_CLAIM_FACTOR
        async with self._unit(actor, channel) as uow:
            claim = await discussions.claim_thread(
                uow, kind=kind, item_id=item_id, stale_after=stale
            )
            details = await read.get_details(uow, kind=kind, item_id=item_id)
            heard = await hears_unmentioned_messages(uow, team_id=channel.team_id)
            now = uow.clock.now()
        head = ThreadRoot(kind=kind, item=details, at=now, asks_mention=not heard)
        described = self.teams.describe(head)
        try:
            posted = await self._waited(
                self.teams.start(channel_id=channel.teams_channel_id, said=head)
            )
        except BaseException:
            async with self._unit(actor, channel) as uow:
                await discussions.release_claim(uow, claim=claim)
            raise
        _, _, root = posted.conversation_id.partition(";messageid=")
        root_id = posted.activity_id or root
        async with self._unit(actor, channel) as uow:
            row, place = await discussions.record_thread(
                uow,
                kind=kind,
                claim=claim,
                conversation_id=posted.conversation_id,
                root_id=root_id,
                card=described,
            )
        shown = shapes.message(row, place, root_id=root_id)
        return Started(
            {"@odata.context": shapes.context(self.public_url, "messages", entity=True), **shown}
        )

    async def open(
        self, *, actor: Actor, channel: ChannelScope, kind: ItemKind, item_id: str
    ) -> str:
        """The deep link to the item's thread: the existing one, or one started now."""
        link = await self._existing_link(actor, channel, kind, item_id)
        if link is not None:
            return link
        try:
            started = await self.start(actor=actor, channel=channel, kind=kind, item_id=item_id)
        except discussions.AlreadyStarted:
            link = await self._existing_link(actor, channel, kind, item_id)
            if link is None:  # another start is waiting for Teams
                raise BadRequest(BEING_STARTED) from None
            return link
        return started.web_url

    async def _existing_link(
        self, actor: Actor, channel: ChannelScope, kind: ItemKind, item_id: str
    ) -> str | None:
        async with self._unit(actor, channel, write=False) as uow:
            try:
                thread = await discussions.find_thread(uow, kind=kind, item_id=item_id)
            except discussions.NotStarted:
                return None
        return shapes.web_url(thread.place, message_id=thread.root_id, root_id=thread.root_id)

    async def comment(
        self, *, actor: Actor, channel: ChannelScope, kind: ItemKind, item_id: str, content: str
    ) -> dict[str, Any]:
        """Post "<caller's name>: <content>" in the item's thread; store it as the caller's."""
        async with self._unit(actor, channel, write=False) as uow:
            thread = await discussions.find_thread(uow, kind=kind, item_id=item_id)
        body = discussions.comment_body(actor.display_name, content)
        posted = await self._waited(
            self.teams.reply(conversation_id=thread.conversation_id, said=Commented(body))
        )
        if not posted.activity_id:
            raise BadGateway("Microsoft Teams did not say which message it posted.")
        async with self._unit(actor, channel) as uow:
            row = await discussions.record_comment(
                uow,
                thread=thread,
                message_id=posted.activity_id,
                body=body,
                text=content,
                onward=self.onward,
            )
        return shapes.message(row, thread.place, root_id=thread.root_id)

    async def _waited(self, call: Any) -> Posted:
        try:
            async with asyncio.timeout(self.wait.total_seconds()):
                posted: Posted = await call
        except TimeoutError:
            raise BadGateway(NO_ANSWER) from None
        return posted

    @asynccontextmanager
    async def _unit(
        self, actor: Actor, channel: ChannelScope, *, write: bool = True
    ) -> AsyncIterator[UnitOfWork]:
        async with unit_of_work(self.sessions, self.clock, write=write, cache=self.cache) as uow:
            uow.actor, uow.channel = actor, channel
            yield uow
