"""@mentions inside an Adaptive Card, so that the card is the whole message.

A message with a card and a text beside it shows one or the other, depending on the client (a
notification showed "@Alex Wilber" and nothing else): the people a card tells go in a TextBlock
of the card as `<at>Name</at>`, each resolved by a mention entity in the card's `msteams`
(Teams' card-based mentions; the text of each entity is exactly the tag in the block).
"""

from collections.abc import Mapping, Sequence

from bot.messaging import mention_tag
from cards.layout import Card, largest_fitting, shorten, text_block

NAME_MAX = 64  # a name as the mention shows it


def mentioning(card: Card, people: Sequence[Mapping[str, str]]) -> Card:
    """The card with a first line @mentioning `people` ({id, name}: a Teams or Entra id and
    the name shown), each once, as many as Teams' size limit leaves room for; the card as it is
    for nobody."""
    unique = list({person["id"]: person for person in people}.values())
    if not unique:
        return card
    return largest_fitting(lambda count: _with(card, unique[:count]), len(unique))


def _with(card: Card, people: Sequence[Mapping[str, str]]) -> Card:
    if not people:
        return card
    tags = [mention_tag(shorten(person["name"], NAME_MAX)) for person in people]
    entities = [
        {
            "type": "mention",
            "text": tag,
            "mentioned": {"id": person["id"], "name": person["name"]},
        }
        for tag, person in zip(tags, people, strict=True)
    ]
    line = text_block(" ".join(tags), wrap=True)
    msteams = {**card.get("msteams", {}), "entities": entities}
    return {**card, "body": [line, *card.get("body", [])], "msteams": msteams}
