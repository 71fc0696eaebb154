"""A description between Azure DevOps' HTML and the body's text: round trips keep paragraphs,
lists, links and code, both ways."""

import pytest

from bot.sync.azure_devops.html_text import to_html, to_text

BODY = """Steps to see it, on the [status page](https://status.example.com/a?b=1&c=2):

- open the board
- drag a card
  - to Done

1. first
2. second

Then run `make check`:

```
def f():
    return 1 < 2 and "x" != '<b>'
```"""


def test_a_body_survives_html_and_back() -> None:
    assert to_text(to_html(BODY)) == BODY


def test_the_html_keeps_the_structure() -> None:
    markup = to_html(BODY)
    assert '<a href="https://status.example.com/a?b=1&amp;c=2">status page</a>' in markup
    assert "<ul>" in markup and "<ol>" in markup and "<li>to Done</li>" in markup
    assert "<code>make check</code>" in markup
    assert "&lt;b&gt;" in markup  # code stays text, never markup


def test_plain_lines_stay_lines_and_specials_stay_as_written() -> None:
    text = "line one\nline two with a_b and 2 * 3 * 4\n\nnext paragraph"
    assert "<br" in to_html(text)
    assert to_text(to_html(text)) == text


def test_raw_html_in_a_body_is_text_not_markup() -> None:
    text = "<script>alert(1)</script> is shown as typed"
    markup = to_html(text)
    assert "<script>" not in markup
    assert to_text(markup) == text


def test_azure_devops_html_reads_as_text_and_goes_back_alike() -> None:
    markup = (
        "<div>Hello <b>world</b></div><div><br></div><div>Line&nbsp;two</div>"
        '<ol><li>a</li><li><a href="https://x.example/">b</a></li></ol><pre>code\n  here</pre>'
    )
    text = to_text(markup)
    assert text == "\n\n".join(
        [
            "Hello **world**",
            "Line two",
            "1. a\n2. [b](https://x.example/)",
            "```\ncode\n  here\n```",
        ]
    )
    again = to_html(text)
    assert "<strong>world</strong>" in again and '<a href="https://x.example/">b</a>' in again
    assert "<pre><code>code\n  here\n</code></pre>" in again
    assert to_text(again) == text


@pytest.mark.parametrize("empty", ["", "   ", None])
def test_empty_stays_empty(empty: str | None) -> None:
    assert to_text(empty) == ""
    assert to_html(empty or "") == ""


@pytest.mark.parametrize(
    ("markup", "text"),
    [
        ("<h2>Title</h2><p>x</p>", "## Title\n\nx"),
        ("<blockquote><p>said</p><p>twice</p></blockquote>", "> said\n>\n> twice"),
        ("<p><i>a</i> <em>b</em> <s>c</s> <strong> d </strong></p>", "*a* *b* ~~c~~ **d**"),
        ("<p>one<p>two", "one\n\ntwo"),  # unclosed paragraphs close themselves
        ("<ul><li>a<li>b</ul>", "- a\n- b"),
        ('<ol start="3"><li>c</li><li>d</li></ol>', "3. c\n4. d"),
        ("<p>keep</p><script>alert(1)</script><style>p{}</style>", "keep"),
        (
            '<p><img src="https://x.example/a.png" alt="shot"></p>',
            "![shot](https://x.example/a.png)",
        ),
        (
            "<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>",
            "a | b\n\nc | d",
        ),
        ("<p><a>no link</a> <a href=''>none</a></p>", "no link none"),
        ("<span>plain <br/>lines</span>", "plain\nlines"),
        ("<div><span><p>deep</p></span></div>", "deep"),
        ("just &amp; text", "just & text"),
    ],
)
def test_azure_devops_markup_reads_as_text(markup: str, text: str) -> None:
    assert to_text(markup) == text
