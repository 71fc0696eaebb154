"""A Teams message's body (HTML) as plain text: what a search is made of, or a comment sent on."""

import html
import re

_TAG = re.compile(r"<[^>]*>")
_BREAK = re.compile(r"<\s*(br|/p|/div|/li)\s*/?>", re.IGNORECASE)


def plain_text(markup: str) -> str:
    """A Teams message body (HTML) as plain text, its paragraphs kept as lines."""
    text = html.unescape(_TAG.sub("", _BREAK.sub("\n", markup)))
    lines = (" ".join(line.split()) for line in text.splitlines())
    return "\n".join(line for line in lines if line)
