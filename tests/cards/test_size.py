"""The fast size bound never lets a card past Teams' limit that the exact measure would stop."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cards.layout import CARD_BUDGET_BYTES, envelope, fits, plain, size_bound, size_bytes
from tests.cards.test_cards import CARDS

# Every character a user can type, controls, DEL and astral ones included (no lone surrogates:
# orjson refuses them, which `fits` covers below).
TYPED = st.text(st.characters(exclude_categories=["Cs"]))


@pytest.mark.parametrize("name", CARDS)
def test_bound_covers_every_card(name: str) -> None:
    assert size_bound(CARDS[name]) >= size_bytes(CARDS[name])


@given(
    TYPED,
    st.dictionaries(TYPED, TYPED | st.integers(-(2**63), 2**63 - 1) | st.booleans(), max_size=5),
)
def test_bound_covers_any_text_and_data(text: str, data: dict) -> None:
    card = envelope([plain(text)], [{"type": "Action.Execute", "title": text, "data": data}])
    assert size_bound(card) >= size_bytes(card)


def test_a_card_just_over_the_budget_does_not_fit() -> None:
    card = envelope([plain("x" * CARD_BUDGET_BYTES)])
    assert size_bytes(card) > CARD_BUDGET_BYTES
    assert not fits(card)


def test_a_lone_surrogate_is_measured_exactly() -> None:
    assert fits(envelope([plain("half an emoji: \ud83d")]))
    assert not fits(envelope([plain("\ud83d" * (CARD_BUDGET_BYTES // 6))]))
