"""The OpenAPI 3.0 checker catches what Jira's description does not allow: a path no template
matches, a method the path lacks, an undeclared or mistyped query parameter, a request body the
operation does not take, and a successful answer that breaks its schema."""

from typing import Any

from bot.sync.standins.azure_devops import Exchange
from tests.vendor_apis.openapi import jira

ISSUE = "/rest/api/3/issue/FAB-1"
BEAN = {"id": "10001", "key": "FAB-1", "fields": {}}


def exchange(
    method: str = "GET",
    path: str = ISSUE,
    *,
    query: dict[str, str] | None = None,
    body: Any = None,
    status: int = 200,
    answer: Any = BEAN,
) -> Exchange:
    headers = {"Content-Type": "application/json"} if body is not None else {}
    return Exchange(method, path, query or {}, headers, body, status, {}, answer)


def test_what_the_connector_sends_conforms() -> None:
    assert jira().check(exchange()) == []
    search = {"jql": "project = FAB", "maxResults": 100, "fields": ["summary"]}
    answer = {"issues": [], "isLast": True}
    assert (
        jira().check(exchange("POST", "/rest/api/3/search/jql", body=search, answer=answer)) == []
    )
    put = {"fields": {"summary": "A"}}
    assert jira().check(exchange("PUT", ISSUE, body=put, status=204, answer=None)) == []


def test_an_unknown_path_or_method_is_caught() -> None:
    assert "no path template" in jira().check(exchange(path="/rest/api/3/nowhere/1/x/y"))[0]
    assert "allows only" in jira().check(exchange("PATCH"))[0]


def test_an_undeclared_or_mistyped_query_parameter_is_caught() -> None:
    assert "not in the description" in jira().check(exchange(query={"jql": "x"}))[0]
    assert "not a boolean" in jira().check(exchange(query={"updateHistory": "yes"}))[0]


def test_a_body_against_its_schema_is_checked() -> None:
    bad = {"jql": "project = FAB", "pageToken": "x"}
    found = jira().check(exchange("POST", "/rest/api/3/search/jql", body=bad, answer={}))
    assert any("pageToken" in p for p in found)
    answer = {"issues": [], "isLast": "yes"}
    found = jira().check(exchange("POST", "/rest/api/3/search/jql", body={}, answer=answer))
    assert any("isLast" in p for p in found)
    assert any(
        "no body" in p or "declares no request body" in p
        for p in jira().check(exchange(body={"a": 1}))
    )
