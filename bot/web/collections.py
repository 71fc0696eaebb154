"""Rendering OData list responses: $select projection, the envelope and the next link."""

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from multidict import MultiDict
from yarl import URL

from bot.odata import envelope, keyset
from bot.odata.model import EntitySet
from bot.odata.query import Query, parse_query, with_cursor
from bot.web.routing import Call

# Parsed options kept: clients repeat the same few lists, and parsing and translating a $filter
# costs more than SQLite takes to run a page.
QUERIES_KEPT = 512


def query_of(call: Call, entity: EntitySet) -> Query:
    """The request's OData options checked against the entity set (`@odata.count` by default).
    The options are parsed once per entity set and text; a next link's cursor is read apart."""
    params = call.request.query
    options = tuple((name, value) for name, value in params.items() if name != keyset.TOKEN)
    query = _parsed(entity, options)
    token = params.get(keyset.TOKEN)
    return query if token is None else with_cursor(query, token)


@lru_cache(maxsize=QUERIES_KEPT)
def _parsed(entity: EntitySet, options: tuple[tuple[str, str], ...]) -> Query:
    """`entity` is one object per list (module constants, or `items.queries.entity_set`)."""
    return parse_query(MultiDict(options), entity, count_by_default=True)


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
