"""Routes of an item's discussion: start it, read it (all, or the replies), comment in it.
Bugs and tasks alike; starting and commenting wait for Teams outside any transaction (`apart`)."""

from typing import Any

from yarl import URL

from bot.discussions import pages, shapes
from bot.discussions.queries import (
    COMMENT_OPTIONS,
    COMMENTS,
    MESSAGE_OPTIONS,
    MESSAGES,
    list_query,
)
from bot.discussions.schemas import CommentIn, MessageOut, MessagePage
from bot.keys import DISCUSSIONS
from bot.odata import envelope
from bot.schemas import ItemKind
from bot.web.routing import Access, Call, RouteTable, named

routes = RouteTable(tag="discussions")
PAGING = (("$top", "Page size: 100 by default, at most 1000"), ("$skip", "Messages to skip"))


def _declare(kind: ItemKind) -> None:
    label, plural = kind.value, kind.plural
    messages_path = f"/api/{plural}/{{id}}/messages"
    comments_path = f"/api/{plural}/{{id}}/comments"

    async def start(call: Call) -> dict[str, Any]:
        started = await call.request.app[DISCUSSIONS].start(
            actor=call.actor, channel=call.channel, kind=kind, item_id=call.request.match_info["id"]
        )
        return started.message

    async def list_messages(call: Call) -> dict[str, Any]:
        query = list_query(call.request.query, MESSAGES, MESSAGE_OPTIONS)
        return await _page(call, kind, query, "messages", replies_only=False)

    async def list_comments(call: Call) -> dict[str, Any]:
        query = list_query(call.request.query, COMMENTS, COMMENT_OPTIONS)
        return await _page(call, kind, query, "comments", replies_only=True)

    async def comment(call: Call) -> dict[str, Any]:
        return await call.request.app[DISCUSSIONS].comment(
            actor=call.actor,
            channel=call.channel,
            kind=kind,
            item_id=call.request.match_info["id"],
            content=call.body.content,
        )

    channel = Access.CHANNEL
    routes.route(
        "POST",
        messages_path,
        access=channel,
        response=MessageOut,
        errors=(404, 409, 502),
        apart=True,
        summary=f"Start the {label}'s discussion: a thread in its channel, its card as the root "
        "(500 `Discussion has been initialized.` when it has one)",
    )(named(f"start_{label}_discussion", start))
    routes.route(
        "GET",
        messages_path,
        access=channel,
        response=MessagePage,
        errors=(404,),
        query=(*PAGING, ("$orderby", "`createdDateTime` or `createdDateTime desc`")),
        summary=f"The {label}'s discussion: its root message and the replies, oldest first",
    )(named(f"list_{label}_messages", list_messages))
    routes.route(
        "GET",
        comments_path,
        access=channel,
        response=MessagePage,
        errors=(404,),
        query=(*PAGING, ("$count", "Whether to include `@odata.count`")),
        summary=f"The replies in the {label}'s discussion, oldest first",
    )(named(f"list_{label}_comments", list_comments))
    routes.route(
        "POST",
        comments_path,
        access=channel,
        body=CommentIn,
        status=201,
        response=MessageOut,
        errors=(404, 502),
        apart=True,
        summary=f'Reply in the {label}\'s discussion through the bot, as "<your name>: …"',
    )(named(f"comment_on_{label}", comment))


async def _page(
    call: Call, kind: ItemKind, query: Any, name: str, *, replies_only: bool
) -> dict[str, Any]:
    listing = await pages.list_messages(
        call.uow,
        kind=kind,
        item_id=call.request.match_info["id"],
        query=query,
        replies_only=replies_only,
    )
    base = call.settings.public_url
    body: dict[str, Any] = {"@odata.context": shapes.context(base, name)}
    if listing.count is not None:
        body["@odata.count"] = listing.count
    body["value"] = [
        shapes.message(row, listing.place, root_id=listing.root_id) for row in listing.rows
    ]
    if listing.more:
        body["@odata.nextLink"] = envelope.next_link(URL(base).join(call.request.rel_url), query)
    return body


for _kind in ItemKind:
    _declare(_kind)
