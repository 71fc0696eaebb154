"""How the bot answers: a card as a message attachment, or as an invoke's replacement card."""

from typing import Any

from botbuilder.core import CardFactory, MessageFactory, TurnContext

from cards.layout import Card

ADAPTIVE = "application/vnd.microsoft.card.adaptive"


class _Built(dict[str, Any]):
    """A card being sent. The SDK deep-copies every activity it sends, a list card's 200
    elements with it; a card is not changed once built, so the copy shares them. The copy is a
    plain dict, as msrest serialises only exact dicts."""

    def __deepcopy__(self, _memo: dict[int, Any]) -> Card:
        return dict(self)


async def send_card(turn_context: TurnContext, card: Card) -> None:
    """Reply in the conversation (in a channel, in the command's thread)."""
    attachment = CardFactory.adaptive_card(_Built(card))
    await turn_context.send_activity(MessageFactory.attachment(attachment))


def card_in_place(card: Card) -> dict[str, Any]:
    """The Universal Action answer that replaces the clicked card with `card`."""
    return {"statusCode": 200, "type": ADAPTIVE, "value": card}
