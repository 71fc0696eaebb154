"""The `@odata.*` envelope of a collection response."""

from collections.abc import Mapping
from typing import Any

from yarl import URL

from bot.odata import keyset
from bot.odata.model import EntitySet
from bot.odata.query import Query


def collection(
    *,
    base_url: str,
    entity: EntitySet,
    rows: list[dict[str, Any]],
    count: int | None,
    next_link: str | None,
) -> dict[str, Any]:
    """`{"@odata.context", "@odata.count"?, "value", "@odata.nextLink"?}` (docs/api.md, Lists)."""
    body: dict[str, Any] = {
        "@odata.context": f"{base_url.rstrip('/')}/odata/$metadata#{entity.name}"
    }
    if count is not None:
        body["@odata.count"] = count
    body["value"] = rows
    if next_link is not None:
        body["@odata.nextLink"] = next_link
    return body


def select_fields(row: dict[str, Any], select: tuple[str, ...] | None) -> dict[str, Any]:
    """`row` cut to the `$select`ed fields, in the row's own order (the key is among them)."""
    if select is None:
        return row
    return {name: value for name, value in row.items() if name in select}


def next_link(url: URL | str, query: Query, last_row: Mapping[str, Any] | None = None) -> str:
    """`url` (on the public base) asking for the next page: after `last_row` when it was read
    with its sort values (keyset), else with $skip advanced by the page's $top."""
    if last_row is not None and "_sort0" in last_row:
        token = keyset.encode(query.order, last_row)
        after_row = URL(url).without_query_params("$skip")
        return str(after_row.update_query({"$top": str(query.top), keyset.TOKEN: token}))
    skipping = {"$top": str(query.top), "$skip": str(query.skip + query.top)}
    return str(URL(url).update_query(skipping))
