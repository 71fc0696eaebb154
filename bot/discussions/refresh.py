"""The refresh job: one burst of an item's thread becomes its root card updated in place and one
reply saying who changed what; or, for an item with no thread yet that a notification rule
told of, the thread started with the item's card as its root (the notification itself). When
the channel is noisy or in its quiet hours, the reply waits for the channel's digest instead
(`bot.discussions.gate`).

Idempotent under retries: the lines a reply covers are marked told only once Teams gave the
reply's id, so a retry (throttled, connector down) says every pending line once, joined by any
that arrived meanwhile. Once Teams took a reply, a short transaction marks its lines with the
reply's id before the burst is recorded and closed: a run that finds lines so marked records
that reply without posting it again, so only a process dying between the send and that mark
posts a reply twice (the connector takes no idempotency key).
"""

import logging
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any, cast

from sqlalchemy import Table, bindparam, func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import Clock
from bot.db.expressions import one_of
from bot.db.statements import Prepared
from bot.db.tables import DiscussionMessage, Item, ItemThread, ThreadLine, ThreadRefresh, User
from bot.db.uow import UnitOfWork, unit_of_work
from bot.directory.channel_scope import scope_of_channel
from bot.discussions import coalescer, digests, gate
from bot.discussions import service as discussions
from bot.discussions.coalescer import Coalescer
from bot.discussions.heads import BOT_NAME, current_root
from bot.discussions.lines import Pending, people_named, say
from bot.discussions.refresh_job import REFRESH, RefreshThread
from bot.errors import Conflict, NotFound
from bot.events.deliveries import told
from bot.ids import new_id
from bot.jobs.queue import ClaimedJob
from bot.jobs.worker import PermanentFailure, RetryLater, Worker
from bot.messaging import DELETED, DeletedRoot, Messenger, Sent, ThreadReply, ThreadRoot
from bot.schemas import ItemKind
from bot.settings import Settings

log = logging.getLogger(__name__)

# A thread another caller is starting (through the API) is asked about again after this.
BEING_STARTED = timedelta(seconds=5)
STARTING = "the item's thread is being started"
ITEM_GONE = "The item was deleted before it was posted."
# Told lines are kept this long: a late line for a change already told adds nothing.
KEEP_TOLD = timedelta(days=1)

_REFRESHES = cast(Table, ThreadRefresh.__table__)
_LINES = cast(Table, ThreadLine.__table__)
_MESSAGES = cast(Table, DiscussionMessage.__table__)
_REFRESH = Prepared(select(_REFRESHES).where(_REFRESHES.c.item_id == bindparam("item")))
_THREAD = Prepared(
    select(ItemThread.conversation_id, ItemThread.root_message_id).where(
        ItemThread.item_id == bindparam("item")
    )
)
_LOCK_REFRESH = Prepared(
    select(_REFRESHES).where(_REFRESHES.c.item_id == bindparam("item")).with_for_update()
)
# The item's row first, as deleting it does: the two never wait for each other crosswise.
_LOCK_ITEM = Prepared(select(Item.id).where(Item.id == bindparam("item")).with_for_update())
_PENDING = Prepared(
    select(_LINES)
    .where(_LINES.c.item_id == bindparam("item"), _LINES.c.told_at.is_(None))
    .order_by(_LINES.c.created_at, _LINES.c.id)
)
_FIRST_PENDING = Prepared(
    select(func.min(_LINES.c.created_at)).where(
        _LINES.c.item_id == bindparam("item"), _LINES.c.told_at.is_(None)
    )
)
_UNTOLD_KEYS = Prepared(
    select(_LINES.c.key).where(_LINES.c.item_id == bindparam("item"), _LINES.c.told_at.is_(None))
)


@dataclass(frozen=True, slots=True)
class _Plan:
    """What one run sends, read before sending."""

    job_id: str
    item_id: str
    kind: ItemKind
    channel_id: str
    conversation_id: str | None  # None: the item has no thread, and this run starts it
    root_message_id: str | None
    deleted: bool
    root: ThreadRoot | DeletedRoot | None  # what the root's card shows now; None: left as it is
    described: dict[str, Any] | None  # the new root as the API describes it; None: kept
    said: ThreadReply | None  # the reply; None: no reply
    line_ids: list[str]  # the pending lines it covers
    keys: list[str]  # their changes (pending-event ids), whose notifications this tells
    held: gate.Held | None = None  # the channel's digest tells it instead, and why
    posted: str | None = None  # the reply a run before posted for these lines, not recorded
    summary: str = ""  # the digest's line for it

    @property
    def starts(self) -> bool:
        return self.conversation_id is None


class ThreadRefresher:
    """Runs the coalescer's jobs through the messenger."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        coalescer: Coalescer,
        settings: Settings,
        teams: Messenger,
    ) -> None:
        self._sessions, self._clock = sessions, clock
        self._teams = teams  # the thread's posts, and a channel told its notifications fail
        self._coalescer, self._settings = coalescer, settings
        self._app_id = settings.microsoft_app_id

    def register(self, worker: Worker) -> None:
        worker.register(REFRESH, self.run, gave_up=self.given_up)

    async def run(self, job: ClaimedJob[RefreshThread]) -> None:
        plan = await self._plan(job)
        if plan is None:
            return  # its burst was closed, or reopened under another job
        if plan.posted is not None:
            # Teams took this reply before; recording it failed: record it, never post it again.
            assert plan.conversation_id is not None
            await self._close(plan, sent=Sent(plan.conversation_id, plan.posted), claim=None)
            return
        plan = await self._gated(plan)
        posts = plan.starts and plan.root is not None and plan.held is None
        claim: discussions.Claim | None = None
        try:
            claim = await self._claim(plan) if posts else None
            sent = await self._send(plan)
        except PermanentFailure as exc:
            # The app is not (or no longer) in the channel, say: Teams will not take this burst.
            log.warning("thread of item %s: burst not told: %s", plan.item_id, exc)
            await self._close(plan, sent=None, claim=claim, failure=str(exc))
            raise
        except RetryLater as exc:
            if claim is not None:
                await self._release(plan, claim)
            await self._waiting(plan, f"a retry: {exc}")
            raise
        except BaseException:
            if claim is not None:
                await self._release(plan, claim)
            raise
        if sent is not None and sent.activity_id is not None and not plan.starts:
            async with unit_of_work(self._sessions, self._clock) as uow:
                await coalescer.mark_posted(uow, line_ids=plan.line_ids, reply_id=sent.activity_id)
        await self._close(plan, sent=sent, claim=claim)

    async def given_up(self, uow: UnitOfWork, job: ClaimedJob[RefreshThread], error: str) -> None:
        """The worker gave the burst's job up (days of throttling, say): the notifications of
        its changes fail with the last error, and the burst closes; a later change opens the
        next."""
        item_id = job.payload.item_id
        await uow.value(_LOCK_ITEM, {"item": item_id})
        refresh = await uow.row(_LOCK_REFRESH, {"item": item_id})
        if refresh is None or refresh["job_id"] != job.id:
            return
        keys = list(await uow.values(_UNTOLD_KEYS, {"item": item_id}))
        await told.failed(uow, self._teams, event_ids=keys, item_id=item_id, error=error)
        if refresh["deleted_at"] is not None:
            await coalescer.forget(uow, item_id=item_id)
        else:
            await coalescer.drop_untold(uow, item_id=item_id)
            await coalescer.close(uow, item_id=item_id)

    async def _plan(self, job: ClaimedJob[RefreshThread]) -> _Plan | None:
        item_id = job.payload.item_id
        async with unit_of_work(self._sessions, self._clock, write=False) as uow:
            refresh = await uow.row(_REFRESH, {"item": item_id})
            if refresh is None or refresh["job_id"] != job.id:
                return None
            rows = await uow.rows(_PENDING, {"item": item_id})
            posted = next((row["reply_id"] for row in rows if row["reply_id"] is not None), None)
            if posted is not None:  # a reply a run before posted: only its lines are recorded
                rows = [row for row in rows if row["reply_id"] == posted]
            pending = [
                Pending(
                    key=row["key"],
                    what=row["what"],
                    actor_id=row["actor_id"],
                    changes=row["changes"],
                    text=row["text"],
                    mentions=row["mentions"] or [],
                )
                for row in rows
            ]
            said = say(
                pending, await _names(uow, people_named(pending)), this_year=uow.clock.now().year
            )
            deleted = refresh["deleted_at"] is not None
            conversation_id, root_id = refresh["conversation_id"], refresh["root_message_id"]
            if conversation_id is None:  # a notification's: the thread may have started since
                # A thread being started (or claimed by a process that died) is left to the
                # claim: it waits for a live start and takes over a stale one.
                thread = await uow.row(_THREAD, {"item": item_id})
                if thread is not None and thread["conversation_id"] is not None:
                    conversation_id, root_id = thread["conversation_id"], thread["root_message_id"]
            root: ThreadRoot | DeletedRoot | None = None
            described: dict[str, Any] | None = None
            title = ""
            if deleted:
                if refresh["card"]:
                    root = DeletedRoot(refresh["card"])
                    title = f"{refresh['card'].get('title') or ''}{DELETED}"
            elif said is not None or conversation_id is None:
                # a burst that changed nothing leaves the card as it is
                root = await current_root(uow, item_id=item_id)
                if root is not None:
                    described = self._teams.describe(root)
                    title = str(described["title"])
            summary = ""
            if said is not None or conversation_id is None:
                summary = digests.summary(title, said.html if said else None)
        if conversation_id is None and (root is None or deleted):
            # the item is gone before its thread started: nothing to tell
            root, described, said = None, None, None
        return _Plan(
            job_id=job.id,
            item_id=item_id,
            kind=ItemKind(refresh["kind"]),
            channel_id=refresh["channel_id"],
            conversation_id=conversation_id,
            root_message_id=root_id,
            deleted=deleted,
            root=root,
            described=described,
            said=said,
            line_ids=[row["id"] for row in rows],
            keys=[row["key"] for row in rows],
            summary=summary,
            posted=posted,
        )

    async def _gated(self, plan: _Plan) -> _Plan:
        """The plan, held for the channel's digest when the channel is noisy or quiet."""
        if (plan.said is None and not plan.starts) or (plan.starts and plan.root is None):
            return plan  # nothing would be posted
        async with unit_of_work(self._sessions, self._clock, write=False) as uow:
            held = await gate.held_until(
                uow, channel_id=plan.channel_id, item_id=plan.item_id, settings=self._settings
            )
        return replace(plan, held=held) if held is not None else plan

    async def _claim(self, plan: _Plan) -> discussions.Claim:
        """Take the item's thread before Teams is asked, as a start through the API does."""
        async with unit_of_work(self._sessions, self._clock) as uow:
            uow.channel = await scope_of_channel(uow, channel_id=plan.channel_id)
            try:
                return await discussions.claim_thread(
                    uow,
                    kind=plan.kind,
                    item_id=plan.item_id,
                    stale_after=BEING_STARTED * 2,
                )
            except discussions.AlreadyStarted:
                raise RetryLater(STARTING, after=BEING_STARTED) from None
            except Conflict as exc:  # the app is not in the team any more
                raise PermanentFailure(exc.message) from exc
            except NotFound:  # deleted since the plan was read
                raise PermanentFailure(ITEM_GONE) from None

    async def _waiting(self, plan: _Plan, why: str) -> None:
        """Say in the log of the deliveries this burst tells what they wait for."""
        async with unit_of_work(self._sessions, self._clock) as uow:
            await told.waiting(uow, event_ids=plan.keys, item_id=plan.item_id, why=why)

    async def _release(self, plan: _Plan, claim: discussions.Claim) -> None:
        async with unit_of_work(self._sessions, self._clock) as uow:
            uow.channel = await scope_of_channel(uow, channel_id=plan.channel_id)
            await discussions.release_claim(uow, claim=claim)

    async def _send(self, plan: _Plan) -> Sent | None:
        """The root card, then the reply (or the thread started with the card); what Teams
        made. A plan held for the digest only updates the root card."""
        if plan.starts:
            if plan.held is not None or plan.root is None:
                return None
            assert isinstance(plan.root, ThreadRoot)  # a deleted item's thread never starts
            # The thread's first post: the item's card, @mentioning the people the notification
            # names.
            people = plan.said.mentions if plan.said is not None else []
            return await self._teams.start(
                channel_id=await self._channel_teams_id(plan),
                said=replace(plan.root, mentions=people),
            )
        assert plan.conversation_id is not None and plan.root_message_id is not None
        if plan.root is not None:
            await self._teams.update(
                conversation_id=plan.conversation_id,
                activity_id=plan.root_message_id,
                said=plan.root,
            )
        if plan.said is None or plan.held is not None:
            return None
        return await self._teams.reply(conversation_id=plan.conversation_id, said=plan.said)

    async def _channel_teams_id(self, plan: _Plan) -> str:
        async with unit_of_work(self._sessions, self._clock, write=False) as uow:
            scope = await scope_of_channel(uow, channel_id=plan.channel_id)
        return scope.teams_channel_id

    async def _close(
        self,
        plan: _Plan,
        *,
        sent: Sent | None,
        claim: discussions.Claim | None,
        failure: str | None = None,
    ) -> None:
        """Record what was sent, then close the burst, or open the next one for lines that
        arrived since the plan was read."""
        async with unit_of_work(self._sessions, self._clock) as uow:
            now = uow.clock.now()
            item_exists = await uow.value(_LOCK_ITEM, {"item": plan.item_id}) is not None
            refresh = await uow.row(_LOCK_REFRESH, {"item": plan.item_id})
            reply_id = sent.activity_id if sent is not None else None
            if claim is not None and sent is not None:
                reply_id = await self._record_start(uow, plan, claim, sent, item_exists)
            elif claim is not None:
                uow.channel = await scope_of_channel(uow, channel_id=plan.channel_id)
                await discussions.release_claim(uow, claim=claim)
            await coalescer.mark_told(uow, line_ids=plan.line_ids, reply_id=reply_id)
            if item_exists and not plan.starts:
                await _record(uow, plan, reply_id=reply_id, app_id=self._app_id)
            if plan.held is not None:
                await digests.hold(
                    uow,
                    channel_id=plan.channel_id,
                    item_id=plan.item_id,
                    kind=plan.kind,
                    summary=plan.summary,
                    event_ids=plan.keys,
                    due=plan.held.until,
                )
                await told.waiting(
                    uow, event_ids=plan.keys, item_id=plan.item_id, why=plan.held.why
                )
            elif failure is not None:
                await told.failed(
                    uow, self._teams, event_ids=plan.keys, item_id=plan.item_id, error=failure
                )
            elif plan.starts and plan.root is None:
                await told.failed(
                    uow, self._teams, event_ids=plan.keys, item_id=plan.item_id, error=ITEM_GONE
                )
            elif sent is not None:
                await told.succeeded(uow, event_ids=plan.keys, item_id=plan.item_id)
            if refresh is None or refresh["job_id"] != plan.job_id:
                return
            if plan.deleted:  # the item is gone: nothing more will be told
                await coalescer.forget(uow, item_id=plan.item_id)
                return
            await coalescer.prune(uow, item_id=plan.item_id, told_before=now - KEEP_TOLD)
            first = await uow.value(_FIRST_PENDING, {"item": plan.item_id})
            if refresh["deleted_at"] is not None:  # deleted since the plan: say so next
                first = now
            if first is None:
                await coalescer.close(uow, item_id=plan.item_id)
                return
            job_id = new_id()
            due = max(first + self._coalescer.window, now)
            await coalescer.reopen(uow, item_id=plan.item_id, job_id=job_id)
            await self._coalescer.schedule(uow, {job_id: (plan.item_id, due)})

    async def _record_start(
        self,
        uow: UnitOfWork,
        plan: _Plan,
        claim: discussions.Claim,
        sent: Sent,
        item_exists: bool,
    ) -> str:
        """The thread a notification started, as a start through the API records it."""
        _, _, root = sent.conversation_id.partition(";messageid=")
        root_id = sent.activity_id or root
        await coalescer.thread_started(
            uow, item_id=plan.item_id, conversation_id=sent.conversation_id, root_id=root_id
        )
        if item_exists and plan.described is not None:
            uow.channel = await scope_of_channel(uow, channel_id=plan.channel_id)
            await discussions.record_thread(
                uow,
                kind=plan.kind,
                claim=claim,
                conversation_id=sent.conversation_id,
                root_id=root_id,
                card=plan.described,
            )
        return root_id


async def _names(uow: UnitOfWork, user_ids: set[str]) -> dict[str, str]:
    if not user_ids:
        return {}
    rows = await uow.rows(select(User.id, User.display_name).where(one_of(User.id, user_ids)))
    return {row["id"]: row["display_name"] for row in rows}


async def _record(uow: UnitOfWork, plan: _Plan, *, reply_id: str | None, app_id: str) -> None:
    """The root's new card (as the API describes it), and the reply as the discussion's API
    lists it."""
    if plan.described is not None:
        await discussions.record_root_card(uow, item_id=plan.item_id, card=plan.described)
    if reply_id is None or plan.said is None:
        return
    await discussions.record_bot_reply(
        uow,
        item_id=plan.item_id,
        message_id=reply_id,
        reply_to_id=plan.root_message_id,
        author=(app_id, BOT_NAME),
        body=plan.said.html,
        mentions=[
            {
                "id": index,
                "mentionText": person["name"],
                "mentioned": {
                    "user": {
                        "id": person["id"],
                        "displayName": person["name"],
                        "userIdentityType": "aadUser",
                    }
                },
            }
            for index, person in enumerate(plan.said.mentions)
        ],
    )
