"""Rendering OData list responses: $select projection, the envelope and the next link."""

from collections.abc import Mapping, Sequence
from typing import Any

from yarl import URL

from bot.odata import envelope
from bot.odata.model import EntitySet
from bot.odata.query import Query, parse_query
from bot.web.routing import Call


def query_of(call: Call, entity: EntitySet) -> Query:
    """The request's OData options checked against the entity set (`@odata.count` by default)."""
    return parse_query(call.request.query, entity, count_by_default=True)


def render_page(
    call: Call,
    entity: EntitySet,
    query: Query,
    rows: Sequence[dict[str, Any]],
    count: int | None,
    more: bool,
    last_read: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The collection of JSON-ready rows, cut to `$select`, with its count and next link
    (by keyset after `last_read` when the rows were read with their sort values)."""
    base = call.settings.public_url
    values = [envelope.select_fields(row, query.select) for row in rows]
    next_link = None
    if more:
        url = URL(base).join(call.request.rel_url)
        next_link = envelope.next_link(url, query, last_read)
    return envelope.collection(
        base_url=base, entity=entity, rows=values, count=count, next_link=next_link
    )
