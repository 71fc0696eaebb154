"""The per-item coalescer: whatever has something to tell an item's thread adds a line here, in
its own transaction, and the thread gets one root-card update and one reply per burst.

The first line of a burst opens the item's refresh (a `thread_refreshes` row) and queues its one
job, due at that line's time plus the window; later lines join it. The job
(`bot.discussions.refresh`) updates the root card in place and replies with one line for all of
them. Item changes arrive through the pending-event pump (`observe`); other features call
`add_line` (docs/ARCHITECTURE.md, "An item's thread stays current").
"""

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import Table, bindparam, case, delete, insert, select, update

from bot.db.expressions import one_of, one_of_named
from bot.db.statements import Prepared
from bot.db.tables import DiscussionMessage, Item, ItemThread, Job, ThreadLine, ThreadRefresh
from bot.db.uow import UnitOfWork
from bot.db.upserts import insert_or_replace, insert_or_update
from bot.discussions.refresh_job import REFRESH, RefreshThread
from bot.events.pump import Event
from bot.ids import new_ids
from bot.jobs import queue
from bot.schemas import Trigger

_TOLD: dict[str, str] = {Trigger.ITEM_UPDATED: "change", Trigger.ITEM_DELETED: "deleted"}
# Woken a little after a job is due: the worker claims only what is due by its clock.
_WAKE_MARGIN = 0.02

_REFRESHES = cast(Table, ThreadRefresh.__table__)
_LINES = cast(Table, ThreadLine.__table__)
_STARTED = Prepared(
    select(
        ItemThread.item_id,
        ItemThread.channel_id,
        Item.kind,
        ItemThread.conversation_id,
        ItemThread.root_message_id,
    )
    .join(Item, Item.id == ItemThread.item_id)
    .where(
        one_of_named(ItemThread.item_id, "ids"),
        ItemThread.root_message_id.is_not(None),
        ItemThread.conversation_id.is_not(None),
    )
)
# A deleted item's thread lives on in its refresh, kept when it was deleted (`item_deleting`).
_KEPT = Prepared(
    select(
        _REFRESHES.c.item_id,
        _REFRESHES.c.channel_id,
        _REFRESHES.c.kind,
        _REFRESHES.c.conversation_id,
        _REFRESHES.c.root_message_id,
    ).where(one_of_named(_REFRESHES.c.item_id, "ids"))
)
_ROOT_CARDS = Prepared(
    select(DiscussionMessage.item_id, DiscussionMessage.card).where(
        one_of_named(DiscussionMessage.item_id, "ids"), DiscussionMessage.reply_to_id.is_(None)
    )
)
_INSERT_LINE = Prepared(insert(_LINES))
# What the refresh job writes as it tells a burst (below).
_POSTED = Prepared(
    update(_LINES)
    .where(one_of_named(_LINES.c.id, "ids"), _LINES.c.told_at.is_(None))
    .values(reply_id=bindparam("reply"))
)
_TOLD_LINES = Prepared(
    update(_LINES)
    .where(one_of_named(_LINES.c.id, "ids"))
    .values(told_at=bindparam("now"), reply_id=bindparam("reply"))
)
_DROP_UNTOLD = Prepared(
    update(_LINES)
    .where(_LINES.c.item_id == bindparam("item"), _LINES.c.told_at.is_(None))
    .values(told_at=bindparam("now"), reply_id=None)
)
_PRUNE = Prepared(
    delete(_LINES).where(
        _LINES.c.item_id == bindparam("item"), _LINES.c.told_at < bindparam("before")
    )
)
_FORGET_LINES = Prepared(delete(_LINES).where(_LINES.c.item_id == bindparam("item")))
_CLOSE = Prepared(delete(_REFRESHES).where(_REFRESHES.c.item_id == bindparam("item")))
_REOPEN = Prepared(
    update(_REFRESHES)
    .where(_REFRESHES.c.item_id == bindparam("item"))
    .values(job_id=bindparam("job"))
)
_THREAD_STARTED = Prepared(
    update(_REFRESHES)
    .where(_REFRESHES.c.item_id == bindparam("item"))
    .values(conversation_id=bindparam("conversation"), root_message_id=bindparam("root"))
)
_UPDATE_LINE = Prepared(
    update(_LINES)
    .where(_LINES.c.id == bindparam("line_id"))
    .values(
        what=bindparam("new_what"),
        actor_id=bindparam("new_actor_id"),
        changes=bindparam("new_changes", type_=_LINES.c.changes.type),
        text=bindparam("new_text"),
        mentions=bindparam("new_mentions", type_=_LINES.c.mentions.type),
    )
)
_GIVE_JOB = Prepared(
    update(_REFRESHES)
    .where(_REFRESHES.c.item_id == bindparam("refresh_item"))
    .values(job_id=bindparam("new_job"))
)


@dataclass(frozen=True, slots=True)
class Thread:
    """An item's thread: where its root is; None for one a notification will start. Its fields
    are columns of the thread's refresh row, written as they are."""

    item_id: str
    channel_id: str
    kind: str
    conversation_id: str | None
    root_message_id: str | None


@dataclass(frozen=True, slots=True)
class Notice:
    """A notification rule's word on one change: told in the item's thread (starting it when
    it has none), @mentioning the people responsible."""

    event: Event
    line: str | None  # what to say when the change itself says nothing (due soon, overdue)
    mentions: Sequence[Mapping[str, str]]  # {id, name}


class Coalescer:
    """Opens and joins bursts; `wake` (the worker's) is called when a refresh falls due."""

    def __init__(self, *, window: timedelta, wake: Callable[[], None] | None = None) -> None:
        self.window = window
        self._wake = wake

    async def observe(self, uow: UnitOfWork, events: Sequence[Event]) -> None:
        """The pump's observer: changes and deletions of items with a started thread join
        their item's burst; every other event costs one indexed lookup for the whole batch."""
        told = [event for event in events if event.trigger in _TOLD]
        if not told:
            return
        ids = list({event.item_id for event in told})
        threads = {row["item_id"]: Thread(**row) for row in await uow.rows(_STARTED, {"ids": ids})}
        gone = list({e.item_id for e in told if e.trigger == Trigger.ITEM_DELETED} - threads.keys())
        if gone:
            threads.update(
                {row["item_id"]: Thread(**row) for row in await uow.rows(_KEPT, {"ids": gone})}
            )
        lines: list[dict[str, Any]] = [
            {
                "item_id": event.item_id,
                "key": event.id,
                "what": _TOLD[event.trigger],
                "actor_id": event.actor_id,
                "changes": event.payload.get("changes")
                if event.trigger == Trigger.ITEM_UPDATED
                else None,
                "text": None,
                "mentions": [],
                "created_at": event.occurred_at,
            }
            for event in told
            if event.item_id in threads
        ]
        if lines:
            await self._open(uow, list(threads.values()), lines)

    async def add_line(
        self,
        uow: UnitOfWork,
        *,
        item_id: str,
        line: str,
        key: str | None = None,
        actor_id: str | None = None,
        mentions: Sequence[Mapping[str, str]] = (),
    ) -> bool:
        """Have the item's next reply say `line` (plain text) and @mention `mentions`
        (`{id, name}`, the person's Teams or Entra id): in the caller's transaction, joining
        the item's burst. One line per `key` (a change's pending-event id): a second line for
        the same change adds only its mentions, and the change's own line is told instead of
        any. False when the item has no started thread (nothing is added)."""
        row = await uow.row(_STARTED, {"ids": [item_id]})
        if row is None:
            return False
        entry = {
            "item_id": item_id,
            "key": key or new_ids(1)[0],
            "what": "line",
            "actor_id": actor_id,
            "changes": None,
            "text": line,
            "mentions": [{"id": m["id"], "name": m["name"]} for m in mentions],
            "created_at": uow.clock.now(),
        }
        await self._open(uow, [Thread(**row)], [entry])
        return True

    async def notify(self, uow: UnitOfWork, notices: Sequence[Notice]) -> None:
        """Notification rules' notices, one line per change (rules matching one change share
        it, their mentions joined): an item without a thread gets a burst that starts it (its
        root card is the notification); one with a thread gets the change's reply."""
        if not notices:
            return
        by_event: dict[str, dict[str, Any]] = {}
        for notice in notices:
            event = notice.event
            line = by_event.setdefault(
                event.id,
                {
                    "item_id": event.item_id,
                    "key": event.id,
                    "what": "change" if event.trigger == Trigger.ITEM_UPDATED else "line",
                    "actor_id": event.actor_id,
                    "changes": event.payload.get("changes")
                    if event.trigger == Trigger.ITEM_UPDATED
                    else None,
                    "text": notice.line,
                    "mentions": [],
                    "created_at": event.occurred_at,
                },
            )
            people = {m["id"]: m for m in [*line["mentions"], *notice.mentions]}
            line["mentions"] = [{"id": m["id"], "name": m["name"]} for m in people.values()]
        ids = list({notice.event.item_id for notice in notices})
        threads = {row["item_id"]: Thread(**row) for row in await uow.rows(_STARTED, {"ids": ids})}
        for notice in notices:
            event = notice.event
            threads.setdefault(
                event.item_id, Thread(event.item_id, event.channel_id, event.kind, None, None)
            )
        await self._open(uow, list(threads.values()), list(by_event.values()))

    async def _open(
        self, uow: UnitOfWork, threads: Sequence[Thread], lines: Sequence[dict[str, Any]]
    ) -> None:
        """Open (or join) each thread's burst, then store its lines. The refresh rows are
        written first: a row's lock orders this with the job that closes its burst."""
        first: dict[str, datetime] = {}
        for line in lines:
            first[line["item_id"]] = min(
                first.get(line["item_id"], line["created_at"]), line["created_at"]
            )
        told = [thread for thread in threads if thread.item_id in first]
        proposed = dict(zip((t.item_id for t in told), new_ids(len(told)), strict=True))
        rows = [{**asdict(t), "job_id": proposed[t.item_id]} for t in told]
        kept = _REFRESHES.c.job_id
        # An open burst keeps its job (its row locked until this commits); a new one takes ours.
        statement = (
            insert_or_update(
                _REFRESHES,
                key=["item_id"],
                update=lambda new: {"job_id": case((kept.is_(None), new["job_id"]), else_=kept)},
            )
            .values(rows)
            .returning(_REFRESHES.c.item_id, _REFRESHES.c.job_id)
        )
        opened = {row["item_id"]: row["job_id"] for row in await uow.execute(statement)}
        fresh = [item for item, job in opened.items() if job == proposed[item]]
        joined = {item: job for item, job in opened.items() if job != proposed[item]}
        if joined:  # a burst whose job failed for good opens anew
            live = set(
                await uow.values(
                    select(Job.id).where(one_of(Job.id, joined.values()), Job.state == queue.QUEUED)
                )
            )
            dead = [item for item, job in joined.items() if job not in live]
            await uow.execute_many(
                _GIVE_JOB, [{"refresh_item": i, "new_job": proposed[i]} for i in dead]
            )
            fresh += dead
        due = {item: first[item] + self.window for item in fresh}
        await self.schedule(uow, {proposed[item]: (item, due[item]) for item in fresh})
        await _store_lines(uow, lines)

    async def schedule(self, uow: UnitOfWork, jobs: Mapping[str, tuple[str, datetime]]) -> None:
        """Queue refresh jobs (`{job id: (item id, due)}`) and wake this process's worker when
        the first falls due (other processes find it at their next poll)."""
        if not jobs:
            return
        await REFRESH.enqueue_many(
            uow,
            [RefreshThread(item_id=item) for item, _ in jobs.values()],
            run_at=[due for _, due in jobs.values()],
            ids=list(jobs),
        )
        if self._wake is not None:
            delay = (min(due for _, due in jobs.values()) - uow.clock.now()).total_seconds()
            uow.on_commit(lambda: self._wake_after(max(delay, 0) + _WAKE_MARGIN))

    def _wake_after(self, delay: float) -> None:
        assert self._wake is not None
        asyncio.get_running_loop().call_later(delay, self._wake)


async def item_deleting(uow: UnitOfWork, *, item_ids: Sequence[str]) -> None:
    """Keep the threads of items about to be deleted (their rows go with the item): the
    deletion's event, processed after, tells each thread the item is gone."""
    threads = [Thread(**row) for row in await uow.rows(_STARTED, {"ids": list(item_ids)})]
    if not threads:
        return
    cards = {
        row["item_id"]: row["card"] for row in await uow.rows(_ROOT_CARDS, {"ids": list(item_ids)})
    }
    now = uow.clock.now()
    rows = [{**asdict(t), "card": cards.get(t.item_id), "deleted_at": now} for t in threads]
    # Its place too: a burst opened before a notification started the thread learns where it is.
    replaced = ["card", "deleted_at", "conversation_id", "root_message_id"]
    await uow.execute(
        insert_or_replace(_REFRESHES, key=["item_id"], replaced=replaced).values(rows)
    )


async def _store_lines(uow: UnitOfWork, lines: Sequence[dict[str, Any]]) -> None:
    """Insert the lines; one whose key is already pending merges into it (its change told,
    its mentions added), one whose key was already told (or posted) adds nothing."""
    keys = [line["key"] for line in lines]
    existing = {
        (row["item_id"], row["key"]): row
        for row in await uow.rows(
            select(_LINES).where(
                one_of(_LINES.c.item_id, {line["item_id"] for line in lines}),
                one_of(_LINES.c.key, keys),
            )
        )
    }
    new = [line for line in lines if (line["item_id"], line["key"]) not in existing]
    merged = []
    for line in lines:
        old = existing.get((line["item_id"], line["key"]))
        if old is None or old["told_at"] is not None or old["reply_id"] is not None:
            continue  # told, or posted already (its record pending): nothing to add
        change = line if line["what"] != "line" else old
        people = {m["id"]: m for m in [*old["mentions"], *line["mentions"]]}
        merged.append(
            {
                "line_id": old["id"],
                "new_what": change["what"],
                "new_actor_id": change["actor_id"],
                "new_changes": change["changes"],
                "new_text": old["text"] or line["text"],
                "new_mentions": list(people.values()),
            }
        )
    ids = new_ids(len(new))
    await uow.execute_many(
        _INSERT_LINE,
        [{**line, "id": line_id} for line_id, line in zip(ids, new, strict=True)],
        {"told_at": None, "reply_id": None},
    )
    await uow.execute_many(_UPDATE_LINE, merged)


# The refresh job's writes: this module is the one writer of the lines and the bursts.


async def mark_posted(uow: UnitOfWork, *, line_ids: Sequence[str], reply_id: str) -> None:
    """The lines a reply Teams took covers, before that reply is recorded (still untold)."""
    await uow.execute(_POSTED, {"ids": list(line_ids), "reply": reply_id})


async def mark_told(uow: UnitOfWork, *, line_ids: Sequence[str], reply_id: str | None) -> None:
    await uow.execute(
        _TOLD_LINES, {"ids": list(line_ids), "now": uow.clock.now(), "reply": reply_id}
    )


async def drop_untold(uow: UnitOfWork, *, item_id: str) -> None:
    """The item's lines not told yet will never be (their job was given up)."""
    await uow.execute(_DROP_UNTOLD, {"item": item_id, "now": uow.clock.now()})


async def prune(uow: UnitOfWork, *, item_id: str, told_before: datetime) -> None:
    await uow.execute(_PRUNE, {"item": item_id, "before": told_before})


async def close(uow: UnitOfWork, *, item_id: str) -> None:
    """The item's burst ends; its next line opens another."""
    await uow.execute(_CLOSE, {"item": item_id})


async def forget(uow: UnitOfWork, *, item_id: str) -> None:
    """A deleted item's lines and burst, gone: nothing more will be told of it."""
    await uow.execute(_FORGET_LINES, {"item": item_id})
    await close(uow, item_id=item_id)


async def reopen(uow: UnitOfWork, *, item_id: str, job_id: str) -> None:
    """The item's burst goes on under a new job, for lines that arrived meanwhile."""
    await uow.execute(_REOPEN, {"item": item_id, "job": job_id})


async def thread_started(
    uow: UnitOfWork, *, item_id: str, conversation_id: str, root_id: str
) -> None:
    """The burst started the item's thread: later ones (and a deletion) reach it directly."""
    await uow.execute(
        _THREAD_STARTED, {"item": item_id, "conversation": conversation_id, "root": root_id}
    )
