"""An item's discussion: its thread claimed, then recorded once Teams has made it; comments;
replies, edits and deletions as Teams reports them; pages of it."""

from dataclasses import dataclass
from datetime import datetime, timedelta
from html import escape
from typing import Any, Protocol, cast

from sqlalchemy import Table, bindparam, delete, insert, select, update

from bot.db.statements import AnySelect, Prepared
from bot.db.tables import (
    Channel,
    ConversationReference,
    DiscussionMessage,
    Item,
    ItemThread,
    Team,
    User,
)
from bot.db.uow import ChannelScope, UnitOfWork
from bot.db.upserts import insert_unless_present
from bot.discussions.plain import plain_text
from bot.errors import Conflict, DomainError, ItemNotFound, NotFound
from bot.ids import is_id, new_id
from bot.schemas import ItemKind

MESSAGES = cast(Table, DiscussionMessage.__table__)
MESSAGE = MESSAGES.c
_ROOT_CARD = Prepared(
    update(MESSAGES)
    .where(MESSAGE.item_id == bindparam("item"), MESSAGE.reply_to_id.is_(None))
    .values(card=bindparam("card", type_=MESSAGE.card.type), modified_at=bindparam("now"))
)
_INSERT_MESSAGE = Prepared(insert(MESSAGES))
ALREADY_STARTED = "Discussion has been initialized."
NOT_INSTALLED = (
    "The app is not installed in this channel's team, so it cannot post there: "
    "add it to the team, then try again."
)
APPLICATION, USER = "application", "user"


class AlreadyStarted(DomainError):
    """The seed's answer to a second start: a 500 with its own text (docs/api.md)."""

    status = 500

    def __init__(self) -> None:
        super().__init__(ALREADY_STARTED)


class NotStarted(NotFound):
    """The item exists in the channel but has no discussion yet."""


@dataclass(frozen=True, slots=True)
class Place:
    """Where a discussion is, as its messages show it (`channelIdentity`, `webUrl`)."""

    tenant_id: str | None
    group_id: str | None
    team_id: str  # Teams' ids
    team_name: str
    channel_id: str
    channel_name: str


@dataclass(frozen=True, slots=True)
class Thread:
    """A discussion that Teams has: its conversation and root message."""

    item_id: str
    conversation_id: str
    root_id: str
    place: Place


@dataclass(frozen=True, slots=True)
class Claim:
    """The right to start an item's thread, held by the caller that wrote `started_at`."""

    item_id: str
    started_at: datetime
    bot_id: str | None  # the bot's app id and name, as the channel's reference knows them
    bot_name: str | None


@dataclass(frozen=True, slots=True)
class TeamsMessage:
    """A message posted in a thread, as an activity reports it."""

    message_id: str
    author_id: str | None  # Entra object id
    author_name: str | None
    body: str  # HTML
    mentions: list[dict[str, Any]]
    at: datetime


def comment_body(author_name: str, text: str) -> str:
    """A comment's HTML in the thread, as the bot posts it: "<author>: <text>"."""
    return escape(f"{author_name}: {text}")


class Onward(Protocol):
    """Where a comment made here goes on to (the sync engine: the item's source), noted in the
    comment's own transaction; `message_id` is the stored message's row id."""

    async def __call__(
        self, uow: UnitOfWork, *, item_id: str, message_id: str, text: str
    ) -> None: ...


class Revised(Protocol):
    """Where an edit or a deletion of a comment goes on to (the sync engine: the item's
    source), noted in its own transaction; `message_id` is the stored message's row id, `text`
    its words now."""

    async def __call__(
        self, uow: UnitOfWork, *, message_id: str, text: str, deleted: bool
    ) -> None: ...


async def claim_thread(
    uow: UnitOfWork, *, kind: ItemKind, item_id: str, stale_after: timedelta
) -> Claim:
    """Take the item's thread before Teams is asked: a second start is refused, unless the
    first one's claim is older than `stale_after` (its process died while waiting)."""
    scope = scope_of(uow)
    # Locked, so two starts of one item take turns here (PostgreSQL; SQLite's writers queue).
    await _find_item(uow, kind, item_id, for_update=True)
    reference = await uow.value(
        select(ConversationReference.reference).where(
            ConversationReference.conversation_id == scope.teams_channel_id
        )
    )
    if reference is None:
        raise Conflict(NOT_INSTALLED)
    now = uow.clock.now()
    held = await uow.row(
        select(ItemThread.conversation_id, ItemThread.started_at).where(
            ItemThread.item_id == item_id
        )
    )
    actor = uow.actor.user_id if uow.actor else None
    if held is None:
        row = {"item_id": item_id, "channel_id": scope.channel_id}
        await uow.execute(insert(ItemThread).values(**row, started_by=actor, started_at=now))
    elif held["conversation_id"] is None and held["started_at"] < now - stale_after:
        await uow.execute(
            update(ItemThread)
            .where(ItemThread.item_id == item_id)
            .values(started_by=actor, started_at=now)
        )
    else:
        raise AlreadyStarted()
    bot = reference.get("bot") or {}
    bot_id = bot.get("id")
    return Claim(item_id, now, bot_id.removeprefix("28:") if bot_id else None, bot.get("name"))


async def release_claim(uow: UnitOfWork, *, claim: Claim) -> None:
    """Give the thread back when Teams did not make it: the next start may try again."""
    await uow.execute(
        delete(ItemThread).where(
            ItemThread.item_id == claim.item_id,
            ItemThread.started_at == claim.started_at,
            ItemThread.conversation_id.is_(None),
        )
    )


async def record_thread(
    uow: UnitOfWork,
    *,
    kind: ItemKind,
    claim: Claim,
    conversation_id: str,
    root_id: str,
    card: dict[str, Any],
) -> tuple[dict[str, Any], Place]:
    """Store the thread Teams made and its root message (the item card); the row and where."""
    done = await uow.execute(
        update(ItemThread)
        .where(
            ItemThread.item_id == claim.item_id,
            ItemThread.started_at == claim.started_at,
            ItemThread.conversation_id.is_(None),
        )
        .values(conversation_id=conversation_id, root_message_id=root_id)
        .returning(ItemThread.item_id)
    )
    if not done:  # another start took the claim over meanwhile
        raise AlreadyStarted()
    # Comments stored before the thread (from the item's source) are its replies from now on.
    await uow.execute(
        update(MESSAGES)
        .where(MESSAGE.item_id == claim.item_id, MESSAGE.reply_to_id.is_(None))
        .values(reply_to_id=root_id)
    )
    now = uow.clock.now()
    row: dict[str, Any] = {
        "id": new_id(),
        "item_id": claim.item_id,
        "message_id": root_id,
        "reply_to_id": None,
        "author_kind": APPLICATION,
        "author_id": claim.bot_id,
        "author_user_id": None,
        "author_name": claim.bot_name,
        # As Microsoft Graph shows a card message: the body points at its attachment.
        "body": f'<attachment id="{root_id}"></attachment>',
        "card": card,
        "mentions": [],
        "created_at": now,
        "modified_at": now,
        "edited_at": None,
        "deleted_at": None,
    }
    await uow.execute(insert(MESSAGES).values(row))
    found = await _item_thread(uow, kind, claim.item_id)
    return row, place_of(found)


async def find_thread(uow: UnitOfWork, *, kind: ItemKind, item_id: str) -> Thread:
    """The item's discussion; 404 for an item not in the channel or not discussed yet."""
    return thread_of(kind, item_id, await _item_thread(uow, kind, item_id))


def thread_of(kind: ItemKind, item_id: str, found: Any) -> Thread:
    if found["conversation_id"] is None:
        raise NotStarted(
            f"{kind.type_label} '{item_id}' has no discussion yet: start one with "
            f"POST /api/{kind.plural}/{item_id}/messages."
        )
    return Thread(item_id, found["conversation_id"], found["root_message_id"], place_of(found))


async def record_comment(
    uow: UnitOfWork,
    *,
    thread: Thread,
    message_id: str,
    body: str,
    text: str,
    onward: Onward | None = None,
) -> dict[str, Any]:
    """Store a reply the bot posted for the caller (`text`, as `body` in Teams), with the caller
    as its author; noted for `onward`."""
    actor = uow.actor
    assert actor is not None, "a comment has an author"
    still = await uow.value(select(ItemThread.item_id).where(ItemThread.item_id == thread.item_id))
    if still is None:  # the item was deleted while Teams was answering
        raise NotFound(f"Item '{thread.item_id}' not found.")
    now = uow.clock.now()
    row = _reply_row(
        thread.item_id,
        thread.root_id,
        TeamsMessage(message_id, actor.source_id, actor.display_name, body, [], now),
        author_user_id=actor.user_id,
    )
    await uow.execute(insert(MESSAGES).values(row))
    if onward is not None:
        await onward(uow, item_id=thread.item_id, message_id=row["id"], text=text)
    return row


async def record_source_comment(
    uow: UnitOfWork,
    *,
    item_id: str,
    message_id: str,
    author_name: str,
    author_user_id: str | None,
    body: str,
    at: datetime,
) -> tuple[str, str | None]:
    """Store a comment made at the item's source as a reply in its discussion (`message_id`
    standing for a Teams id it does not have); its row id, and its thread's conversation when
    the item has a thread."""
    thread = await uow.row(
        select(ItemThread.conversation_id, ItemThread.root_message_id).where(
            ItemThread.item_id == item_id, ItemThread.conversation_id.is_not(None)
        )
    )
    message = TeamsMessage(message_id, None, author_name, body, [], at)
    root = thread["root_message_id"] if thread else None
    row = _reply_row(item_id, root, message, author_user_id=author_user_id)
    await uow.execute(insert(MESSAGES).values(row))
    return row["id"], thread["conversation_id"] if thread else None


async def revise_source_comment(
    uow: UnitOfWork, *, row_id: str, body: str | None, at: datetime
) -> None:
    """A comment made at the source, edited there (`body`: its new HTML) or deleted there
    (None); `row_id` its stored message's row id."""
    changed = {"body": body, "edited_at": at} if body is not None else {"deleted_at": at}
    await uow.execute(
        update(MESSAGES).where(MESSAGE.id == row_id).values(**changed, modified_at=at)
    )


async def record_source_comment_told(
    uow: UnitOfWork, *, row_id: str, stood_for: str, teams_id: str
) -> bool:
    """A comment made at the source, told in the item's thread: Teams' id for it in place of
    the one that stood for it (`stood_for`); False when it was told already."""
    told = await uow.execute(
        update(MESSAGES)
        .where(MESSAGE.id == row_id, MESSAGE.message_id == stood_for)
        .values(message_id=teams_id)
        .returning(MESSAGE.id)
    )
    return bool(told)


async def forget_source_comments(uow: UnitOfWork, *, message_ids: Any) -> None:
    """Drop messages stored as comments made at the source (`message_ids`: a select of their
    row ids) that turned out to be copies of comments sent from here."""
    await uow.execute(delete(MESSAGES).where(MESSAGE.id.in_(message_ids)))


async def record_root_card(uow: UnitOfWork, *, item_id: str, card: dict[str, Any]) -> None:
    """The root's card as the API describes it, once the bot updated it in Teams."""
    await uow.execute(_ROOT_CARD, {"item": item_id, "card": card, "now": uow.clock.now()})


async def record_bot_reply(
    uow: UnitOfWork,
    *,
    item_id: str,
    message_id: str,
    reply_to_id: str | None,
    author: tuple[str, str],
    body: str,
    mentions: list[dict[str, Any]],
) -> None:
    """A reply the bot posted in the item's thread (`author`: the app's id and name, `body`
    its HTML), as the discussion's API lists it."""
    app_id, name = author
    now = uow.clock.now()
    await uow.execute(
        _INSERT_MESSAGE,
        {
            "id": new_id(),
            "item_id": item_id,
            "message_id": message_id,
            "reply_to_id": reply_to_id,
            "author_kind": "application",
            "author_id": app_id or None,
            "author_user_id": None,
            "author_name": name,
            "body": body,
            "card": None,
            "mentions": mentions,
            "created_at": now,
            "modified_at": now,
            "edited_at": None,
            "deleted_at": None,
        },
    )


# What Teams reports: replies, edits, deletions.


async def thread_item(uow: UnitOfWork, *, conversation_id: str) -> str | None:
    """The item whose discussion the conversation (`<channel>;messageid=<root>`) is, if any."""
    return cast(
        str | None,
        await uow.value(
            select(ItemThread.item_id).where(ItemThread.conversation_id == conversation_id)
        ),
    )


async def record_reply(
    uow: UnitOfWork,
    *,
    conversation_id: str,
    message: TeamsMessage,
    onward: Onward | None = None,
) -> bool:
    """Store a reply posted in Teams; a redelivered one once (and noted for `onward` once).
    False: not a discussion."""
    thread = await uow.row(
        select(ItemThread.item_id, ItemThread.root_message_id).where(
            ItemThread.conversation_id == conversation_id
        )
    )
    if thread is None:
        return False
    author = None
    if message.author_id:
        author = await uow.value(select(User.id).where(User.source_id == message.author_id))
    row = _reply_row(thread["item_id"], thread["root_message_id"], message, author_user_id=author)
    stored = await uow.execute(
        insert_unless_present(MESSAGES, key=("item_id", "message_id"))
        .values(row)
        .returning(MESSAGE.id)
    )
    if stored and onward is not None:
        text = plain_text(message.body)
        await onward(uow, item_id=thread["item_id"], message_id=row["id"], text=text)
    return True


async def record_edit(
    uow: UnitOfWork,
    *,
    conversation_id: str,
    message_id: str,
    body: str,
    at: datetime,
    revised: Revised | None = None,
) -> None:
    """A message's new body (noted for `revised`); an unknown message, or the same body
    again (Teams delivering the edit twice), changes nothing."""
    edited = await uow.execute(
        update(MESSAGES)
        .where(_in_thread(conversation_id, message_id), MESSAGE.body != body)
        .values(body=body, edited_at=at, modified_at=at)
        .returning(MESSAGE.id)
    )
    if revised is not None:
        for row in edited:
            await revised(uow, message_id=row["id"], text=plain_text(body), deleted=False)


async def record_deletion(
    uow: UnitOfWork,
    *,
    conversation_id: str,
    message_id: str,
    at: datetime,
    deleted: bool,
    revised: Revised | None = None,
) -> None:
    """A message deleted (`deleted`, noted for `revised`) or restored; an unknown message
    changes nothing."""
    changed = await uow.execute(
        update(MESSAGES)
        .where(_in_thread(conversation_id, message_id))
        .values(deleted_at=at if deleted else None, modified_at=at)
        .returning(MESSAGE.id)
    )
    if revised is not None and deleted:
        for row in changed:
            await revised(uow, message_id=row["id"], text="", deleted=True)


def _in_thread(conversation_id: str, message_id: str) -> Any:
    items = select(ItemThread.item_id).where(ItemThread.conversation_id == conversation_id)
    return (MESSAGE.item_id == items.scalar_subquery()) & (MESSAGE.message_id == message_id)


def _reply_row(
    item_id: str, root_id: str | None, message: TeamsMessage, *, author_user_id: str | None
) -> dict[str, Any]:
    return {
        "id": new_id(),
        "item_id": item_id,
        "message_id": message.message_id,
        "reply_to_id": root_id,
        "author_kind": USER,
        "author_id": message.author_id,
        "author_user_id": author_user_id,
        "author_name": message.author_name,
        "body": message.body,
        "card": None,
        "mentions": message.mentions,
        "created_at": message.at,
        "modified_at": message.at,
        "edited_at": None,
        "deleted_at": None,
    }


async def _find_item(
    uow: UnitOfWork, kind: ItemKind, item_id: str, *, for_update: bool = False
) -> None:
    found = None
    if is_id(item_id):
        statement = select(Item.id).where(
            Item.id == item_id, Item.channel_id == scope_of(uow).channel_id, Item.kind == kind.value
        )
        found = await uow.value(statement.with_for_update() if for_update else statement)
    if found is None:
        raise ItemNotFound(kind.type_label, item_id)


async def _item_thread(uow: UnitOfWork, kind: ItemKind, item_id: str) -> Any:
    """The item (of the channel and kind), its thread if any, and where it is: one statement."""
    scope = scope_of(uow)
    found = None
    if is_id(item_id):
        found = await uow.row(item_thread_statement(item_id, scope.channel_id, kind.value))
    if found is None:
        raise ItemNotFound(kind.type_label, item_id)
    return {**found, "scope": scope}


def item_thread_statement(item_id: Any, channel_id: Any, kind: Any) -> AnySelect:
    """The item's thread and where it is; the values may be bound parameters."""
    return (
        select(
            ItemThread.conversation_id,
            ItemThread.root_message_id,
            Channel.name.label("channel_name"),
            Team.name.label("team_name"),
        )
        .select_from(Item)
        .join(Channel, Channel.id == Item.channel_id)
        .join(Team, Team.id == Channel.team_id)
        .outerjoin(ItemThread, ItemThread.item_id == Item.id)
        .where(Item.id == item_id, Item.channel_id == channel_id, Item.kind == kind)
    )


def place_of(found: Any) -> Place:
    scope: ChannelScope = found["scope"]
    return Place(
        tenant_id=scope.tenant_id,
        group_id=scope.group_id,
        team_id=scope.teams_team_id,
        team_name=found["team_name"],
        channel_id=scope.teams_channel_id,
        channel_name=found["channel_name"],
    )


def scope_of(uow: UnitOfWork) -> ChannelScope:
    assert uow.channel is not None, "discussions are reached in a channel"
    return uow.channel
