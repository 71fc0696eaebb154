"""A discussed bug in the demo channel: its thread and 5,000 replies (plus the root card), and
a hundred other discussed bugs of a few replies each, so the thread is not the table's only."""

import asyncio
import json
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import select, text

from bench.generated_rows import item_row
from bench.harness import ROWS_SOURCE, SEED_SOURCES, Dataset, run_cli, run_module
from bot.db.engine import create_engine
from bot.db.tables import Channel, DiscussionMessage, FieldValue, Item, ItemThread, Project, User
from bot.ids import new_id

REPLIES = 5_000
OTHER_THREADS = 100
OTHER_REPLIES = 20
FIRST_NUMBER = 1000
START = datetime(2026, 11, 1, tzinfo=UTC)
ROOT_CARD: dict[str, Any] = {
    "@type": "MessageCard",
    "summary": "Bug #1: Benchmarked",
    "title": "Bug #1: Benchmarked",
    "text": "Generated for the benchmarks.",
    "themeColor": "C4314B",
    "sections": [{"facts": [{"name": "Status", "value": "Not Started"}], "markdown": False}],
    "potentialAction": [],
}


def dataset() -> Dataset:
    counts = (REPLIES, OTHER_THREADS, OTHER_REPLIES)
    return Dataset("discussions", (Path(__file__), ROWS_SOURCE, *SEED_SOURCES), counts, _generate)


def _generate(env: dict[str, str]) -> None:
    signed_in = json.loads(run_cli(env, "admin", "demo"))
    run_module(env, "bench.discussions_data", env["DATABASE_URL"], signed_in["channelId"])


async def load(database_url: str, demo_channel: str) -> None:
    engine = create_engine(database_url)
    try:
        async with engine.begin() as conn:
            channel = (
                await conn.execute(select(Channel).where(Channel.teams_id == demo_channel))
            ).one()
            status = (
                await conn.execute(
                    select(FieldValue).where(
                        FieldValue.channel_id == channel.id,
                        FieldValue.field == "status",
                        FieldValue.type == "Bug",
                        FieldValue.primary.is_(True),
                    )
                )
            ).one()
            project = await conn.scalar(select(Project.id).where(Project.channel_id == channel.id))
            authors = (await conn.execute(select(User.source_id, User.id, User.display_name))).all()
            items, threads, messages = [], [], []
            for number in range(1, OTHER_THREADS + 2):
                item = item_row(
                    channel_id=channel.id,
                    kind="bug",
                    internal_id=FIRST_NUMBER + number,  # after the demo's own bugs
                    name=f"Discussed {number}",
                    status=status.name,
                    status_id=status.id,
                    priority="Normal",
                    severity="Medium",
                    project_id=project,
                    due_date=None,
                    created=START,
                )
                items.append(item)
                root = str(1_700_000_000_000 + number * 100_000)
                threads.append(
                    {
                        "item_id": item["id"],
                        "channel_id": channel.id,
                        "conversation_id": f"{demo_channel};messageid={root}",
                        "root_message_id": root,
                        "started_by": None,
                        "started_at": START,
                    }
                )
                replies = REPLIES if number == 1 else OTHER_REPLIES
                messages.append(_message(item["id"], root, None, 0, ROOT_CARD, authors[0]))
                for reply in range(1, replies + 1):
                    author = authors[reply % len(authors)]
                    messages.append(
                        _message(item["id"], str(int(root) + reply), root, reply, None, author)
                    )
            await conn.execute(Item.__table__.insert(), items)
            await conn.execute(ItemThread.__table__.insert(), threads)
            await conn.execute(DiscussionMessage.__table__.insert(), messages)
        async with engine.connect() as conn:
            autocommit = await conn.execution_options(isolation_level="AUTOCOMMIT")
            vacuum = "VACUUM ANALYZE" if conn.dialect.name == "postgresql" else "ANALYZE"
            await autocommit.execute(text(vacuum))
    finally:
        await engine.dispose()


def _message(
    item_id: str, message_id: str, root: str | None, offset: int, card: Any, author: Any
) -> dict[str, Any]:
    at = START + timedelta(minutes=offset)
    return {
        "id": new_id(),
        "item_id": item_id,
        "message_id": message_id,
        "reply_to_id": root,
        "author_kind": "application" if root is None else "user",
        "author_id": author.source_id,
        "author_user_id": None if root is None else author.id,
        "author_name": "Tracker" if root is None else author.display_name,
        "body": f'<attachment id="{message_id}"></attachment>' if root is None else _reply(offset),
        "card": card,
        "mentions": [],
        "created_at": at,
        "modified_at": at,
        "edited_at": None,
        "deleted_at": None,
    }


def _reply(offset: int) -> str:
    link = f'<a href="https://contoso.test/builds/{offset}">build {offset}</a>'
    return f"<p>Reply {offset}: seen again on {link}</p>"


if __name__ == "__main__":
    asyncio.run(load(sys.argv[1], sys.argv[2]))
