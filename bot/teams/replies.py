"""How the bot answers: a card as a message attachment, or as an invoke's replacement card."""

from typing import Any

from botbuilder.core import CardFactory, MessageFactory, TurnContext

from cards.layout import Card

ADAPTIVE = "application/vnd.microsoft.card.adaptive"


async def send_card(turn_context: TurnContext, card: Card) -> None:
    """Reply in the conversation (in a channel, in the command's thread)."""
    await turn_context.send_activity(MessageFactory.attachment(CardFactory.adaptive_card(card)))


def card_in_place(card: Card) -> dict[str, Any]:
    """The Universal Action answer that replaces the clicked card with `card`."""
    return {"statusCode": 200, "type": ADAPTIVE, "value": card}
