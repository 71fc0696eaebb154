"""`notify`, `notify on`, `notify off`: personal notifications, switched in the 1:1 chat."""

from bot.discussions import chats
from bot.errors import BadRequest
from bot.teams.commands import grammar
from bot.teams.context import BotContext
from cards.help import note_card
from cards.layout import Card, shorten

NOTIFY_IN_PERSONAL_CHAT = (
    "`notify` works in your 1:1 chat with me: open a chat with the app and type `notify off` "
    "or `notify on` there."
)
NOTIFY_USAGE = (
    "I can't set personal notifications to “{word}”: type `notify on` or `notify off`, "
    "or `notify` alone to see the setting."
)
NOTIFY_ON = (
    "Personal notifications are on: I message you here when someone assigns you an item. "
    "Type `notify off` to stop them."
)
NOTIFY_OFF = (
    "Personal notifications are off: you will not get a message here when someone assigns you "
    "an item. Type `notify on` to have them again."
)
WORD_MAX = 40


async def notify(ctx: BotContext, command: grammar.Notify) -> Card:
    if ctx.personal_chat is None:
        raise BadRequest(NOTIFY_IN_PERSONAL_CHAT)
    if command.word is not None:
        raise BadRequest(NOTIFY_USAGE.format(word=shorten(command.word, WORD_MAX)))
    async with ctx.work(write=command.on is not None) as uow:
        if command.on is None:
            on = await chats.wants_notifications(uow)
        else:
            on = command.on
            await chats.switch(uow, conversation_id=ctx.personal_chat, on=on)
    return note_card(NOTIFY_ON if on else NOTIFY_OFF)
