"""The pages as HTML: every value the app did not write itself goes through `html.escape`, and
the Content-Security-Policy runs no script at all and only the page's own style, so a title full
of markup shows as text and nothing in it can run."""

import base64
import hashlib
from collections.abc import Sequence
from datetime import datetime
from html import escape

from bot.items.schemas import BugDetails
from bot.pages.service import ItemPage
from bot.schemas import ItemKind

NOBODY = "Nobody"
NO_DUE_DATE = "No due date"
NOT_SET = "Not set"
NO_DESCRIPTION = "No description."

STYLE = """
body { font: 15px/1.5 system-ui, "Segoe UI", sans-serif; color: #242424; background: #f5f5f5;
  margin: 0; }
main { max-width: 46rem; margin: 2rem auto; padding: 1.5rem 2rem; background: #fff;
  border-radius: 8px; box-shadow: 0 1px 3px rgba(0, 0, 0, .12); }
.where { color: #616161; margin: 0; }
h1 { font-size: 1.5rem; margin: .25rem 0 1rem; overflow-wrap: anywhere; }
.description { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0 0 1.25rem; }
.none { color: #616161; font-style: italic; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .35rem 1.25rem; margin: 0; }
dt { color: #616161; }
dd { margin: 0; overflow-wrap: anywhere; }
.badge { display: inline-block; padding: 0 .5rem; border-radius: 999px; background: #ebebf5;
  color: #4f52b2; font-weight: 600; }
a.discussion { display: inline-block; margin-top: 1.5rem; padding: .4rem 1rem; border-radius: 4px;
  background: #5b5fc7; color: #fff; text-decoration: none; font-weight: 600; }
code { background: #f0f0f0; padding: 0 .25rem; border-radius: 3px; }
"""
# Only this exact style is allowed; no script from anywhere, nothing fetched, no form.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; "
    f"style-src 'sha256-{base64.b64encode(hashlib.sha256(STYLE.encode()).digest()).decode()}'; "
    "base-uri 'none'; form-action 'none'"
)


def item_html(page: ItemPage) -> str:
    """An item, read-only: number, title, description, its fields, who made and changed it
    when, and the link to its discussion once it has one."""
    item = page.item
    label = f"{page.kind.type_label} #{item.internal_id}"
    where = f"{label} · {page.where.team_name} › {page.where.channel_name}"
    facts = [
        ("Status", _badge(item.status)),
        ("Priority", _badge(item.priority)),
    ]
    if isinstance(item, BugDetails):
        facts.append(("Severity", _text(item.severity) if item.severity else _none(NOT_SET)))
    facts += [
        ("Assigned to", _names([user.display_name for user in item.assigned_to])),
        ("Due date", _date(item.due_date) if item.due_date else _none(NO_DUE_DATE)),
        ("Created", _by(item.created_at, item.created_by.name if item.created_by else None)),
        (
            "Updated",
            _by(item.updated_at, item.updated_by.display_name if item.updated_by else None),
        ),
    ]
    rows = "".join(f"<dt>{escape(name)}</dt><dd>{value}</dd>" for name, value in facts)
    description = (
        f'<p class="description">{_text(item.body)}</p>'
        if item.body and item.body.strip()
        else f'<p class="description">{_none(NO_DESCRIPTION)}</p>'
    )
    discussion = (
        f'<a class="discussion" href="{escape(page.discussion_url)}">'
        "Open the discussion in Teams</a>"
        if page.discussion_url
        else ""
    )
    body = (
        f'<p class="where">{_text(where)}</p><h1>{_text(item.name)}</h1>'
        f"{description}<dl>{rows}</dl>{discussion}"
    )
    return _document(f"{label} {item.name}", body)


def sign_in_html(kind: ItemKind) -> str:
    """For a visitor without a session: how to get one, the way the API's callers do."""
    body = (
        f"<h1>Sign in to see this {kind.value}</h1>"
        f"<p>{kind.type_label}s are shown only to members of the team whose channel holds them, "
        "signed in with the same session as the tracker's API: the <code>graphNodeCookie</code> "
        "cookie.</p>"
        "<p>Signing in with your Teams account (Teams single sign-on, which the app's Teams "
        "pages use: <code>POST /api/auth/teams-sso</code>) sets that cookie. An "
        "administrator can also open a session for you with "
        "<code>python -m bot admin session create --user you@example.com</code>; set the "
        "cookie it prints as <code>graphNodeCookie</code> for this site.</p>"
        "<p>Then reload this page.</p>"
    )
    return _document("Sign in", body)


def not_found_html() -> str:
    """The same page for an unknown id and for an item the caller may not read."""
    body = (
        "<h1>Nothing here</h1>"
        "<p>There is no bug or task at this address that you may see. It may have been "
        "deleted, or it belongs to a team you are not a member of.</p>"
    )
    return _document("Not found", body)


def _document(title: str, body: str) -> str:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_text(title)}</title><style>{STYLE}</style></head>"
        f"<body><main>{body}</main></body></html>"
    )


def _text(value: str) -> str:
    return escape(value, quote=True)


def _none(words: str) -> str:
    return f'<span class="none">{escape(words)}</span>'


def _badge(value: str) -> str:
    return f'<span class="badge">{_text(value)}</span>'


def _names(names: Sequence[str]) -> str:
    return _text(", ".join(names)) if names else _none(NOBODY)


def _date(at: datetime) -> str:
    return f'<time datetime="{at.date().isoformat()}">{at.day} {at:%b %Y}</time>'


def _by(at: datetime, who: str | None) -> str:
    when = f'<time datetime="{at.isoformat()}">{at.day} {at:%b %Y, %H:%M} UTC</time>'
    return f"{when} by {_text(who)}" if who else when
