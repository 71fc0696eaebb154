"""An HTTP rule's body: the template rendered (JSON-escaped where the body is JSON) or the
event's payload."""

import json

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient

from bot.events import render
from tests.events.definitions.helpers import HOOK_URL
from tests.events.engine.helpers import add_rule, deliveries, process
from tests.factories import Factory, create_item

EVENT = {
    "eventId": "e1",
    "eventName": "Pager",
    "triggerType": "ITEM_CREATED",
    "actor": {"id": "u1", "displayName": 'Ada "the Countess"'},
    "item": {
        "name": 'Quote " and \\ backslash\nnew line',
        "internalId": 7,
        "dueDate": None,
        "bucket": ["a", "b"],
        "statusId": {"_id": "s1", "category": "Active"},
        "assignedTo": [{"displayName": "Grace Hopper"}],
        "enableBug": True,
    },
}


def action(body: str, *headers: tuple[str, str]) -> dict:
    return {
        "url": HOOK_URL,
        "method": "POST",
        "headers": [{"name": name, "value": value} for name, value in headers],
        "body": body,
    }


def test_a_json_template_writes_values_json_escaped_and_is_sent_as_json() -> None:
    template = '{"text": "{{ item.name }} by {{actor.displayName}}", "on": "{{event.triggerType}}"}'
    request = render.request(action(template), EVENT)
    assert json.loads(request["body"]) == {
        "text": 'Quote " and \\ backslash\nnew line by Ada "the Countess"',
        "on": "ITEM_CREATED",
    }
    assert request["headers"] == [{"name": "Content-Type", "value": "application/json"}]


def test_a_json_content_type_makes_the_template_json_even_where_it_does_not_parse() -> None:
    template = '{"n": {{item.internalId}}, "name": "{{item.name}}"}'
    request = render.request(action(template, ("content-type", "application/vnd.x+json")), EVENT)
    assert json.loads(request["body"]) == {"n": 7, "name": EVENT["item"]["name"]}
    assert request["headers"] == [{"name": "content-type", "value": "application/vnd.x+json"}]


def test_a_text_template_is_filled_as_written() -> None:
    request = render.request(action('Bug #{{item.internalId}}: "{{item.name}}"'), EVENT)
    assert request["body"] == f'Bug #7: "{EVENT["item"]["name"]}"'
    assert request["headers"] == [{"name": "Content-Type", "value": "text/plain; charset=utf-8"}]


def test_a_text_content_type_keeps_a_json_looking_template_as_text() -> None:
    template = '{"text": "{{item.name}}"}'
    request = render.request(action(template, ("Content-Type", "text/plain")), EVENT)
    assert request["body"] == '{"text": "' + EVENT["item"]["name"] + '"}'


@pytest.mark.parametrize(
    ("template", "body"),
    [
        ("[{{item.nothing}}|{{items.name}}|{{item}}|{{ }}|{{item.name.x}}]", "[||||]"),
        ("{{item.assignedTo.0.displayName}} {{item.assignedTo.5.displayName}}", "Grace Hopper "),
        ("{{item.statusId.category}}", "Active"),
        ("{{item.dueDate}}|{{item.enableBug}}|{{item.bucket}}", '|true|["a","b"]'),
    ],
)
def test_placeholders_follow_dotted_paths_and_name_nothing_as_empty(
    template: str, body: str
) -> None:
    assert render.render(template, EVENT, as_json=False) == body


def test_an_empty_template_sends_the_event_itself() -> None:
    request = render.request(action(""), EVENT)
    assert json.loads(request["body"]) == EVENT
    assert request["headers"] == [{"name": "Content-Type", "value": "application/json"}]


async def test_a_rules_template_is_rendered_when_an_item_matches(
    app: web.Application, client: TestClient, factory: Factory
) -> None:
    ada = await factory.member("Ada Lovelace")
    template = '{"text": "{{actor.displayName}} filed #{{item.internalId}} {{item.name}}"}'
    await add_rule(client, ada, action=action(template, ("X-Team", "platform")))
    bug = await create_item(client, ada, name='The "quoted" bug')

    await process(app)

    (delivery,) = await deliveries(factory)
    assert json.loads(delivery["request"]["body"]) == {
        "text": f'Ada Lovelace filed #{bug["internalId"]} The "quoted" bug'
    }
    assert delivery["request"]["headers"] == [
        {"name": "X-Team", "value": "platform"},
        {"name": "Content-Type", "value": "application/json"},
    ]
