"""Group commit for job handlers: calls that arrive while one batch runs are run together in the
next, so many jobs running at once share one statement or transaction instead of one each,
without waiting when there is no crowd (a lone call runs at once)."""

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class Batches(Generic[T, R]):
    """`submit(item)` gives the result `run` gave for it; `run` takes up to `limit` items and
    answers one result per item, in order. A failing run fails every call of its batch."""

    def __init__(self, run: Callable[[list[T]], Awaitable[Sequence[R]]], *, limit: int) -> None:
        self._run, self._limit = run, limit
        self._waiting: list[tuple[T, asyncio.Future[R]]] = []
        self._task: asyncio.Task[None] | None = None

    async def submit(self, item: T) -> R:
        future: asyncio.Future[R] = asyncio.get_running_loop().create_future()
        self._waiting.append((item, future))
        if self._task is None:
            self._task = asyncio.create_task(self._drain())
        # The batch goes on if this caller is cancelled: its item may be written already.
        return await asyncio.shield(future)

    async def close(self) -> None:
        """Stop: a batch in progress is cancelled (its transaction rolled back)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _drain(self) -> None:
        try:
            while self._waiting:
                batch = self._waiting[: self._limit]
                del self._waiting[: self._limit]
                try:
                    results = await self._run([item for item, _ in batch])
                except Exception as exc:
                    for _, future in batch:
                        if not future.done():
                            future.set_exception(exc)
                    continue
                except BaseException:
                    for _, future in batch + self._waiting:
                        future.cancel()
                    self._waiting.clear()
                    raise
                for (_, future), result in zip(batch, results, strict=True):
                    if not future.done():
                        future.set_result(result)
        finally:
            self._task = None
