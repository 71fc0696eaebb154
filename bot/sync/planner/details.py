"""Task details read in Graph's JSON batches (`POST /$batch`, at most 20 requests in each): a pull
reads the details of every task whose ETag moved, so one batch stands for twenty requests.

Each request in a batch has its own answer. A 404 is a task deleted since it was listed; a 429
or 503 holds the host for its `Retry-After` (as one outside a batch does: the pacer lets nothing
go sooner), so the reading stops there and the request is tried again by the next pull; another
5xx is tried again in the next batch, `TRIES` times in all. What was read before a failure is
kept (`Read.found`): the caller hands it on before it raises `Read.failure`."""

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.sync.exchange import THROTTLED
from bot.sync.planner.client import Answer, GraphClient
from bot.sync.source import (
    SourceError,
    SourceNotFound,
    SourceRefused,
    SourceStale,
    SourceUnauthorized,
)

BATCH = 20  # requests Graph takes in one JSON batch
TRIES = 3  # a request answered 5xx (no Retry-After) is sent this many times in all
_PORT_ERRORS = (SourceError, SourceNotFound, SourceRefused, SourceStale, SourceUnauthorized)


@dataclass
class Read:
    found: dict[str, dict[str, Any] | None] = field(default_factory=dict)  # None: gone there
    failure: Exception | None = None  # what stopped the reading; the rest is not read


async def read_details(client: GraphClient, task_ids: Sequence[str], *, at_once: int) -> Read:
    """The details of each task, `at_once` batches in flight."""
    read = Read()
    waiting = list(dict.fromkeys(task_ids))
    failed = Answer(502, {}, None)  # the last 5xx answer
    for _ in range(TRIES):
        again: list[str] = []
        chunks = [waiting[start : start + BATCH] for start in range(0, len(waiting), BATCH)]
        for start in range(0, len(chunks), at_once):
            for chunk, answers in await _sent(client, chunks[start : start + at_once]):
                if isinstance(answers, Exception):
                    read.failure = read.failure or answers
                    continue
                for task_id, answer in zip(chunk, answers, strict=True):
                    what = f"read the details of task {task_id}"
                    if 200 <= answer.status < 300:
                        read.found[task_id] = answer.body if isinstance(answer.body, dict) else {}
                    elif answer.status == 404:
                        read.found[task_id] = None
                    elif answer.status in THROTTLED:
                        read.failure = read.failure or client.throttled(answer, what=what)
                    elif answer.status >= 500 or answer.status == 408:
                        again.append(task_id)
                        failed = answer
                    else:
                        read.failure = read.failure or client.refused(answer, what=what)
            if read.failure is not None:
                return read  # throttled or refused: the rest waits for the next pull
        if not again:
            return read
        waiting = again
    read.failure = client.refused(failed, what=f"read the details of task {waiting[0]}")
    return read


async def _sent(
    client: GraphClient, chunks: list[list[str]]
) -> list[tuple[list[str], list[Answer] | Exception]]:
    """Each chunk's answers, or the error its batch met (the others' answers kept)."""

    async def one(chunk: list[str]) -> tuple[list[str], list[Answer] | Exception]:
        try:
            paths = [f"/planner/tasks/{task_id}/details" for task_id in chunk]
            return chunk, await client.batch(paths, what="read task details in a batch")
        except _PORT_ERRORS as refused:
            return chunk, refused

    return list(await asyncio.gather(*(one(chunk) for chunk in chunks)))
