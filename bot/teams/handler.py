"""The activity handler: roster events to the roster service, messages to `run_command`."""

import logging
from contextlib import AbstractAsyncContextManager

from botbuilder.core import InvokeResponse, TurnContext
from botbuilder.core.teams import TeamsActivityHandler
from botbuilder.schema import ChannelAccount
from botbuilder.schema.teams import ChannelInfo, TeamInfo, TeamsChannelAccount
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot import logs
from bot.clock import Clock
from bot.db.uow import UnitOfWork, VersionedCache, unit_of_work
from bot.directory.teams import mark_channel_deleted, note_unmentioned_message, upsert_team
from bot.discussions import chats
from bot.discussions.threads import Discussions
from bot.errors import DomainError
from bot.files.store import FileStore
from bot.items.deletions import ItemDeletions
from bot.settings import Settings
from bot.teams import roster
from bot.teams.actions import invokes, thread_messages
from bot.teams.commands import dispatch, grammar
from bot.teams.context import BotContext, TeamsAddress, personal_chat_of, resolve_caller
from bot.teams.outbound import conversation_references
from bot.teams.outbound.card_replies import send_card
from cards.layout import Card
from cards.welcome import personal_welcome, team_welcome

log = logging.getLogger(__name__)


class TrackerBot(TeamsActivityHandler):
    """One instance per app; every turn opens its own units of work."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        *,
        settings: Settings,
        emulator_allowed: bool,
        public_url: str = "",
        cache: VersionedCache | None = None,
        discussions: Discussions | None = None,
        files: FileStore | None = None,
        deletions: ItemDeletions | None = None,
    ) -> None:
        self._sessions, self._clock, self._public_url = sessions, clock, public_url
        self._settings = settings
        self._cache, self._discussions, self._files = cache, discussions, files
        self._deletions = deletions
        # Without an app id nobody is verified, so the Emulator's anonymous user is the demo's.
        self._emulator_allowed = emulator_allowed
        # Teams ids of the teams known to deliver every channel message: recorded once each.
        self._hearing_teams: set[str] = set()

    async def on_turn(self, turn_context: TurnContext) -> None:
        """Run the turn; a refusal becomes one line, a failure a line with its reference."""
        try:
            await super().on_turn(turn_context)
        except DomainError as exc:
            await self._say(turn_context, exc.said)
        except Exception:
            ref = logs.request_id()
            log.exception("bot turn failed (%s, ref %s)", turn_context.activity.type, ref)
            await self._say(turn_context, f"Something went wrong (ref {ref}).")

    async def on_message_activity(self, turn_context: TurnContext) -> None:
        activity = turn_context.activity
        entities = thread_messages.entities_of(activity)
        bot_id = activity.recipient.id if activity.recipient else None
        if thread_messages.is_channel_post(activity):
            # Teams sends every channel message (resource-specific consent): a reply in an
            # item's thread is kept, even when it also asks the bot something.
            async with self._work(write=False) as uow:
                in_thread = await thread_messages.in_thread(uow, activity)
            if in_thread:
                async with self._work() as uow:
                    onward = self._discussions.onward if self._discussions else None
                    await thread_messages.keep_reply(uow, activity, entities, onward=onward)
            if not thread_messages.mentions_bot(entities, bot_id):
                await self._note_unmentioned(TeamsAddress.of(turn_context).team_id)
                return  # people talking among themselves: no answer
        elif personal_chat_of(activity):
            await self._keep_personal_chat(turn_context)
        message = grammar.strip_mentions(activity.text, entities, bot_id=bot_id)
        await dispatch.run_command(turn_context, await self._context(turn_context), message)

    async def _note_unmentioned(self, team_id: str | None) -> None:
        """A message that does not mention the app reached it: Teams delivers every channel
        message in the team, so threads there need not ask for a mention any more."""
        if team_id is None or team_id in self._hearing_teams:
            return
        async with self._work() as uow:
            await note_unmentioned_message(uow, teams_team_id=team_id)
        self._hearing_teams.add(team_id)

    async def on_teams_message_edit(self, turn_context: TurnContext) -> None:
        revised = self._discussions.revised if self._discussions else None
        async with self._work() as uow:
            await thread_messages.keep_edit(uow, turn_context.activity, revised=revised)

    async def on_teams_message_soft_delete(self, turn_context: TurnContext) -> None:
        revised = self._discussions.revised if self._discussions else None
        async with self._work() as uow:
            await thread_messages.keep_deletion(
                uow, turn_context.activity, deleted=True, revised=revised
            )

    async def on_teams_message_undelete(self, turn_context: TurnContext) -> None:
        async with self._work() as uow:
            await thread_messages.keep_deletion(uow, turn_context.activity, deleted=False)

    async def on_invoke_activity(self, turn_context: TurnContext) -> InvokeResponse | None:
        """Card actions and the messaging extension answer with a body; the rest as the SDK does."""
        answer = invokes.ANSWERS.get(turn_context.activity.name or "")
        if answer is None:
            return await super().on_invoke_activity(turn_context)
        body = await answer(turn_context, lambda: self._context(turn_context))
        return InvokeResponse(status=200, body=body)

    async def _context(self, turn_context: TurnContext) -> BotContext:
        """Who is asking and where, checked against the roster."""
        async with self._work(write=False) as uow:
            actor, channel = await resolve_caller(
                uow, address=TeamsAddress.of(turn_context), emulator_allowed=self._emulator_allowed
            )
        logs.note(user_id=actor.user_id, channel_id=channel.channel_id if channel else None)
        return BotContext(
            actor=actor,
            channel=channel,
            sessions=self._sessions,
            clock=self._clock,
            settings=self._settings,
            public_url=self._public_url,
            cache=self._cache,
            discussions=self._discussions,
            personal_chat=personal_chat_of(turn_context.activity),
            files=self._files,
            deletions=self._deletions,
        )

    async def on_installation_update_add(self, turn_context: TurnContext) -> None:
        address = TeamsAddress.of(turn_context)
        if address.team_id:
            await self._installed_in_team(turn_context, address)
            return
        if personal_chat_of(turn_context.activity):
            await self._keep_personal_chat(turn_context)
            await self._greet(turn_context, personal_welcome())
            return
        async with self._work() as uow:  # a group chat: keep its reference for later messages
            await conversation_references.save(uow, reference=self._reference(turn_context))

    async def on_installation_update_remove(self, turn_context: TurnContext) -> None:
        # The SDK also routes "remove-upgrade" here: only a removal ends the chat.
        object_id = TeamsAddress.of(turn_context).user_object_id
        chat = personal_chat_of(turn_context.activity)
        if turn_context.activity.action != "remove" or not chat or not object_id:
            return
        async with self._work() as uow:
            await chats.forget(uow, object_id=object_id, conversation_id=chat)

    async def _keep_personal_chat(self, turn_context: TurnContext) -> None:
        """Remember the sender's 1:1 chat, where their personal notifications go (kept for
        them if no roster names them yet); read first, so the chat's every message does not
        write."""
        object_id = TeamsAddress.of(turn_context).user_object_id
        if not object_id:
            return
        reference = self._reference(turn_context)
        async with self._work(write=False) as uow:
            if await chats.is_current(uow, object_id=object_id, reference=reference):
                return
        # Notifications are new messages in the chat, not replies to the activity that brought it.
        reference = {key: value for key, value in reference.items() if key != "activityId"}
        async with self._work() as uow:
            await conversation_references.save(uow, reference=reference)
            chat = reference["conversation"]["id"]
            known = await chats.remember(uow, object_id=object_id, conversation_id=chat)
        if not known:
            log.info(
                "personal chat of %s kept for later: we know no user with this Entra id yet "
                "(their notifications start once a team roster names them)",
                object_id,
            )

    async def on_teams_members_added(
        self,
        teams_members_added: list[TeamsChannelAccount],
        team_info: TeamInfo,
        turn_context: TurnContext,
    ) -> None:
        if not team_info:
            return
        address = TeamsAddress.of(turn_context)
        bot_id = turn_context.activity.recipient.id
        if any(member.id == bot_id for member in teams_members_added):
            await self._installed_in_team(turn_context, address)
            return
        members = [m for m in map(roster.roster_member, teams_members_added) if m]
        async with self._work() as uow:
            if await roster.is_recorded(uow, team_id=team_info.id):
                await roster.record_members(uow, team_id=team_info.id, members=members)
                return
        await self._sync_team(turn_context, address)  # installed before the roster was kept

    async def on_teams_members_removed(
        self,
        teams_members_removed: list[ChannelAccount],
        team_info: TeamInfo,
        turn_context: TurnContext,
    ) -> None:
        gone = [m.aad_object_id for m in teams_members_removed if m.aad_object_id]
        if not team_info or not gone:
            return
        async with self._work() as uow:
            if await roster.is_recorded(uow, team_id=team_info.id):
                await roster.remove_members(uow, team_id=team_info.id, object_ids=gone)

    async def on_teams_channel_created(
        self, channel_info: ChannelInfo, team_info: TeamInfo, turn_context: TurnContext
    ) -> None:
        await self._record_channel(channel_info, team_info, turn_context, created=True)

    async def on_teams_channel_renamed(
        self, channel_info: ChannelInfo, team_info: TeamInfo, turn_context: TurnContext
    ) -> None:
        await self._record_channel(channel_info, team_info, turn_context)

    async def on_teams_channel_restored(
        self, channel_info: ChannelInfo, team_info: TeamInfo, turn_context: TurnContext
    ) -> None:
        await self._record_channel(channel_info, team_info, turn_context)

    async def on_teams_channel_deleted(
        self, channel_info: ChannelInfo, team_info: TeamInfo, turn_context: TurnContext
    ) -> None:
        async with self._work() as uow:
            if await roster.is_recorded(uow, team_id=team_info.id):
                await mark_channel_deleted(uow, team_id=team_info.id, channel_id=channel_info.id)

    async def on_teams_team_renamed(self, team_info: TeamInfo, turn_context: TurnContext) -> None:
        async with self._work() as uow:
            if team_info.name and await roster.is_recorded(uow, team_id=team_info.id):
                await upsert_team(uow, team_id=team_info.id, name=team_info.name)

    async def _record_channel(
        self,
        channel_info: ChannelInfo,
        team_info: TeamInfo,
        turn_context: TurnContext,
        *,
        created: bool = False,
    ) -> None:
        async with self._work() as uow:
            if await roster.is_recorded(uow, team_id=team_info.id):
                await roster.record_channel(
                    uow,
                    team_id=team_info.id,
                    channel_id=channel_info.id,
                    name=channel_info.name or roster.GENERAL,
                    turn_reference=self._reference(turn_context),
                    created=created,
                )
                return
        await self._sync_team(turn_context, TeamsAddress.of(turn_context))

    async def _installed_in_team(self, turn_context: TurnContext, address: TeamsAddress) -> None:
        """Sync the roster and greet the team, once for both of Teams' announcements."""
        assert address.team_id, "only in a team"
        async with self._work() as uow:
            if not await roster.claim_install(uow, team_id=address.team_id):
                return
        try:
            await self._sync_team(turn_context, address)
        except Exception:
            async with self._work() as uow:
                await roster.release_install(uow, team_id=address.team_id)
            raise
        recipient = turn_context.activity.recipient
        await self._greet(turn_context, team_welcome(recipient.name if recipient else None))

    async def _sync_team(self, turn_context: TurnContext, address: TeamsAddress) -> None:
        assert address.team_id, "only in a team"
        # Teams first, outside any transaction; then one short transaction records it all.
        fetched = await roster.fetch_roster(
            turn_context, team_id=address.team_id, tenant_id=address.tenant_id
        )
        async with self._work() as uow:
            await roster.record_team(
                uow, roster=fetched, turn_reference=self._reference(turn_context)
            )
        log.info(
            "team %s synced: %d channels, %d members",
            address.team_id,
            len(fetched.channels),
            len(fetched.members),
        )

    def _work(self, *, write: bool = True) -> AbstractAsyncContextManager[UnitOfWork]:
        return unit_of_work(self._sessions, self._clock, write=write)

    @staticmethod
    def _reference(turn_context: TurnContext) -> dict:
        return TurnContext.get_conversation_reference(turn_context.activity).serialize()

    @staticmethod
    async def _greet(turn_context: TurnContext, card: Card) -> None:
        """Where the app was just installed: a greeting that fails is logged, nothing more."""
        try:
            await send_card(turn_context, card)
        except Exception:
            log.exception("could not post the greeting")

    @staticmethod
    async def _say(turn_context: TurnContext, line: str) -> None:
        try:
            await turn_context.send_activity(line)
        except Exception:
            log.exception("could not send the reply %r", line)
