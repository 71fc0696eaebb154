"""A comment made at a source, as the HTML of its reply in the item's thread.

The connector has read the source's rich text (Azure DevOps HTML, Jira's ADF) as the body's
Markdown already; it is rendered again here with raw HTML escaped, so only what Markdown makes
passes: paragraphs, headings, lists, quotes, code, emphasis and links (a mention is its name).
A link goes only to http, https or mailto (any other stays as escaped text) and an image is
its alt text: no script, no attribute the source wrote, no address the reader did not see.
"""

from html import escape
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

SAFE_SCHEMES = ("http:", "https:", "mailto:")


def _safe_link(url: str) -> bool:
    return url.strip().lower().startswith(SAFE_SCHEMES)


def _image_as_alt(_self: Any, tokens: list[Token], idx: int, _options: Any, _env: Any) -> str:
    return escape(tokens[idx].content)


_RENDER = MarkdownIt("commonmark", {"html": False, "breaks": True}).enable("strikethrough")
_RENDER.validateLink = _safe_link  # type: ignore[method-assign]
_RENDER.add_render_rule("image", _image_as_alt)


def safe_html(text: str) -> str:
    """The body's Markdown as HTML with nothing unsafe in it ("" stays "")."""
    return _RENDER.render(text).strip() if text.strip() else ""


def reply_html(author: str, text: str) -> str:
    """The thread's reply for a comment: "<author>: " leading its first paragraph."""
    said = f"{escape(author)}:"
    html = safe_html(text)
    if html.startswith("<p>"):
        return f"<p>{said} {html[3:]}"
    return f"<p>{said}</p>{html}"
