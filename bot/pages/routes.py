"""The item page at `PUBLIC_URL/bugs/<_id>` and `/tasks/<_id>`, where the app's item links lead.

HTML for people, not part of the JSON API: installed beside the declared routes, so neither
OpenAPI nor the API's JSON errors apply to it. Its refusals are pages too: 401 with how to sign
in, and one 404 for an unknown id and for an item the caller may not read alike.
"""

from aiohttp import web

from bot.auth import service as auth
from bot.db.uow import unit_of_work
from bot.errors import Forbidden, NotFound, Unauthorized
from bot.ids import is_id
from bot.keys import CLOCK, LIST_CACHE, SESSIONS
from bot.pages import render
from bot.pages import service as pages
from bot.schemas import ItemKind
from bot.web.routing import credentials_of

HEADERS = {
    "Content-Security-Policy": render.CONTENT_SECURITY_POLICY,
    "Cache-Control": "no-store",  # one person's view of private data
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
}


def install_pages(app: web.Application) -> None:
    for kind in ItemKind:
        app.router.add_get(f"/{kind.plural}/{{item_id}}", _handler(kind))


def _handler(kind: ItemKind):  # noqa: ANN202 - an aiohttp handler
    async def item_page(request: web.Request) -> web.Response:
        return await _item_page(request, kind)

    return item_page


async def _item_page(request: web.Request, kind: ItemKind) -> web.Response:
    item_id = request.match_info["item_id"]
    if not is_id(item_id):
        return _page(render.not_found_html(), 404)
    app = request.app
    async with unit_of_work(app[SESSIONS], app[CLOCK], write=False, cache=app[LIST_CACHE]) as uow:
        try:
            uow.actor = await auth.authenticate(uow, secret=credentials_of(request))
        except Unauthorized:
            return _page(render.sign_in_html(kind), 401)
        try:
            shown = await pages.item_page(uow, kind=kind, item_id=item_id)
        except (NotFound, Forbidden):
            return _page(render.not_found_html(), 404)
    return _page(render.item_html(shown), 200)


def _page(html: str, status: int) -> web.Response:
    return web.Response(
        text=html, status=status, content_type="text/html", charset="utf-8", headers=HEADERS
    )
