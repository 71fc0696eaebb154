"""Every field of a rule checked on save: each bad value a 400 naming the field, nothing stored,
on create and on PATCH alike."""

from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from tests.events.definitions.helpers import HOOK_URL, OMIT, PATH, create, rule, stored_rows
from tests.factories import Factory


def one(field: str, ops: str, *value: Any) -> dict[str, Any]:
    """`conditions` of one group holding one condition (`value` left out when not given)."""
    condition = {"field": field, "ops": ops} | ({"value": value[0]} if value else {})
    return {"conditions": [{"ops": "and", "conditions": [condition]}]}


def http(**action: Any) -> dict[str, Any]:
    return {"url": HOOK_URL, **action}


PRIORITY = {"field": "priority", "ops": "Is", "value": "High"}
FIRST = "conditions.0.conditions.0."  # where the first condition's fields are named

# (what is wrong, the fields sent, the field the error names)
REFUSED: list[tuple[str, dict[str, Any], str]] = [
    ("no name", {"eventName": OMIT}, "eventName"),
    ("an empty name", {"eventName": "  "}, "eventName"),
    ("a long name", {"eventName": "n" * 256}, "eventName"),
    ("a number for a name", {"eventName": 12}, "eventName"),
    ("an unknown kind", {"entityType": "story"}, "entityType"),
    ("no kind", {"entityType": OMIT}, "entityType"),
    ("an unknown trigger", {"triggerType": "ITEM_MOVED"}, "triggerType"),
    ("a trigger in lower case", {"triggerType": "item_created"}, "triggerType"),
    ("no trigger", {"triggerType": OMIT}, "triggerType"),
    ("a joiner that is neither", {"conditionsOps": "xor"}, "conditionsOps"),
    ("enable as text", {"enable": "yes"}, "enable"),
    ("conditions as text", {"conditions": "priority is high"}, "conditions"),
    (
        "a group's joiner",
        {"conditions": [{"ops": "nand", "conditions": [PRIORITY]}]},
        "conditions.0.ops",
    ),
    (
        "an empty group",
        {"conditions": [{"ops": "and", "conditions": []}]},
        "conditions.0.conditions",
    ),
    (
        "too many groups",
        {"conditions": [{"ops": "and", "conditions": [PRIORITY]}] * 21},
        "conditions",
    ),
    (
        "too many conditions",
        {"conditions": [{"ops": "or", "conditions": [PRIORITY] * 21}]},
        "conditions.0.conditions",
    ),
    ("an unknown field", one("title", "Is", "x"), FIRST + "field"),
    ("an unknown operator", one("name", "Equals", "x"), FIRST + "ops"),
    ("an operator in lower case", one("name", "is", "x"), FIRST + "ops"),
    ("GreaterThan on text", one("name", "GreaterThan", "x"), FIRST + "ops"),
    ("LessThan on a status", one("status", "LessThan", "x"), FIRST + "ops"),
    ("Contains on a category", one("statusCategory", "Contains", "Do"), FIRST + "ops"),
    ("StartsWith on a date", one("dueDate", "StartsWith", "2026"), FIRST + "ops"),
    ("Is on the assignees", one("assignedTo", "Is", "ada@contoso.test"), FIRST + "ops"),
    (
        "ChangedTo on the assignees",
        {"triggerType": "ITEM_UPDATED"} | one("assignedTo", "ChangedTo", "ada"),
        FIRST + "ops",
    ),
    ("Changed on a create", one("status", "Changed"), FIRST + "ops"),
    (
        "ChangedTo on an overdue",
        {"triggerType": "OVERDUE"} | one("status", "ChangedTo", "Done"),
        FIRST + "ops",
    ),
    ("severity of a task", {"entityType": "task"} | one("severity", "Is", "High"), FIRST + "field"),
    ("Is without a value", one("priority", "Is"), FIRST + "value"),
    ("Is with null", one("priority", "Is", None), FIRST + "value"),
    ("Contains with blanks", one("name", "Contains", "  "), FIRST + "value"),
    ("HasValue with a value", one("phase", "HasValue", "x"), FIRST + "value"),
    ("a number for a value", one("name", "Is", 5), FIRST + "value"),
    ("a long value", one("name", "Is", "v" * 1025), FIRST + "value"),
    ("a date in words", one("dueDate", "LessThan", "tomorrow"), FIRST + "value"),
    ("a date in the basic format", one("startDate", "Is", "20261201"), FIRST + "value"),
    ("no such day", one("dueDate", "Is", "2026-02-30"), FIRST + "value"),
    ("an unknown category", one("statusCategory", "Is", "Closed"), FIRST + "value"),
    (
        "the second condition",
        {
            "conditions": [
                {"ops": "and", "conditions": [PRIORITY, {"field": "body", "ops": "Contains"}]}
            ]
        },
        "conditions.0.conditions.1.value",
    ),
    ("an unknown action type", {"actionType": "Email"}, "actionType"),
    ("no action type", {"actionType": OMIT}, "actionType"),
    ("an HTTP action without settings", {"action": OMIT}, "action"),
    ("an HTTP action as null", {"action": None}, "action"),
    ("an action as text", {"action": HOOK_URL}, "action"),
    ("no url", {"action": {"method": "POST"}}, "action.url"),
    ("a url as a number", {"action": {"url": 7}}, "action.url"),
    ("an ftp url", {"action": {"url": "ftp://files.example.com/in"}}, "action.url"),
    ("a relative url", {"action": {"url": "/hooks/tracker"}}, "action.url"),
    ("a url without a host", {"action": {"url": "https:///path"}}, "action.url"),
    ("a url with user info", {"action": {"url": "https://user:pw@example.com/x"}}, "action.url"),
    ("a url with a user alone", {"action": {"url": "https://user@example.com/x"}}, "action.url"),
    ("a url with a space", {"action": {"url": "https://example.com/a b"}}, "action.url"),
    ("a url with a newline", {"action": {"url": "https://example.com/a\nb"}}, "action.url"),
    ("a long url", {"action": {"url": "https://example.com/" + "a" * 2048}}, "action.url"),
    ("a javascript url", {"action": {"url": "javascript:alert(1)"}}, "action.url"),
    ("an unknown method", {"action": http(method="TRACE")}, "action.method"),
    ("a method in lower case", {"action": http(method="post")}, "action.method"),
    ("headers as an object", {"action": http(headers={"X-A": "1"})}, "action.headers"),
    (
        "a header name with a space",
        {"action": http(headers=[{"name": "X A", "value": "1"}])},
        "action.headers.0.name",
    ),
    (
        "a header without a value",
        {"action": http(headers=[{"name": "X-A"}])},
        "action.headers.0.value",
    ),
    (
        "a header value on two lines",
        {"action": http(headers=[{"name": "X-A", "value": "1\r\nX-B: 2"}])},
        "action.headers.0.value",
    ),
    (
        "a header value with a vertical tab",
        {"action": http(headers=[{"name": "X-A", "value": "a\x0bb"}])},
        "action.headers.0.value",
    ),
    (
        "a header value with a delete character",
        {"action": http(headers=[{"name": "X-A", "value": "ab\x7f"}])},
        "action.headers.0.value",
    ),
    (
        "a header value with an escape character",
        {"action": http(headers=[{"name": "X-A", "value": "\x1b[31m"}])},
        "action.headers.0.value",
    ),
    (
        "a header name with a control character",
        {"action": http(headers=[{"name": "X-A\x7f", "value": "1"}])},
        "action.headers.0.name",
    ),
    (
        "the signature header",
        {"action": http(headers=[{"name": "Webhook-Signature", "value": "v1,x"}])},
        "action.headers.0.name",
    ),
    (
        "the event header",
        {"action": http(headers=[{"name": "x-svc-event", "value": "x"}])},
        "action.headers.0.name",
    ),
    (
        "too many headers",
        {"action": http(headers=[{"name": "X-A", "value": "1"}] * 21)},
        "action.headers",
    ),
    ("a body over 64 KiB", {"action": http(body="é" * 32769)}, "action.body"),
    ("a body as an object", {"action": http(body={"text": "x"})}, "action.body"),
    ("a Notification with settings", {"actionType": "Notification", "action": http()}, "action"),
    # Where the URL points, checked before saving (the allow-list is empty here).
    ("a loopback url", {"action": http(url="http://127.0.0.1:8080/hook")}, "action.url"),
    ("the metadata address", {"action": http(url="http://169.254.169.254/latest")}, "action.url"),
    ("a private address in decimal", {"action": http(url="http://167772161/")}, "action.url"),
    ("a name of this machine", {"action": http(url="http://localhost/hook")}, "action.url"),
]


def refused(cases: list[tuple[str, dict[str, Any], str]]) -> list[Any]:
    return [pytest.param(fields, field, id=what) for what, fields, field in cases]


async def assert_refused(response: Any, field: str) -> None:
    assert response.status == 400, await response.text()
    error = (await response.json())["error"]
    assert error.startswith(f"{field}: "), error


@pytest.mark.parametrize(("fields", "field"), refused(REFUSED))
async def test_create_refuses(
    client: TestClient, factory: Factory, fields: dict[str, Any], field: str
) -> None:
    ada = await factory.member()
    response = await client.post(PATH, json=rule(**fields), headers=ada.in_channel())
    await assert_refused(response, field)
    assert await stored_rows(factory) == []


# A PATCH sends the same fields; leaving a field out is no error there, and null is one.
PATCH_REFUSED = [case for case in REFUSED if OMIT not in case[1].values()] + [
    (f"{name} as null", {name: None}, name)
    for name in ("eventName", "entityType", "triggerType", "enable", "conditionsOps")
    + ("conditions", "actionType")
]
DEPENDS_ON_THE_RULE: list[tuple[str, dict[str, Any], str]] = [
    ("a task with a severity condition", {"entityType": "task"}, FIRST + "field"),
    (
        "a create with a Changed condition",
        {"triggerType": "ITEM_CREATED"},
        "conditions.0.conditions.1.ops",
    ),
    ("HTTP without its settings", {"actionType": "HTTP"}, "action"),
    ("a Notification keeping a url", {"action": http()}, "action"),
]


@pytest.mark.parametrize(("fields", "field"), refused(PATCH_REFUSED))
async def test_patch_refuses(
    client: TestClient, factory: Factory, fields: dict[str, Any], field: str
) -> None:
    ada = await factory.member()
    made = await create(client, ada)
    before = await stored_rows(factory)
    response = await client.patch(f"{PATH}({made['_id']})", json=fields, headers=ada.in_channel())
    await assert_refused(response, field)
    assert await stored_rows(factory) == before


@pytest.mark.parametrize(("fields", "field"), refused(DEPENDS_ON_THE_RULE))
async def test_patch_checks_the_rule_as_it_would_stand(
    client: TestClient, factory: Factory, fields: dict[str, Any], field: str
) -> None:
    """A PATCH that is fine alone but leaves the rule inconsistent is refused."""
    ada = await factory.member()
    made = await create(
        client,
        ada,
        triggerType="ITEM_UPDATED",
        conditions=[
            {
                "ops": "and",
                "conditions": [
                    {"field": "severity", "ops": "Is", "value": "Critical"},
                    {"field": "status", "ops": "Changed"},
                ],
            }
        ],
        actionType="Notification",
        action={},
    )
    before = await stored_rows(factory)
    response = await client.patch(f"{PATH}({made['_id']})", json=fields, headers=ada.in_channel())
    await assert_refused(response, field)
    assert await stored_rows(factory) == before


async def test_malformed_bodies_are_refused(client: TestClient, factory: Factory) -> None:
    ada = await factory.member()
    made = await create(client, ada)
    before = await stored_rows(factory)
    for method, url in (("POST", PATH), ("PATCH", f"{PATH}({made['_id']})")):
        broken = await client.request(
            method,
            url,
            data=b'{"eventName": ',
            headers={**ada.in_channel(), "Content-Type": "application/json"},
        )
        assert broken.status == 400 and "Malformed JSON" in (await broken.json())["error"]
        wrong_type = await client.request(method, url, data=b"{}", headers=ada.in_channel())
        assert wrong_type.status == 415
    assert await stored_rows(factory) == before
