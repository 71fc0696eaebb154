"""Azure DevOps' HTML as Markdown text, on the standard library's parser: a small tree, then
paragraphs, headings, lists, quotes, code, links and emphasis written the way `to_html` reads
them back; a mention is its name; other markup keeps only its text."""

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

_VOID = frozenset({"br", "img", "hr", "input", "meta", "link", "wbr", "col", "area", "source"})
_BLOCKS = frozenset(
    {
        "p", "div", "ul", "ol", "li", "pre", "blockquote", "hr", "table", "tr", "thead",
        "tbody", "tfoot", "h1", "h2", "h3", "h4", "h5", "h6", "section", "article", "header",
        "footer", "main", "body", "html", "center", "dl", "dt", "dd", "figure",
    }
)  # fmt: skip
_CLOSES_ITSELF = frozenset({"p", "li", "tr", "td", "th", "dt", "dd"})
_DROPPED = frozenset({"script", "style", "head", "title"})
_SPACES = re.compile(r"[ \t\r\n\f\xa0]+")
_BREAK = "\x00"  # a <br> inside inline text, until spaces are collapsed


@dataclass(slots=True)
class _Node:
    tag: str
    attrs: dict[str, str] = field(default_factory=dict)
    children: list["_Node | str"] = field(default_factory=list)


class _Tree(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = _Node("root")
        self._open = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _CLOSES_ITSELF and self._open[-1].tag == tag:
            self._open.pop()
        node = _Node(tag, {name: value or "" for name, value in attrs})
        self._open[-1].children.append(node)
        if tag not in _VOID:
            self._open.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._open[-1].children.append(_Node(tag, {name: value or "" for name, value in attrs}))

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self._open) - 1, 0, -1):
            if self._open[depth].tag == tag:
                del self._open[depth:]
                return

    def handle_data(self, data: str) -> None:
        self._open[-1].children.append(data)


def html_to_text(markup: str) -> str:
    tree = _Tree()
    tree.feed(markup)
    tree.close()
    return "\n\n".join(_blocks(tree.root.children)).strip()


def _blocks(children: list[_Node | str]) -> list[str]:
    """The blocks these nodes make, in order (inline runs become paragraphs)."""
    found: list[str] = []
    run: list[str] = []
    for child in children:
        if isinstance(child, str) or (child.tag not in _BLOCKS and not _has_block(child)):
            run.append(child if isinstance(child, str) else _inline(child))
            continue
        _paragraph(run, found)
        run = []
        if child.tag in _DROPPED:
            continue
        found.extend(_block(child))
    _paragraph(run, found)
    return found


def _paragraph(run: list[str], found: list[str]) -> None:
    lines = (_SPACES.sub(" ", line).strip() for line in "".join(run).split(_BREAK))
    text = "\n".join(line for line in lines if line)
    if text:
        found.append(text)


def _block(node: _Node) -> list[str]:
    tag = node.tag
    if tag in ("ul", "ol"):
        return [_list(node)] if any(_is_item(c) for c in node.children) else []
    if tag == "pre":
        code = _text(node)
        return ["```\n" + (code[:-1] if code.endswith("\n") else code) + "\n```"]
    if tag == "hr":
        return ["---"]
    if len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
        return ["#" * int(tag[1]) + " " + " ".join(_blocks(node.children))]
    if tag == "blockquote":
        inner = "\n\n".join(_blocks(node.children))
        return ["\n".join(f"> {line}".rstrip() for line in inner.split("\n"))] if inner else []
    if tag == "tr":
        cells = [" ".join(_blocks(c.children)) for c in node.children if isinstance(c, _Node)]
        return [" | ".join(cells)] if any(cells) else []
    return _blocks(node.children)


def _is_item(child: _Node | str) -> bool:
    return isinstance(child, _Node) and child.tag == "li"


def _list(node: _Node) -> str:
    start = int(node.attrs.get("start", "1") or 1) if node.tag == "ol" else 0
    items = []
    for number, item in enumerate(c for c in node.children if isinstance(c, _Node)):
        marker = f"{start + number}. " if node.tag == "ol" else "- "
        body = "\n".join(_blocks(item.children)) if item.tag == "li" else ""
        lines = body.split("\n") if body else [""]
        indent = " " * len(marker)
        items.append(
            "\n".join([marker + lines[0], *((indent + line) if line else "" for line in lines[1:])])
        )
    return "\n".join(items)


def _inline(node: _Node) -> str:
    tag = node.tag
    if tag == "br":
        return _BREAK
    if tag in _DROPPED:
        return ""
    if tag == "img":
        return f"![{node.attrs.get('alt', '')}]({node.attrs.get('src', '')})"
    if tag == "code":
        return f"`{_text(node)}`"
    inner = "".join(c if isinstance(c, str) else _inline(c) for c in node.children)
    if not inner.strip():
        return inner
    mark = {"b": "**", "strong": "**", "i": "*", "em": "*", "s": "~~", "del": "~~", "strike": "~~"}
    if tag in mark:
        return _wrapped(inner, mark[tag])
    if tag == "a" and "data-vss-mention" in node.attrs:
        return inner  # a mention: the person's name, as the service shows it
    if tag == "a" and node.attrs.get("href"):
        return f"[{inner.strip()}]({node.attrs['href']})"
    return inner


def _wrapped(inner: str, mark: str) -> str:
    """`**x**`, with the spaces around `x` outside the marks (where Markdown needs them)."""
    lead = inner[: len(inner) - len(inner.lstrip())]
    trail = inner[len(inner.rstrip()) :]
    return f"{lead}{mark}{inner.strip()}{mark}{trail}"


def _text(node: _Node) -> str:
    return "".join(
        c if isinstance(c, str) else ("\n" if c.tag == "br" else _text(c)) for c in node.children
    )


def _has_block(node: _Node) -> bool:
    return any(isinstance(c, _Node) and (c.tag in _BLOCKS or _has_block(c)) for c in node.children)
