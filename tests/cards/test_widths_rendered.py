"""The list card as a person sees it at each width Teams gives it: rendered by Microsoft's
Adaptive Cards library in headless Chromium (`tools.render_cards`, laid out for the width as
Teams does), every row's number shown whole and no word broken across lines."""

from typing import Any

import pytest

from bot.schemas import ItemKind
from cards.layout import Card
from cards.listing import ItemList, list_card
from tests.cards.samples import CHANNEL, details, list_rows
from tests.cards.test_parsed_by_adaptivecards import require_node
from tests.pages.chromium import require_chromium
from tools.render_cards import FULL_WIDTH, PHONE_WIDTH, WIDTH, each_card

# Per text node of the card: each word that lies on more than one line (broken inside it), and
# each text cut short (an ellipsis: more text than its box shows).
READ = """document.fonts.ready.then(() => {
  const card = document.getElementById("card");
  const broken = [], cut = [];
  const walker = document.createTreeWalker(card, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent;
    for (const match of text.matchAll(/[^ \\t\\n]+/g)) {
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const tops = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
      if (tops.size > 1) broken.push(match[0]);
    }
    const box = node.parentElement;
    if (box.scrollWidth > box.clientWidth + 1) cut.push(text);
  }
  return {text: card.innerText, broken: broken, cut: cut};
})"""
ROWS = list_rows(
    details(7, status="Not Started", priority="Normal"),
    details(1234, status="In Progress", priority="Urgent", name="Checkout fails on Safari"),
    details(56, status="Completed", priority="Normal", assignedTo=[], dueDate=None),
)
WIDTHS = {"phone": PHONE_WIDTH, "chat": WIDTH, "channel": FULL_WIDTH}


async def seen(card: Card) -> dict[str, dict[str, Any]]:
    """What the card shows at each of WIDTHS."""
    require_node()  # the library is installed with Node's packages
    require_chromium()
    cards = {name: (card, width) for name, width in WIDTHS.items()}
    return {name: await tab.evaluate(READ) async for name, tab in each_card(cards)}


@pytest.mark.parametrize("selectable", [True, False], ids=["channel list", "chat list"])
async def test_the_list_card_shows_every_number_and_whole_words_at_every_width(
    selectable: bool,
) -> None:
    card = list_card(ItemList("Bugs", ItemKind.BUG, ROWS, "bugs", CHANNEL if selectable else None))
    for width, shown in (await seen(card)).items():
        for row in ROWS:
            assert f"#{row.internal_id}" in shown["text"].split(), (width, shown["text"])
        assert shown["broken"] == [], width
        assert shown["cut"] == [], width
        for words in ("Not Started", "Normal", "In Progress", "Checkout fails on Safari"):
            assert words in " ".join(shown["text"].split()), (width, words)
