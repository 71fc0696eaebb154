"""Job kinds: each declared once, beside its handler, as a `JobKind` naming the kind (the string
stored in `jobs.kind`) and its payload's pydantic model. Enqueueing takes that model; the
worker reads the stored payload into it before the handler runs.

A payload is stored as JSON with camelCase keys and without the fields left at their default,
the shape rows had before kinds were typed: rows queued by an older process run here, and rows
queued here run there."""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.alias_generators import to_camel

from bot.db.uow import UnitOfWork
from bot.jobs import queue


class Payload(BaseModel):
    """A job's payload: snake_case in Python, camelCase in the row."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True)


class NoPayload(Payload):
    """The payload of a kind whose job needs nothing but to run."""


P = TypeVar("P", bound=Payload)


class UnreadablePayload(Exception):
    """A stored payload its kind's model does not accept."""


@dataclass(frozen=True, slots=True)
class JobKind(Generic[P]):
    name: str
    payload: type[P]
    # Runs of one job before it is given up (a handler may end it sooner, or retry for its own).
    max_attempts: int = queue.DEFAULT_MAX_ATTEMPTS

    def stored(self, payload: P) -> dict[str, Any]:
        return payload.model_dump(mode="json", by_alias=True, exclude_defaults=True)

    def read(self, stored: dict[str, Any]) -> P:
        """The stored payload as the kind's model; UnreadablePayload says which field is wrong."""
        try:
            return self.payload.model_validate(stored)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(part) for part in error['loc']) or 'payload'}: {error['msg']}"
                for error in exc.errors()
            )
            raise UnreadablePayload(
                f"The {self.name} job's payload cannot be read: {problems}"
            ) from None

    async def enqueue(self, uow: UnitOfWork, payload: P, *, run_at: datetime | None = None) -> str:
        """Queue one job in the caller's transaction (due now or at `run_at`); its id."""
        return await queue.enqueue(
            uow,
            kind=self.name,
            payload=self.stored(payload),
            run_at=run_at,
            max_attempts=self.max_attempts,
        )

    async def enqueue_many(
        self,
        uow: UnitOfWork,
        payloads: Sequence[P],
        *,
        run_at: Sequence[datetime] | None = None,
        ids: Sequence[str] | None = None,
    ) -> None:
        """Queue many jobs in one statement: due now, or each at its `run_at`, with `ids`."""
        await queue.enqueue_many(
            uow,
            kind=self.name,
            payloads=[self.stored(payload) for payload in payloads],
            run_at=run_at,
            ids=ids,
            max_attempts=self.max_attempts,
        )
