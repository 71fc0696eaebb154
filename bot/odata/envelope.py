"""The `@odata.*` envelope of a collection response."""

from typing import Any

from yarl import URL

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
    """`{"@odata.context", "@odata.count"?, "value", "@odata.nextLink"?}` (api.md §2)."""
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


def next_link(url: URL | str, query: Query) -> str:
    """`url` (on the public base) asking for the next page: $skip advanced by the page's $top."""
    following = {"$top": str(query.top), "$skip": str(query.skip + query.top)}
    return str(URL(url).update_query(following))
