"""The raw-driver ceiling's POST /odata/bugs: the create transaction as the app runs it (caller
and channel, field values, native project, counter, item, event), answered as the app answers."""

import secrets
import time
from datetime import UTC, datetime
from typing import Any

import orjson
from aiohttp import web

from bench.raw_items_shared import FIELD_VALUES, PROJECTS, Handler, api_timestamp, caller

ITEM_COLUMNS = (
    "id, internal_id, name, body, owner, status, status_id, priority, severity, project_id, "
    "source, source_id, start_date, due_date, completed_date, effort, phase, phase_name, bucket, "
    "bucket_name, entity_id, sync_status, sync_at, created_by, updated_by, created_at, updated_at"
)
# The version is the database's to move (its triggers, as for the app's writes).
NEXT_NUMBER = (
    "UPDATE item_counters SET last_internal_id = last_internal_id + 1 "
    "WHERE channel_id = :c AND kind = 'bug' RETURNING last_internal_id"
)
INSERT_ITEM = f"""
INSERT INTO items (channel_id, kind, {ITEM_COLUMNS}) VALUES (:c, 'bug', :id, :internal_id,
:name, NULL, NULL, :status, :status_id, :priority, :severity, :project_id, :source, :id, NULL,
:due, NULL, NULL, NULL, NULL, :bucket, NULL, NULL, NULL, :now, :user, :user, :now, :now)"""
INSERT_EVENT = """
INSERT INTO pending_events (id, channel_id, kind, item_id, "trigger", actor_id, occurred_at,
payload, processed_at)
VALUES (:event, :c, 'bug', :id, 'ITEM_CREATED', :user, :now, :payload, NULL)"""


def create_bug_handler(db: Any, base: str) -> Handler:
    """The create's handler; `base` starts its @odata links."""

    async def create_bug(request: web.Request) -> web.Response:
        body = await request.json()
        user_id, channel, _place = await caller(db, request)
        values = await db.rows(FIELD_VALUES, {"c": channel})
        primary = {row[1]: row for row in values if row[4]}
        named = {(row[1], row[2].lower()): row for row in values}
        status = primary["status"]
        priority = named[("priority", body["priority"].lower())]
        project = next(
            row for row in await db.rows(PROJECTS, {"c": channel}) if row[6] == "Svc.Native"
        )
        now = datetime.now(UTC)
        item_id = f"{int(time.time()):08x}{secrets.token_hex(8)}"
        due = datetime.fromisoformat(body["dueDate"]).replace(tzinfo=UTC)
        severity = primary["severity"][2]
        params = {
            "c": channel,
            "id": item_id,
            "name": body["name"],
            "status": status[2],
            "status_id": status[0],
            "priority": priority[2],
            "severity": severity,
            "project_id": project[0],
            "source": project[6],
            "due": db.instant(due),
            "bucket": "[]",
            "now": db.instant(now),
            "user": user_id,
            "event": f"{int(time.time()):08x}{secrets.token_hex(8)}",
        }
        async with db.transaction() as transaction:
            run = transaction.run
            internal_id = (await run(NEXT_NUMBER, {"c": channel}))[0][0]
            params["internal_id"] = internal_id
            await run(INSERT_ITEM, params)
            # The created shape, as the app answers it and its ITEM_CREATED event carries it.
            created = {
                "_id": item_id,
                "internalId": internal_id,
                "name": body["name"],
                "body": None,
                "owner": None,
                "status": status[2],
                "priority": priority[2],
                "source": project[6],
                "sourceId": item_id,
                "startDate": None,
                "dueDate": api_timestamp(due),
                "completedDate": None,
                "effort": None,
                "phase": None,
                "phaseName": None,
                "bucket": [],
                "bucketName": None,
                "attachments": [],
                "createdAt": api_timestamp(now),
                "updatedAt": api_timestamp(now),
                "projectId": project[0],
                "assignedTo": [],
                "severity": severity,
            }
            params["payload"] = orjson.dumps({"item": created}).decode()
            await run(INSERT_EVENT, params)
        link = f"{base}/odata/bugs('{item_id}')"
        answer = {
            "@odata.context": f"{base}/odata/$metadata#bugs/$entity",
            "@odata.editLink": link,
            "@odata.id": link,
            **created,
        }
        return web.Response(body=orjson.dumps(answer), status=201, content_type="application/json")

    return create_bug
