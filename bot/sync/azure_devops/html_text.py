"""A description between Azure DevOps' HTML and an item's body text (Markdown, as cards show it).

Markdown is rendered with markdown-it (CommonMark, raw HTML escaped, a newline is a line break so
plain text keeps its lines) and read back by `html_markdown` (the standard library's parser; a
pull converts every description it reads, so the reader is kept lean), so that a round trip
keeps paragraphs, lists, links and code either way.
"""

from markdown_it import MarkdownIt

from bot.sync.azure_devops.html_markdown import html_to_text

_RENDER = MarkdownIt("commonmark", {"html": False, "breaks": True}).enable("strikethrough")


def to_html(text: str) -> str:
    """The body's text as the HTML Azure DevOps keeps ("" stays "")."""
    if not text.strip():
        return ""
    return _RENDER.render(text).strip()


def to_text(markup: str | None) -> str:
    """Azure DevOps' HTML as the body's text."""
    if not markup or not markup.strip():
        return ""
    return html_to_text(markup)
