"""Descriptions and comments between the body's text and Jira's Atlassian Document Format:
paragraphs, lists, links, code and emphasis survive a round trip either way; mentions arrive as
names; an empty text is Jira's empty description."""

import pytest

from bot.sync.jira.adf import to_adf, to_text

TEXTS = [
    "Plain text",
    "Intro with **bold**, *em*, ~~gone~~ and `code`.",
    "See [the page](https://x.example/a?b=1) and [a **bold** link](https://y.example).",
    "- one\n- two\n- three",
    "1. first\n2. second",
    "3. third\n4. fourth",
    "- outer\n  - inner\n- next",
    '```python\nprint("hi")\n\nx = 1\n```',
    "> quoted\n> still",
    "# Title\n\n## Part\n\nBody",
    "Line one\nline two",
    "Before\n\n---\n\nAfter",
]


@pytest.mark.parametrize("text", TEXTS)
def test_a_text_comes_back_from_adf_as_it_went(text: str) -> None:
    adf = to_adf(text)
    assert adf is not None and adf["type"] == "doc" and adf["version"] == 1
    assert to_text(adf) == text
    assert to_adf(to_text(adf)) == adf


def test_adf_written_in_jira_reads_as_markdown() -> None:
    doc = {
        "type": "doc",
        "version": 1,
        "content": [
            {
                "type": "paragraph",
                "content": [
                    {"type": "text", "text": "Ping "},
                    {"type": "mention", "attrs": {"id": "5b10", "text": "@Ada Lovelace"}},
                    {"type": "text", "text": " about "},
                    {"type": "text", "text": "this", "marks": [{"type": "strong"}]},
                    {"type": "hardBreak"},
                    {"type": "emoji", "attrs": {"shortName": ":smile:", "text": "😄"}},
                ],
            },
            {
                "type": "orderedList",
                "attrs": {"order": 1},
                "content": [
                    {
                        "type": "listItem",
                        "content": [
                            {"type": "paragraph", "content": [{"type": "text", "text": "a"}]}
                        ],
                    }
                ],
            },
            {"type": "mediaSingle", "content": [{"type": "media", "attrs": {"id": "x"}}]},
            {
                "type": "codeBlock",
                "attrs": {"language": "sql"},
                "content": [{"type": "text", "text": "select 1"}],
            },
        ],
    }
    assert to_text(doc) == "Ping @Ada Lovelace about **this**\n😄\n\n1. a\n\n```sql\nselect 1\n```"


def test_empty_is_none_both_ways() -> None:
    assert to_adf("  \n") is None
    assert to_text(None) == ""
    assert to_text({"type": "doc", "version": 1, "content": []}) == ""
