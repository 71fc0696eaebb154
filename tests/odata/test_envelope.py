"""The collection envelope, $select projection and next links."""

from yarl import URL

from bot.odata.envelope import collection, next_link, select_fields
from bot.odata.query import parse_query
from tests.odata.probe import PROBES

BASE = "https://tracker.example.com"


def test_a_collection_with_count_and_next_link() -> None:
    body = collection(
        base_url=BASE + "/",
        entity=PROBES,
        rows=[{"_id": "a"}],
        count=7,
        next_link=BASE + "/odata/probes?$skip=1",
    )
    assert body == {
        "@odata.context": f"{BASE}/odata/$metadata#probes",
        "@odata.count": 7,
        "value": [{"_id": "a"}],
        "@odata.nextLink": BASE + "/odata/probes?$skip=1",
    }
    assert list(body) == ["@odata.context", "@odata.count", "value", "@odata.nextLink"]


def test_a_collection_without_count_or_more_rows_leaves_them_out() -> None:
    body = collection(base_url=BASE, entity=PROBES, rows=[], count=None, next_link=None)
    assert body == {"@odata.context": f"{BASE}/odata/$metadata#probes", "value": []}


def test_select_keeps_the_key_and_the_rows_own_order() -> None:
    row = {"_id": "a", "name": "n", "status": "New", "dueDate": None}
    select = parse_query({"$select": "dueDate,name"}, PROBES).select
    assert select_fields(row, select) == {"_id": "a", "name": "n", "dueDate": None}
    assert list(select_fields(row, select)) == ["_id", "name", "dueDate"]
    assert select_fields(row, None) is row


def test_next_link_advances_skip_by_the_effective_top() -> None:
    url = URL(BASE + "/odata/probes").with_query(
        {"$filter": "name eq 'a&b'", "$top": "5000", "$skip": "10", "x": "1"}
    )
    query = parse_query(url.query, PROBES)
    following = URL(next_link(url, query))
    assert following.path == "/odata/probes"
    assert dict(following.query) == {
        "$filter": "name eq 'a&b'",
        "$top": "1000",
        "$skip": "1010",
        "x": "1",
    }


def test_next_link_without_top_uses_the_default_page() -> None:
    query = parse_query({}, PROBES)
    assert URL(next_link(BASE + "/odata/probes", query)).query == {"$top": "100", "$skip": "100"}
