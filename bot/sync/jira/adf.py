"""A description or comment between Jira's Atlassian Document Format and an item's body text
(Markdown, as cards show it).

Markdown is read with markdown-it (CommonMark, a newline is a line break, as `html_text` reads
it for Azure DevOps) into ADF nodes; ADF is written back as the Markdown that reads into the
same nodes, so a round trip keeps paragraphs, headings, lists, links, code and emphasis either
way. A mention, an emoji or a status lozenge becomes its text ("@Ada Lovelace"); media and other
nodes with no text are left out.
"""

from collections.abc import Iterator
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

Node = dict[str, Any]

_PARSE = MarkdownIt("commonmark", {"html": False, "breaks": True}).enable("strikethrough")
_BLOCKS = {
    "paragraph": "paragraph",
    "bullet_list": "bulletList",
    "ordered_list": "orderedList",
    "list_item": "listItem",
    "blockquote": "blockquote",
    "heading": "heading",
}
_MARKS = {"strong": "strong", "em": "em", "s": "strike"}
_WRAP = {"strong": "**", "em": "*", "strike": "~~"}
_TEXT_OF = {"mention": "text", "emoji": "text", "status": "text", "inlineCard": "url"}


# Markdown → ADF


def to_adf(text: str) -> Node | None:
    """The body's text as an ADF document (None for an empty text: Jira's empty description)."""
    if not text.strip():
        return None
    root: Node = {"type": "doc", "version": 1, "content": []}
    stack = [root]
    for token in _PARSE.parse(text):
        kind = token.type.removesuffix("_open").removesuffix("_close")
        if token.type.endswith("_open") and kind in _BLOCKS:
            node: Node = {"type": _BLOCKS[kind], "content": []}
            if kind == "heading":
                node["attrs"] = {"level": int(token.tag[1:])}
            if kind == "ordered_list" and int(token.attrGet("start") or 1) != 1:
                node["attrs"] = {"order": int(token.attrGet("start") or 1)}
            stack[-1]["content"].append(node)
            stack.append(node)
        elif token.type.endswith("_close") and kind in _BLOCKS:
            stack.pop()
        elif token.type == "inline":
            stack[-1]["content"].extend(_inline(token.children or []))
        elif token.type in ("fence", "code_block"):
            code: Node = {"type": "codeBlock", "content": []}
            if token.info.strip():
                code["attrs"] = {"language": token.info.strip()}
            if token.content.rstrip("\n"):
                code["content"] = [{"type": "text", "text": token.content.rstrip("\n")}]
            stack[-1]["content"].append(code)
        elif token.type == "hr":
            stack[-1]["content"].append({"type": "rule"})
    return root


def _inline(tokens: list[Token]) -> list[Node]:
    nodes: list[Node] = []
    marks: list[Node] = []
    for token in tokens:
        kind = token.type.removesuffix("_open").removesuffix("_close")
        if token.type == "link_open":
            marks.append({"type": "link", "attrs": {"href": str(token.attrGet("href") or "")}})
        elif kind in _MARKS and token.type.endswith("_open"):
            marks.append({"type": _MARKS[kind]})
        elif token.type.endswith("_close") and (kind in _MARKS or kind == "link"):
            marks.pop()
        elif token.type in ("softbreak", "hardbreak"):
            nodes.append({"type": "hardBreak"})
        elif token.type in ("text", "code_inline") and token.content:
            node: Node = {"type": "text", "text": token.content}
            own = [*marks, {"type": "code"}] if token.type == "code_inline" else list(marks)
            if own:
                node["marks"] = own
            nodes.append(node)
    return nodes


# ADF → Markdown


def to_text(doc: Any) -> str:
    """An ADF document as the body's text ("" for none)."""
    if not isinstance(doc, dict):
        return ""
    return "\n\n".join(block for block in _blocks(doc.get("content") or []) if block)


def _blocks(nodes: list[Node], *, tight: bool = False) -> Iterator[str]:
    for node in nodes:
        kind, content = node.get("type"), node.get("content") or []
        attrs = node.get("attrs") or {}
        if kind == "paragraph":
            yield _inline_text(content)
        elif kind == "heading":
            yield "#" * int(attrs.get("level") or 1) + " " + _inline_text(content)
        elif kind in ("bulletList", "orderedList"):
            start = int(attrs.get("order") or 1)
            items = []
            for n, item in enumerate(content):
                marker = "- " if kind == "bulletList" else f"{start + n}. "
                inner = "\n".join(_blocks(item.get("content") or [], tight=True))
                items.append(marker + inner.replace("\n", "\n" + " " * len(marker)))
            yield "\n".join(items)
        elif kind == "codeBlock":
            code = "".join(str(t.get("text") or "") for t in content)
            fence = "````" if "```" in code else "```"
            yield f"{fence}{attrs.get('language') or ''}\n{code}\n{fence}"
        elif kind == "blockquote":
            quoted = ("\n" if tight else "\n\n").join(_blocks(content))
            yield "\n".join("> " + line if line else ">" for line in quoted.split("\n"))
        elif kind == "rule":
            yield "---"
        elif content:  # panels, tables, expands: their text
            yield ("\n" if tight else "\n\n").join(b for b in _blocks(content) if b)
        else:
            yield _inline_text([node])


def _inline_text(nodes: list[Node]) -> str:
    """Inline nodes as Markdown: runs under one link are written as one `[…](href)`."""
    out: list[str] = []
    run: list[Node] = []
    href: str | None = None
    for node in [*nodes, {"type": "end"}]:
        link = next((m for m in node.get("marks") or [] if m.get("type") == "link"), None)
        target = str((link.get("attrs") or {}).get("href") or "") if link else None
        if target != href or node["type"] == "end":
            text = "".join(_span(n) for n in run)
            out.append(f"[{text}]({href})" if href is not None else text)
            run, href = [], target
        run.append(node)
    return "".join(out)


def _span(node: Node) -> str:
    kind = node.get("type")
    if kind == "hardBreak":
        return "\n"
    if kind != "text":
        return str((node.get("attrs") or {}).get(_TEXT_OF.get(str(kind), "text")) or "")
    text = str(node.get("text") or "")
    names = [str(m.get("type")) for m in node.get("marks") or []]
    if "code" in names:
        tick = "``" if "`" in text else "`"
        text = f"{tick}{text}{tick}"
    for name in ("em", "strong", "strike"):
        if name in names:
            text = f"{_WRAP[name]}{text}{_WRAP[name]}"
    return text
