"""Conversation references saved at once (Teams may redeliver an installation): one row each, no
failure. On PostgreSQL each save looked the row up before another's insert committed (a unique
violation); SQLite's writers take turns, and run the same test."""

import asyncio

from sqlalchemy import func, select

from bot.db.tables import ConversationReference
from bot.teams.outbound import conversation_references
from tests.factories import Factory

CHAT = "19:chat-new@thread.v2"


async def _save(factory: Factory, n: int) -> None:
    reference = {"conversation": {"id": CHAT}, "serviceUrl": f"https://smba.example/{n}/"}
    async with factory.work() as uow:
        await conversation_references.save(uow, reference=reference)


async def test_10_parallel_saves_of_one_chat_keep_one_reference(factory: Factory) -> None:
    # Writes in parallel first fill the pool, so the saves start together, not one per new
    # connection.
    await asyncio.gather(*(factory.team(f"19:team-{n}@thread.tacv2") for n in range(15)))
    await asyncio.gather(*(_save(factory, n) for n in range(10)))
    async with factory.work() as uow:
        rows = await uow.session.scalar(select(func.count()).select_from(ConversationReference))
    assert rows == 1
