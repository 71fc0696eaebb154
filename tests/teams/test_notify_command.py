"""`notify`, `notify on`, `notify off`: typed in the 1:1 chat, where the bot remembers each
person's chat as they add the app or write to it; elsewhere, a line saying where it works."""

from datetime import timedelta

from sqlalchemy import select

from bot.clock import FrozenClock
from bot.db.tables import ConversationReference, PersonalChat, WaitingPersonalChat
from bot.teams.commands.notify_commands import NOTIFY_IN_PERSONAL_CHAT, NOTIFY_USAGE
from bot.teams.context import UNKNOWN_USER
from tests.cards.samples import text_of
from tests.factories import Factory
from tests.teams.activities import (
    GRACE,
    GROUP_CHAT,
    MALLORY,
    mention,
    personal_chat_id,
    personal_installed,
    personal_message,
    teams_activity,
)
from tests.teams.bot import Chat, sent_cards
from tests.teams.connector import Connector, TeamsMember


async def chats(factory: Factory) -> list[tuple[str, str, bool]]:
    """Every personal chat stored: (user id, conversation id, notify)."""
    async with factory.work(write=False) as uow:
        rows = await uow.rows(
            select(PersonalChat.user_id, PersonalChat.conversation_id, PersonalChat.notify)
        )
    return [(row["user_id"], row["conversation_id"], row["notify"]) for row in rows]


async def stored_reference(factory: Factory, member: TeamsMember) -> ConversationReference | None:
    async with factory.work(write=False) as uow:
        return await uow.get(ConversationReference, personal_chat_id(member))


async def test_a_personal_install_remembers_the_chat_with_notifications_on(
    chat: Chat, factory: Factory
) -> None:
    await chat.post(personal_installed(chat.service_url, GRACE))
    [(_, conversation_id, notify)] = await chats(factory)
    assert (conversation_id, notify) == (personal_chat_id(GRACE), True)
    reference = await stored_reference(factory, GRACE)
    assert reference is not None and reference.service_url == chat.service_url


async def test_notify_off_is_kept_when_the_chat_is_refreshed(
    chat: Chat, factory: Factory, clock: FrozenClock
) -> None:
    grace = Chat(chat.post, chat.service_url, chat.connector, sender=GRACE)
    card = await grace.say("NOTIFY off", personal=True)
    assert "Personal notifications are off" in text_of(card)
    [row] = await chats(factory)
    # Teams gives the chat another service URL: its reference is refreshed, the choice kept.
    moved = f"{chat.service_url}/"
    clock.advance(timedelta(minutes=5))
    await chat.post(personal_message(moved, "my bugs", sender=GRACE))
    assert await chats(factory) == [row]
    reference = await stored_reference(factory, GRACE)
    assert reference is not None and reference.service_url == moved


async def test_a_message_in_an_unchanged_chat_writes_nothing(
    chat: Chat, factory: Factory, clock: FrozenClock
) -> None:
    await chat.post(personal_installed(chat.service_url, GRACE))
    async with factory.work(write=False) as uow:
        before = await uow.value(select(PersonalChat.updated_at))
    clock.advance(timedelta(minutes=5))
    await chat.post(personal_message(chat.service_url, "help", sender=GRACE))
    async with factory.work(write=False) as uow:
        assert await uow.value(select(PersonalChat.updated_at)) == before


async def test_an_unknown_person_is_refused_and_their_chat_only_waits_for_a_roster(
    chat: Chat, connector: Connector, factory: Factory
) -> None:
    await chat.post(personal_installed(chat.service_url, MALLORY))
    connector.calls.clear()
    await chat.post(personal_message(chat.service_url, "notify off", sender=MALLORY))
    assert connector.texts() == [UNKNOWN_USER]
    assert await chats(factory) == []  # nobody's chat: no user has this Entra id
    async with factory.work(write=False) as uow:
        waiting = await uow.rows(select(WaitingPersonalChat.object_id))
    assert [row["object_id"] for row in waiting] == [MALLORY.object_id]
    assert await stored_reference(factory, MALLORY) is not None


async def test_notify_with_another_word_says_how_to_say_it(
    chat: Chat, connector: Connector, factory: Factory
) -> None:
    connector.calls.clear()
    await chat.post(personal_message(chat.service_url, "notify maybe", sender=GRACE))
    assert connector.texts() == [NOTIFY_USAGE.format(word="maybe")]
    [(_, _, notify)] = await chats(factory)
    assert notify is True


async def test_notify_in_a_channel_or_a_group_chat_says_where_it_works(
    chat: Chat, connector: Connector, factory: Factory
) -> None:
    connector.calls.clear()
    await chat.post(mention(chat.service_url, "notify off", sender=GRACE))
    await chat.post(mention(chat.service_url, "notify", sender=GRACE, group_chat=GROUP_CHAT))
    assert connector.texts() == [NOTIFY_IN_PERSONAL_CHAT] * 2
    assert sent_cards(connector) == []
    assert await chats(factory) == []


async def test_a_group_chat_install_keeps_its_reference_and_no_personal_chat(
    chat: Chat, factory: Factory
) -> None:
    await chat.post(
        teams_activity("installationUpdate", chat.service_url, group_chat=GROUP_CHAT, action="add")
    )
    async with factory.work(write=False) as uow:
        assert await uow.get(ConversationReference, GROUP_CHAT) is not None
    assert await chats(factory) == []
