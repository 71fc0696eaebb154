"""The raw-driver ceiling's POST /api/bulk/bug: the bulk edit's transaction for a new status as
the app runs it (caller and channel, field values, external projects, the rows locked in id
order, one UPDATE per completed date, one event per changed item in one executemany, or on
PostgreSQL one statement from three arrays), answered with the same list; the database's
triggers move the version, as for the app's."""

import re
import secrets
import time
from datetime import UTC, datetime
from typing import Any

import orjson
from aiohttp import web

from bench.raw_items_shared import FIELD_VALUES, PROJECTS, Handler, api_timestamp, caller

# The bulk edit's: its rows locked in id order (the ids one parameter: {ids}), its UPDATE.
BULK_ROWS = """
SELECT id, name, project_id, status_id, status, start_date, due_date, completed_date
FROM items WHERE id {ids} AND channel_id = :c AND kind = 'bug' ORDER BY id{lock}"""
BULK_UPDATE = """
UPDATE items SET status = :status, status_id = :status_id, completed_date = :completed,
sync_status = NULL, sync_at = :now, updated_at = :now, updated_by = :user WHERE id {ids}"""
UPDATED_EVENT = """
INSERT INTO pending_events (id, channel_id, kind, item_id, "trigger", actor_id, occurred_at,
payload, processed_at)
VALUES (:event, :c, 'bug', :id, 'ITEM_UPDATED', :user, :now, :payload, NULL)"""
# PostgreSQL's, as the app writes them there: every row in one statement, from three arrays.
UPDATED_EVENTS = """
INSERT INTO pending_events (id, channel_id, kind, item_id, "trigger", actor_id, occurred_at,
payload, processed_at)
SELECT e.id, :c, 'bug', e.item_id, 'ITEM_UPDATED', :user, :now, e.payload::json, NULL
FROM unnest(:events::varchar[], :items::varchar[], :payloads::text[]) AS e(id, item_id, payload)"""
NATIVE = "Svc.Native"
ID = re.compile(r"^[0-9a-f]{24}$")
NOT_FOUND, INVALID_DATES = "Svc_NOTFOUND", "Svc_INVALID_DATES"


def _bulk_result(item_id: str, name: str | None, error: str | None) -> dict[str, Any]:
    """One id's answer, as the app's BulkResult writes it."""
    if error is None:
        return {"_id": item_id, "name": name, "status": "success"}
    return {"_id": item_id, "name": name, "status": "error", "error": error}


def _instant(value: Any) -> datetime | None:
    """A stored timestamp as an aware datetime (SQLite's text, PostgreSQL's datetime)."""
    if value is None or isinstance(value, datetime):
        return value
    return datetime.fromisoformat(value).replace(tzinfo=UTC)


def bulk_edit_handler(db: Any) -> Handler:
    """The bulk edit's handler, with its statements written for the database."""
    bulk_rows = BULK_ROWS.format(ids=db.one_of, lock=db.lock)
    bulk_update = BULK_UPDATE.format(ids=db.one_of)

    async def bulk_edit_bugs(request: web.Request) -> web.Response:
        body = orjson.loads(await request.read())
        ids, wanted = body["ids"], body["status"].strip().casefold()
        user_id, channel, _place = await caller(db, request)
        values = await db.rows(FIELD_VALUES, {"c": channel})
        statuses = {row[0]: row for row in values if row[1] == "status"}
        status = next(row for row in statuses.values() if row[2].strip().casefold() == wanted)
        external = [row for row in await db.rows(PROJECTS, {"c": channel}) if row[6] != NATIVE]
        assert not external, "the ceiling edits a channel without external projects"
        done = {row[0] for row in statuses.values() if row[3] == "Done"}
        now = datetime.now(UTC)
        results: dict[str, dict[str, Any]] = {}
        groups: dict[Any, list[str]] = {}
        events = []
        async with db.transaction() as transaction:
            wanted_ids = [i for i in dict.fromkeys(ids) if ID.match(i)]
            rows = await transaction.run(bulk_rows, {"ids": db.ids(wanted_ids), "c": channel})
            found = {row[0]: row for row in rows}
            for item_id in dict.fromkeys(ids):
                row = found.get(item_id)
                if row is None:
                    results[item_id] = _bulk_result(item_id, None, NOT_FOUND)
                    continue
                name, status_id, current, completed = row[1], row[3], row[4], row[7]
                start, due = _instant(row[5]), _instant(row[6])
                if start is not None and due is not None and due < start:
                    results[item_id] = _bulk_result(item_id, name, INVALID_DATES)
                    continue
                results[item_id] = _bulk_result(item_id, name, None)
                # The Done rule: filled on moving into Done, cleared on moving out.
                was_done, is_done = status_id in done, status[0] in done
                old_completed = _instant(completed)
                new_completed = old_completed
                if is_done != was_done:
                    new_completed = now if is_done else None
                changes = []
                if current != status[2]:
                    changes.append({"field": "status", "old": current, "new": status[2]})
                if new_completed != old_completed:
                    changes.append(
                        {
                            "field": "completedDate",
                            "old": api_timestamp(old_completed),
                            "new": api_timestamp(new_completed),
                        }
                    )
                if changes or status_id != status[0]:
                    key = None if new_completed is None else db.instant(new_completed)
                    groups.setdefault(key, []).append(item_id)
                    events.append((item_id, changes))
            common = {"status": status[2], "status_id": status[0], "now": db.instant(now)}
            for completed_at, group in groups.items():
                await transaction.run(
                    bulk_update,
                    {**common, "completed": completed_at, "user": user_id, "ids": db.ids(group)},
                )
            stamp = f"{int(time.time()):08x}"
            random = secrets.token_hex(8 * len(events))
            event_ids = [stamp + random[16 * n : 16 * n + 16] for n in range(len(events))]
            payloads = [orjson.dumps({"changes": changes}).decode() for _id, changes in events]
            shared = {"c": channel, "user": user_id, "now": db.instant(now)}
            if db.events_at_once:
                items = [item_id for item_id, _changes in events]
                arrays = {"events": event_ids, "items": items, "payloads": payloads}
                await transaction.run(UPDATED_EVENTS, {**shared, **arrays})
            else:
                await transaction.many(
                    UPDATED_EVENT,
                    [
                        {**shared, "event": event_id, "id": item_id, "payload": payload}
                        for event_id, (item_id, _changes), payload in zip(
                            event_ids, events, payloads, strict=True
                        )
                    ],
                )
        answer = [results[item_id] for item_id in ids]
        return web.Response(body=orjson.dumps(answer), content_type="application/json")

    return bulk_edit_bugs
