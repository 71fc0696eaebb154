"""What a reply in the thread may hold: the tags Markdown makes, links only to http, https or
mailto, and no other attribute. `unsafe` names whatever breaks that."""

from html.parser import HTMLParser

ALLOWED_TAGS = frozenset(
    {"p", "br", "strong", "em", "s", "code", "pre", "ul", "ol", "li", "a", "blockquote", "hr"}
    | {"h1", "h2", "h3", "h4", "h5", "h6"}
)
SAFE_SCHEMES = ("http:", "https:", "mailto:")


class _Checker(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in ALLOWED_TAGS:
            self.found.append(f"<{tag}>")
        for name, value in attrs:
            if tag == "a" and name == "href" and (value or "").lower().startswith(SAFE_SCHEMES):
                continue
            if tag == "ol" and name == "start":
                continue
            self.found.append(f"<{tag} {name}={value!r}>")


def unsafe(html: str) -> list[str]:
    """The tags and attributes of `html` a reply must not hold (none: it is safe)."""
    checker = _Checker()
    checker.feed(html)
    checker.close()
    return checker.found
