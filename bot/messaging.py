"""The domain's port to the chat it talks in: what to say, and where.

Domain services say it through a `Messenger`, in their own transaction: the message is queued
with what they write and sent once it commits; a job that must know what Teams made (an item's
thread) sends now. `bot.teams.outbound.messenger` implements it and
builds the cards at the Teams edge; `create_app` hands it to the services that talk.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from html import escape
from typing import Any, Protocol

from bot.db.uow import UnitOfWork
from bot.schemas import ItemKind

DELETED = " (deleted)"  # what a deleted item's thread root adds to its title


def mention_tag(name: str) -> str:
    """How a message's text marks a mention of someone (the mention's entity carries the same
    text)."""
    return f"<at>{escape(name)}</at>"


@dataclass(frozen=True, slots=True)
class RuleSwitchedOff:
    """The service switched a rule off (a 410, days of nothing but failures)."""

    rule: str  # its name
    reason: str


@dataclass(frozen=True, slots=True)
class NotificationsFailing:
    """A channel's notifications keep failing (told once a day at most)."""

    failures: int
    error: str  # the latest failure's


@dataclass(frozen=True, slots=True)
class Assigned:
    """Someone was assigned items of one kind (one: its card; several: a list)."""

    kind: ItemKind
    items: list[dict[str, Any]]  # in the details shape (`bot.items.read`)
    actor: str  # who assigned them, by name
    at: datetime


@dataclass(frozen=True, slots=True)
class DigestLine:
    """One item's line of a channel's digest."""

    summary: str
    kind: ItemKind
    item_id: str


@dataclass(frozen=True, slots=True)
class Digest:
    """A channel's digest: its items' lines, as many as fit."""

    lines: list[DigestLine]
    channel_id: str  # the channel's Teams id, for the buttons that list its items


@dataclass(frozen=True, slots=True)
class SyncPaused:
    """A project's source refused the credentials: its sync waits for new ones (told once)."""

    project: str  # its display name
    project_id: str
    source: str  # the source's kind, as the API names it ("Microsoft.Vsts")
    reason: str  # the source's refusal


@dataclass(frozen=True, slots=True)
class SyncStatesAdded:
    """The source has states the project had not seen: its items in them are `Invalid` until
    the states are mapped (told once, when the states are first read)."""

    project: str  # its display name
    project_id: str
    source: str
    states: tuple[str, ...]  # their names


@dataclass(frozen=True, slots=True)
class Commented:
    """A comment told as a reply in the item's thread (one posted through the API, or made at
    the item's source): its HTML body, the author's name leading."""

    body: str


@dataclass(frozen=True, slots=True)
class ThreadRoot:
    """An item's thread root as it is now: the item as its card shows it (its due date marked
    once past `at`). `asks_mention` where the team's unmentioned messages have never reached the
    app (Teams may deliver only @mentions there), so the root asks replies for one; `mentions`:
    the people the thread's first post @mentions ({id, name})."""

    kind: ItemKind
    item: dict[str, Any]  # in the details shape (`bot.items.read`)
    at: datetime
    asks_mention: bool
    mentions: Sequence[Mapping[str, str]] = ()


@dataclass(frozen=True, slots=True)
class DeletedRoot:
    """The root of an item that was deleted, from its last description (`Messenger.describe`):
    its title and facts marked `DELETED`, nothing to open."""

    described: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ThreadReply:
    """A reply in an item's thread telling a burst of its changes (`bot.discussions.lines`): its
    HTML, and the people it @mentions ({id, name})."""

    html: str
    mentions: list[dict[str, str]]


# What is said with a card, and what is said with words alone.
Carded = (
    RuleSwitchedOff
    | NotificationsFailing
    | Assigned
    | Digest
    | SyncPaused
    | SyncStatesAdded
    | ThreadRoot
    | DeletedRoot
)
Said = Carded | Commented | ThreadReply


@dataclass(frozen=True, slots=True)
class Sent:
    conversation_id: str
    activity_id: str | None


class Messenger(Protocol):
    async def post(self, uow: UnitOfWork, *, channel_id: str, said: Said) -> None:
        """A new thread in the channel (its Teams id) saying `said`, sent once `uow` commits."""

    async def tell(self, uow: UnitOfWork, *, conversation_id: str, said: Said) -> None:
        """A message in a conversation (a person's 1:1 chat, an item's thread), sent once
        `uow` commits."""

    async def start(self, *, channel_id: str, said: Said) -> Sent:
        """A new thread in the channel, now; raises `PermanentFailure` when Teams never will."""

    async def reply(self, *, conversation_id: str, said: Said) -> Sent:
        """A reply in a thread (or a message in a chat), now."""

    async def update(self, *, conversation_id: str, activity_id: str, said: Said) -> Sent:
        """The message `activity_id` the app sent, replaced by `said`, now."""

    async def remove(self, *, conversation_id: str, activity_id: str) -> None:
        """The message `activity_id` the app sent, deleted, now."""

    def describe(self, root: ThreadRoot) -> dict[str, Any]:
        """The root as the API describes it (the root message's attachment), kept with it."""
