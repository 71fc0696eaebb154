"""What a page shows, read from its HTML as a browser would lay it out in words."""

from dataclasses import dataclass, field
from html.parser import HTMLParser


@dataclass
class Shown:
    """The page's text, its headings, its facts (each `<dt>` with its `<dd>`) and its links."""

    text: str = ""
    headings: list[str] = field(default_factory=list)
    facts: dict[str, str] = field(default_factory=dict)
    links: dict[str, str] = field(default_factory=dict)  # text → href
    tags: set[str] = field(default_factory=set)


def shown(html: str) -> Shown:
    reader = _Reader()
    reader.feed(html)
    reader.close()
    page = reader.page
    page.text = " ".join("".join(reader.words).split())
    return page


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = Shown()
        self.words: list[str] = []
        self._open: list[tuple[str, list[str], dict[str, str | None]]] = []
        self._term = ""
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.page.tags.add(tag)
        self._in_style = tag == "style"
        if tag in ("h1", "dt", "dd", "a"):
            self._open.append((tag, [], dict(attrs)))
        self.words.append(" ")

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False
        self.words.append(" ")
        if not self._open or self._open[-1][0] != tag:
            return
        _tag, parts, attrs = self._open.pop()
        text = " ".join("".join(parts).split())
        if tag == "h1":
            self.page.headings.append(text)
        elif tag == "dt":
            self._term = text
        elif tag == "dd":
            self.page.facts[self._term] = text
        else:
            self.page.links[text] = attrs.get("href") or ""

    def handle_data(self, data: str) -> None:
        if self._in_style:
            return
        self.words.append(data)
        for _tag, parts, _attrs in self._open:
            parts.append(data)
