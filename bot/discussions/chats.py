"""Each person's 1:1 chat with the bot (`personal_chats`): where their personal notifications go,
and whether they want them (`notify on` / `notify off`, on until they say otherwise).

Teams may add the app to someone's personal scope before any team roster names them: their chat
waits under their Entra object id (`waiting_personal_chats`) until a roster sync records them,
which moves it here."""

from typing import Any, cast

from sqlalchemy import Table, bindparam, delete, select, true

from bot.db.expressions import one_of_named
from bot.db.statements import Prepared
from bot.db.tables import ConversationReference, PersonalChat, User, WaitingPersonalChat
from bot.db.uow import UnitOfWork
from bot.db.upserts import insert_or_replace, insert_unless_present

_CHATS = cast(Table, PersonalChat.__table__)
_WAITING = cast(Table, WaitingPersonalChat.__table__)
# The sender of a 1:1 chat's activity and what is stored of their chat: one indexed read.
_STORED = Prepared(
    select(User.id, PersonalChat.conversation_id, ConversationReference.service_url)
    .select_from(User)
    .outerjoin(PersonalChat, PersonalChat.user_id == User.id)
    .outerjoin(
        ConversationReference,
        ConversationReference.conversation_id == PersonalChat.conversation_id,
    )
    .where(User.source_id == bindparam("object_id"))
)
_USER_ID = Prepared(select(User.id).where(User.source_id == bindparam("object_id")))
_NEW: dict[str, Any] = {
    "user_id": bindparam("user_id"),
    "conversation_id": bindparam("conversation_id"),
    "notify": bindparam("notify"),
    "updated_at": bindparam("now"),
}
# A refreshed chat keeps the person's choice; a switch sets it.
_REMEMBER = Prepared(
    insert_or_replace(_CHATS, key=["user_id"], replaced=["conversation_id", "updated_at"]).values(
        _NEW
    )
)
_SWITCH = Prepared(
    insert_or_replace(
        _CHATS, key=["user_id"], replaced=["conversation_id", "notify", "updated_at"]
    ).values(_NEW)
)
_FORGET = Prepared(
    delete(_CHATS).where(
        _CHATS.c.user_id.in_(select(User.id).where(User.source_id == bindparam("object_id"))),
        _CHATS.c.conversation_id == bindparam("conversation_id"),
    )
)
_NOTIFY = Prepared(select(PersonalChat.notify).where(PersonalChat.user_id == bindparam("user_id")))
_WAITING_STORED = Prepared(
    select(WaitingPersonalChat.conversation_id, ConversationReference.service_url)
    .outerjoin(
        ConversationReference,
        ConversationReference.conversation_id == WaitingPersonalChat.conversation_id,
    )
    .where(WaitingPersonalChat.object_id == bindparam("object_id"))
)
_WAIT = Prepared(
    insert_or_replace(
        _WAITING, key=["object_id"], replaced=["conversation_id", "updated_at"]
    ).values(
        object_id=bindparam("object_id"),
        conversation_id=bindparam("conversation_id"),
        updated_at=bindparam("now"),
    )
)
_FORGET_WAITING = Prepared(
    delete(_WAITING).where(
        _WAITING.c.object_id == bindparam("object_id"),
        _WAITING.c.conversation_id == bindparam("conversation_id"),
    )
)
# The waiting chats of people a roster now names become theirs, notifications on (a chat they
# already have is kept).
_CLAIM = Prepared(
    insert_unless_present(_CHATS, key=["user_id"]).from_select(
        ["user_id", "conversation_id", "notify", "updated_at"],
        select(User.id, _WAITING.c.conversation_id, true(), _WAITING.c.updated_at)
        .join(User, User.source_id == _WAITING.c.object_id)
        .where(one_of_named(_WAITING.c.object_id, "object_ids")),
    )
)
_CLAIMED = Prepared(
    delete(_WAITING).where(
        _WAITING.c.object_id.in_(
            select(User.source_id).where(one_of_named(User.source_id, "object_ids"))
        )
    )
)


async def is_current(uow: UnitOfWork, *, object_id: str, reference: dict[str, Any]) -> bool:
    """Whether the sender's chat is stored as this reference has it (waiting, for someone no
    roster names yet): a message in the chat then writes nothing."""
    row = await uow.row(_STORED, {"object_id": object_id})
    if row is None:
        row = await uow.row(_WAITING_STORED, {"object_id": object_id})
    return row is not None and (
        row["conversation_id"] == reference["conversation"]["id"]
        and row["service_url"] == reference["serviceUrl"]
    )


async def remember(uow: UnitOfWork, *, object_id: str, conversation_id: str) -> bool:
    """Record (or refresh) the sender's 1:1 chat (its reference saved by the caller), keeping
    their `notify` choice; for someone no roster names yet, the chat waits for them. Whether
    they are known."""
    user_id = await uow.value(_USER_ID, {"object_id": object_id})
    if user_id is None:
        values = {"object_id": object_id, "conversation_id": conversation_id}
        await uow.execute(_WAIT, {**values, "now": uow.clock.now()})
        return False
    await uow.execute(_REMEMBER, _values(uow, user_id, conversation_id, True))
    return True


async def claim_waiting(uow: UnitOfWork, *, object_ids: list[str]) -> None:
    """The people a roster sync has just recorded take the chats that waited for them."""
    if object_ids:
        await uow.execute(_CLAIM, {"object_ids": object_ids})
        await uow.execute(_CLAIMED, {"object_ids": object_ids})


async def forget(uow: UnitOfWork, *, object_id: str, conversation_id: str) -> None:
    """The sender removed the app from their personal scope: their chat is no place to send to
    any more (adding the app again brings it back, with notifications on)."""
    values = {"object_id": object_id, "conversation_id": conversation_id}
    await uow.execute(_FORGET, values)
    await uow.execute(_FORGET_WAITING, values)


async def wants_notifications(uow: UnitOfWork) -> bool:
    """Whether the caller gets personal notifications (on unless they switched them off)."""
    assert uow.actor is not None
    notify = await uow.value(_NOTIFY, {"user_id": uow.actor.user_id})
    return notify is not False


async def switch(uow: UnitOfWork, *, conversation_id: str, on: bool) -> None:
    """Switch the caller's personal notifications on or off, from their 1:1 chat."""
    assert uow.actor is not None
    await uow.execute(_SWITCH, _values(uow, uow.actor.user_id, conversation_id, on))


def _values(uow: UnitOfWork, user_id: str, conversation_id: str, notify: bool) -> dict[str, Any]:
    return {
        "user_id": user_id,
        "conversation_id": conversation_id,
        "notify": notify,
        "now": uow.clock.now(),
    }
