"""The conformance checker catches what the vendor's description does not allow: a path no
template matches, a method the path lacks, a missing or undeclared query parameter, a request
body or content type the operation does not take, and a response that breaks its schema."""

from typing import Any

import pytest

from bot.sync.standins.azure_devops import Exchange
from tests.vendor_apis.conformance import azure_devops

ITEM = "/contoso/Fabrikam/_apis/wit/workitems/7"
WORK_ITEM = {"id": 7, "rev": 2, "fields": {"System.Title": "A"}, "url": "http://x/7"}


def exchange(
    method: str = "GET",
    path: str = ITEM,
    *,
    query: dict[str, str] | None = None,
    body: Any = None,
    content_type: str = "application/json",
    status: int = 200,
    answer: Any = None,
) -> Exchange:
    return Exchange(
        method,
        path,
        {"api-version": "7.1"} if query is None else query,
        {"Content-Type": content_type} if body is not None else {},
        body,
        status,
        {},
        WORK_ITEM if answer is None and status == 200 else answer,
    )


def problems(x: Exchange) -> list[str]:
    return azure_devops().check(x)


def test_a_conforming_exchange_passes() -> None:
    assert problems(exchange()) == []
    patch = [{"op": "test", "path": "/rev", "value": 2}]
    assert problems(exchange("PATCH", body=patch, content_type="application/json-patch+json")) == []


def test_a_path_no_template_matches_is_caught() -> None:
    # WIQL without the team segment the description's template has.
    [problem] = problems(exchange("POST", "/contoso/Fabrikam/_apis/wit/wiql", body={"query": "q"}))
    assert "no path template" in problem
    [problem] = problems(exchange(path="/contoso/Fabrikam/_apis/wit/workitem/7"))
    assert "no path template" in problem


def test_a_method_the_path_lacks_is_caught() -> None:
    [problem] = problems(exchange("PUT", body=[], content_type="application/json-patch+json"))
    assert "allows only ['DELETE', 'GET', 'PATCH']" in problem


def test_a_path_parameter_of_the_wrong_type_is_caught() -> None:
    found = problems(exchange(path="/contoso/Fabrikam/_apis/wit/workitems/seven"))
    assert any("id='seven'" in p for p in found)


@pytest.mark.parametrize(
    ("query", "says"),
    [
        ({}, "required query parameter api-version is missing"),
        ({"api-version": "7.0"}, "api-version '7.0', the description says '7.1'"),
        ({"api-version": "7.1", "expand": "all"}, "query parameter expand is not in"),
        ({"api-version": "7.1", "$expand": "everything"}, "is not one of"),
    ],
)
def test_query_parameters_the_description_does_not_allow_are_caught(
    query: dict[str, str], says: str
) -> None:
    assert any(says in p for p in problems(exchange(query=query)))


def test_comments_need_ids_or_the_list_parameters_and_the_preview_version() -> None:
    path = "/contoso/Fabrikam/_apis/wit/workItems/7/comments"
    listing = {"totalCount": 0, "count": 0, "comments": []}
    ok = exchange(path=path, query={"api-version": "7.1-preview.4", "$top": "5"}, answer=listing)
    assert problems(ok) == []
    wrong = exchange(path=path, query={"api-version": "7.1"}, answer=listing)
    assert any("7.1-preview.4" in p for p in problems(wrong))


def test_a_comment_is_edited_and_deleted_only_as_the_description_says() -> None:
    path = "/contoso/Fabrikam/_apis/wit/workItems/7/comments/3"
    preview = {"api-version": "7.1-preview.4"}
    comment = {"id": 3, "workItemId": 7, "version": 2, "text": "<p>x</p>"}
    edit = exchange("PATCH", path, query=preview, body={"text": "<p>x</p>"}, answer=comment)
    assert problems(edit) == []
    deleted = Exchange("DELETE", path, preview, {}, None, 200, {}, None)
    assert problems(deleted) == []
    unversioned = Exchange("DELETE", path, {"api-version": "7.1"}, {}, None, 200, {}, None)
    assert any("7.1-preview.4" in p for p in problems(unversioned))
    assert problems(exchange("PUT", path, query=preview, body={"text": "x"}))  # no such method
    wrong = exchange("PATCH", path, query=preview, body={"text": 5}, answer=comment)
    assert any("not of type 'string'" in p for p in problems(wrong))


@pytest.mark.parametrize(
    ("body", "content_type", "says"),
    [
        ({"op": "add", "path": "/fields/System.Title"}, "application/json-patch+json", "array"),
        ([{"op": "frobnicate", "path": "/rev"}], "application/json-patch+json", "frobnicate"),
        ([{"op": "add", "path": 3}], "application/json-patch+json", "not of type 'string'"),
        ([{"op": "add", "path": "/fields/System.Title"}], "application/json", "Content-Type"),
    ],
)
def test_a_request_body_or_type_the_operation_does_not_take_is_caught(
    body: Any, content_type: str, says: str
) -> None:
    found = problems(exchange("PATCH", body=body, content_type=content_type))
    assert any(says in p for p in found), found


def test_a_wiql_body_of_the_wrong_shape_is_caught() -> None:
    path = "/contoso/Fabrikam/Fabrikam Team/_apis/wit/wiql"
    answer = {"workItems": []}
    assert problems(exchange("POST", path, body={"query": "q"}, answer=answer)) == []
    found = problems(exchange("POST", path, body={"query": ["q"]}, answer=answer))
    assert any("request body at query" in p for p in found), found
    assert any("no body" in p for p in problems(exchange("POST", path, answer=answer)))


@pytest.mark.parametrize(
    ("answer", "says"),
    [
        ({**WORK_ITEM, "rev": "2"}, "at rev: '2' is not of type 'integer'"),
        ({**WORK_ITEM, "fields": ["System.Title"]}, "at fields"),
        ({**WORK_ITEM, "url": 7}, "at url"),
    ],
)
def test_a_response_that_breaks_its_schema_is_caught(answer: Any, says: str) -> None:
    found = problems(exchange(answer=answer))
    assert any(says in p for p in found), found


def test_a_list_must_come_wrapped_with_its_count() -> None:
    path = "/contoso/Fabrikam/_apis/wit/workitemsbatch"

    def batch(answer: Any) -> list[str]:
        return problems(exchange("POST", path, body={"ids": [7]}, answer=answer))

    assert batch({"count": 1, "value": [WORK_ITEM]}) == []
    [bare] = batch([WORK_ITEM])
    assert "wrapped as {count, value}" in bare
    [miscounted] = batch({"count": 2, "value": [WORK_ITEM]})
    assert "count 2 but 1 values" in miscounted
    [null] = batch({"count": 1, "value": [None]})
    assert "None is not of type 'object'" in null


def test_a_date_that_is_not_a_date_is_caught() -> None:
    path = "/contoso/Fabrikam/_apis/wit/workItems/7/comments"
    query = {"api-version": "7.1-preview.4"}
    answer = {"id": 1, "text": "x", "createdDate": "yesterday"}
    found = problems(exchange("POST", path, query=query, body={"text": "x"}, answer=answer))
    assert any("createdDate" in p and "date-time" in p for p in found), found


def test_a_status_the_operation_does_not_declare_is_caught() -> None:
    [problem] = problems(exchange("DELETE", status=204, answer=None))
    assert "status 204 is not among ['200']" in problem


def test_an_error_answer_is_not_held_to_the_success_schema() -> None:
    assert problems(exchange(status=404, answer={"message": "TF401232"})) == []


def test_a_hook_call_is_checked_against_the_published_event() -> None:
    good = {"eventType": "workitem.updated", "resource": {"workItemId": 7}, "id": "x"}
    assert azure_devops().check_event({**good, "id": "00000000-0000-0000-0000-000000000001"}) == []
    [problem] = azure_devops().check_event({**good, "eventType": 5, "id": "1"})
    assert "eventType" in problem
