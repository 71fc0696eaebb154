"""What the raw-driver ceiling's routes share: the caller and channel read by session hash as
the app reads them, the channel's field values and projects, and timestamps as the API writes
them."""

import hashlib
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

CALLER = """
SELECT t.expires_at, u.id, tm.user_id, ch.id, ch.teams_id, tt.teams_id, tt.group_id
FROM auth_tokens t JOIN users u ON u.id = t.user_id
LEFT JOIN teams tt ON tt.teams_id = :team
LEFT JOIN team_members tm ON tm.team_id = tt.id AND tm.user_id = u.id
LEFT JOIN channels ch ON ch.teams_id = :channel
WHERE t.token_hash = :hash"""
PROJECTS = (
    "SELECT id, enable_bug, display_name, hostname, project_name, source_id, source "
    "FROM projects WHERE channel_id = :c"
)
FIELD_VALUES = (
    'SELECT id, field, name, category, "primary" FROM field_values '
    "WHERE channel_id = :c AND type = 'Bug'"
)

Handler = Callable[[web.Request], Awaitable[web.Response]]


async def caller(db: Any, request: web.Request) -> tuple[str, str, tuple[str, str, str | None]]:
    secret = request.cookies["graphNodeCookie"]
    found = await db.rows(
        CALLER,
        {
            "hash": hashlib.sha256(secret.encode()).hexdigest(),
            "team": request.headers["x-svc-teamid"],
            "channel": request.headers["x-svc-channelId"],
        },
    )
    if not found or found[0][2] is None:
        raise web.HTTPForbidden
    row = found[0]
    return row[1], row[3], (row[4], row[5], row[6])


def api_timestamp(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    value = value.replace(tzinfo=UTC) if value.tzinfo is None else value
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"
