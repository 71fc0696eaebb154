"""A source's rich-text comment becomes the thread's safe HTML: paragraphs, lists, links, code
and mentions read as they did there, and nothing hostile passes (scripts, event handlers,
`javascript:` links, attributes smuggled into a link), from Azure DevOps' HTML or Jira's ADF."""

import pytest

from bot.sync.azure_devops.html_text import to_text as ado_text
from bot.sync.engine.comment_html import reply_html
from bot.sync.jira.adf import to_text as adf_text
from tests.sync.safe_html import unsafe

HOSTILE_HTML = [
    "<p>Hi <script>alert(1)</script>there</p>",
    '<a href="javascript:alert(1)">click</a>',
    '<a href="JaVaScRiPt:alert(1)">click</a>',
    '<a href="&#106;avascript:alert(1)">click</a>',
    '<a href=" javascript:alert(1)">click</a>',
    '<a href="data:text/html,<script>alert(1)</script>">click</a>',
    '<a href="vbscript:msgbox(1)">click</a>',
    '<p onclick="alert(1)">text</p><img src="x" onerror="alert(1)">',
    '<a href="https://ok.test/" onmouseover="alert(1)">fine</a>',
    '<a href="https://ok.test/&quot; onmouseover=&quot;alert(1)">quoted</a>',
    "<a href='https://ok.test/\" onmouseover=\"alert(1)'>quoted</a>",
    '<iframe src="https://evil.test"></iframe><style>p{color:red}</style>',
    "<svg onload=alert(1)><b>bold</b></svg>",
    "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>",
    '<img src="https://ok.test/a.png" alt="<script>alert(1)</script>">',
    "<pre><code>&lt;img src=x onerror=alert(1)&gt;</code></pre>",
    '<div style="background:url(javascript:alert(1))">styled</div>',
    "<form action='https://evil.test'><input name=x></form>",
]

HOSTILE_ADF = [
    {"type": "paragraph", "content": [{"type": "text", "text": "<script>alert(1)</script>"}]},
    {
        "type": "paragraph",
        "content": [
            {
                "type": "text",
                "text": "click",
                "marks": [{"type": "link", "attrs": {"href": "javascript:alert(1)"}}],
            }
        ],
    },
    {
        "type": "paragraph",
        "content": [
            {
                "type": "text",
                "text": "x",
                "marks": [
                    {"type": "link", "attrs": {"href": 'https://ok.test/" onclick="alert(1)'}}
                ],
            }
        ],
    },
    {"type": "codeBlock", "content": [{"type": "text", "text": "<img src=x onerror=alert(1)>"}]},
    {
        "type": "paragraph",
        "content": [{"type": "mention", "attrs": {"id": "1", "text": "@<b onclick=x>Eve</b>"}}],
    },
    {"type": "paragraph", "content": [{"type": "text", "text": "[a](javascript:alert(1))"}]},
]


@pytest.mark.parametrize("markup", HOSTILE_HTML)
def test_nothing_hostile_in_azure_devops_html_passes(markup: str) -> None:
    said = reply_html("Eve <i>", ado_text(markup))
    assert unsafe(said) == [], said
    assert "<script" not in said.lower() and "javascript:" not in _hrefs(said)


@pytest.mark.parametrize("node", HOSTILE_ADF)
def test_nothing_hostile_in_jira_adf_passes(node: dict[str, object]) -> None:
    said = reply_html("Eve", adf_text({"type": "doc", "version": 1, "content": [node]}))
    assert unsafe(said) == [], said
    assert "<script" not in said.lower() and "javascript:" not in _hrefs(said)


def test_the_authors_name_is_text() -> None:
    assert reply_html("<b>Eve</b>", "hi") == "<p>&lt;b&gt;Eve&lt;/b&gt;: hi</p>"


def test_azure_devops_html_reads_as_it_did_there() -> None:
    markup = (
        '<div><a href="#" data-vss-mention="version:2.0,1b2c">@Grace Hopper</a> see '
        '<a href="https://dev.azure.com/x/1">the build</a>:</div>'
        "<ul><li>first</li><li><b>second</b></li></ul>"
        "<p>Run <code>make test</code></p><pre>line 1\nline 2</pre>"
        '<p><a href="mailto:ops@contoso.test">mail ops</a></p>'
    )
    assert reply_html("Ada", ado_text(markup)) == (
        '<p>Ada: @Grace Hopper see <a href="https://dev.azure.com/x/1">the build</a>:</p>\n'
        "<ul>\n<li>first</li>\n<li><strong>second</strong></li>\n</ul>\n"
        "<p>Run <code>make test</code></p>\n"
        "<pre><code>line 1\nline 2\n</code></pre>\n"
        '<p><a href="mailto:ops@contoso.test">mail ops</a></p>'
    )


def test_jira_adf_reads_as_it_did_there() -> None:
    doc = {
        "type": "doc",
        "version": 1,
        "content": [
            {
                "type": "paragraph",
                "content": [
                    {"type": "mention", "attrs": {"id": "acct-2", "text": "@Grace Hopper"}},
                    {"type": "text", "text": " see "},
                    {
                        "type": "text",
                        "text": "the issue",
                        "marks": [{"type": "link", "attrs": {"href": "https://x.test/ABC-1"}}],
                    },
                ],
            },
            {
                "type": "orderedList",
                "content": [
                    {
                        "type": "listItem",
                        "content": [
                            {"type": "paragraph", "content": [{"type": "text", "text": "one"}]}
                        ],
                    },
                ],
            },
            {"type": "codeBlock", "content": [{"type": "text", "text": "x < 1"}]},
        ],
    }
    assert reply_html("Ada", adf_text(doc)) == (
        '<p>Ada: @Grace Hopper see <a href="https://x.test/ABC-1">the issue</a></p>\n'
        "<ol>\n<li>one</li>\n</ol>\n<pre><code>x &lt; 1\n</code></pre>"
    )


def _hrefs(html: str) -> str:
    """Every link target in `html`, joined (lowercased)."""
    return " ".join(part.split('"', 1)[0].lower() for part in html.split('href="')[1:])
