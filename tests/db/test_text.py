"""What lets SQLite's own LIKE sort rows out before the fold: the letters of ASCII that some
other character lowers into are exactly those the text module names."""

import sys

from bot.db.text import LOWERED_INTO_ASCII


def test_the_ascii_letters_other_characters_lower_into_are_named() -> None:
    lowered = {
        letter
        for code in range(0x80, sys.maxunicode + 1)
        for letter in chr(code).lower()
        if letter.isascii()
    }
    assert lowered == LOWERED_INTO_ASCII
