"""What the engine's test table needs of a source, in neutral terms: each source (Azure DevOps,
Jira, Planner) brings a rig over its local stand-in, and the table's tests run unchanged on all.

Items are tasks (the one kind every source syncs), titled "Item <n>"; a state is named by its
category (New, Active, Done) and the rig picks that source's own state for it."""

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, Protocol

from bot.fields.schemas import Category
from tests.factories import Member


class Exchange(Protocol):
    """One request the stand-in served, as its log keeps it."""

    method: str
    path: str
    status: int
    at: datetime | None
    response_headers: dict[str, str]


class SourceRig(Protocol):
    kind: str  # the project's `source`

    def link_body(self, **overrides: Any) -> dict[str, Any]:
        """`POST /api/projects` for this source's project, sync on, with working credentials."""
        ...

    def seed(
        self,
        count: int,
        *,
        states: Sequence[Category] = (),
        assignees: Sequence[Member | None] = (),
    ) -> list[str]:
        """`count` tasks there, "Item 0".."Item <count-1>" (the n-th in `states[n]`, assigned to
        `assignees[n]` when given), each changed at its own time; no hook is called. Their ids."""
        ...

    def rename(self, item_id: str, title: str) -> None:
        """Someone else renames it there."""
        ...

    def title(self, item_id: str) -> str | None:
        """Its title there; None once it is deleted."""
        ...

    def category(self, item_id: str) -> Category:
        """The category of its state there."""
        ...

    def delete(self, item_id: str) -> None:
        """Someone else deletes it there."""
        ...

    def fail_next(self, count: int = 1, *, status: int = 500) -> None:
        """The next `count` requests are answered `status`, unserved."""
        ...

    def throttle(self, budget: int, *, window_seconds: float) -> None:
        """`budget` requests per window; the rest get 429 with `Retry-After`."""
        ...

    def revoke(self) -> None:
        """The credentials the project was linked with are refused from now on (401)."""
        ...

    def new_credentials(self) -> dict[str, Any]:
        """Working credentials, as `PATCH /api/projects/{id}` takes them."""
        ...

    def secrets(self) -> list[str]:
        """Every credential value the project was linked with (none may ever show)."""
        ...

    @property
    def exchanges(self) -> Sequence[Exchange]: ...

    def writes(self) -> list[Exchange]:
        """The requests that changed an item there (reads and searches left out), oldest first."""
        ...


class LocalStandin(Protocol):
    """What every local source offers a rig (`bot.sync.standins.wire.LocalSource`'s faults, a
    token to link with, tokens added and revoked)."""

    token: str

    @property
    def exchanges(self) -> Sequence[Any]: ...

    def fail_next(self, count: int = 1, *, status: int = 500) -> None: ...

    def throttle(self, budget: int, *, window_seconds: float = 1.0) -> None: ...

    def revoke_token(self, token: str | None = None) -> None: ...

    def add_token(self, token: str) -> None: ...


class StandinRig:
    """The part of a rig every local source shares: faults and credentials by token."""

    def __init__(self, standin: LocalStandin) -> None:
        self._standin = standin
        self._token = standin.token

    def fail_next(self, count: int = 1, *, status: int = 500) -> None:
        self._standin.fail_next(count, status=status)

    def throttle(self, budget: int, *, window_seconds: float) -> None:
        self._standin.throttle(budget, window_seconds=window_seconds)

    def revoke(self) -> None:
        self._standin.revoke_token(self._token)

    def new_credentials(self) -> dict[str, Any]:
        self._token = f"renewed-{len(self._standin.exchanges)}"
        self._standin.add_token(self._token)
        return {"token": self._token}

    def secrets(self) -> list[str]:
        return [self._standin.token, self._token]

    @property
    def exchanges(self) -> Sequence[Exchange]:
        return self._standin.exchanges


def too_soon(exchanges: Sequence[Exchange]) -> list[str]:
    """Requests that came before the `Retry-After` of an earlier 429 had passed."""
    found, allowed_at = [], None
    for exchange in exchanges:
        assert exchange.at is not None
        if allowed_at is not None and exchange.at < allowed_at:
            found.append(f"{exchange.method} {exchange.path} at {exchange.at} < {allowed_at}")
        if exchange.status == 429:
            waited = timedelta(seconds=int(exchange.response_headers["Retry-After"]))
            allowed_at = max(allowed_at or exchange.at, exchange.at + waited)
    return found
