"""The tabs' pages and their bundle, from the app's own origin.

Each page is the same small shell; the bundle reads which page it is from `data-page` and draws
it through the JSON API. The Content-Security-Policy lets Teams frame the pages and lets them load
nothing from any other origin.
"""

from pathlib import Path

from aiohttp import web

BUILT = Path(__file__).parent / "dist"
ASSETS = {"tabs.js": "text/javascript", "tabs.css": "text/css"}
PAGES = {"channel": "Tracker", "me": "My items", "config": "Set up the tracker tab"}

# Teams' web, desktop and mobile clients, Outlook and the Microsoft 365 app frame tabs from these.
TEAMS_ORIGINS = (
    "https://teams.microsoft.com https://*.teams.microsoft.com https://teams.live.com "
    "https://*.teams.microsoft.us https://*.office.com https://*.office365.com "
    "https://*.microsoft365.com https://*.cloud.microsoft https://outlook.office.com "
    "https://outlook.office365.com https://*.skype.com"
)
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self' data:; font-src 'self'; "
    f"frame-ancestors 'self' {TEAMS_ORIGINS}; base-uri 'none'; form-action 'none'"
)
HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
}
NOT_BUILT = "The tabs are not built: run `make run` (it needs Node 18 or later)."


def install_tabs(app: web.Application) -> None:
    for page in PAGES:
        app.router.add_get(f"/tabs/{page}", _page_handler(page))
    app.router.add_get("/tabs/assets/{name}", _asset)


def _page_handler(page: str):  # noqa: ANN202 - an aiohttp handler
    async def tab_page(_request: web.Request) -> web.Response:
        return web.Response(
            text=_shell(page), content_type="text/html", charset="utf-8", headers=HEADERS
        )

    return tab_page


def _shell(page: str) -> str:
    """The page before its script runs: its title, a loading note, and the live region the
    script announces moves in (present from the start, so screen readers watch it)."""
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{PAGES[page]}</title>
<link rel="stylesheet" href="/tabs/assets/tabs.css">
<script type="module" src="/tabs/assets/tabs.js"></script>
</head>
<body data-page="{page}">
<main id="app" aria-busy="true"><p>Loading…</p></main>
<div id="announce" class="visually-hidden" role="status" aria-live="polite"></div>
</body>
</html>
"""


async def _asset(request: web.Request) -> web.StreamResponse:
    name = request.match_info["name"]
    if name not in ASSETS:
        raise web.HTTPNotFound(text=f"No such resource: {request.path}")
    path = BUILT / name
    if not path.is_file():
        return web.Response(status=503, text=NOT_BUILT, headers=HEADERS)
    return web.Response(
        body=path.read_bytes(),
        content_type=ASSETS[name],
        charset="utf-8",
        headers={**HEADERS, "Cache-Control": "no-cache"},
    )
