"""A description between Azure DevOps' HTML and an item's body text (Markdown, as cards show it).

Markdown is rendered with markdown-it (CommonMark, raw HTML escaped, a newline is a line break so
plain text keeps its lines) and read back with markdownify, so that a round trip keeps
paragraphs, lists, links and code either way.
"""

import re

from markdown_it import MarkdownIt
from markdownify import MarkdownConverter

_RENDER = MarkdownIt("commonmark", {"html": False, "breaks": True}).enable("strikethrough")
_READ = MarkdownConverter(
    heading_style="ATX",
    bullets="-",
    code_language="",
    escape_asterisks=False,
    escape_underscores=False,
    escape_misc=False,
)
_HARD_BREAK = re.compile(r"  \n")  # markdownify's <br>; a newline is a break already
_NBSP = "\xa0"


def to_html(text: str) -> str:
    """The body's text as the HTML Azure DevOps keeps ("" stays "")."""
    if not text.strip():
        return ""
    return _RENDER.render(text).strip()


def to_text(markup: str | None) -> str:
    """Azure DevOps' HTML as the body's text."""
    if not markup or not markup.strip():
        return ""
    text = _READ.convert(markup).replace(_NBSP, " ")
    return _HARD_BREAK.sub("\n", text).strip()
