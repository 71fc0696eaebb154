"""Event rules made and read through the API, as a client would."""

import json
from typing import Any

from aiohttp.test_utils import TestClient
from sqlalchemy import select

from bot.db.tables import EventDefinition
from tests.factories import Factory, Member

# A literal global address: its host needs no lookup, wherever the tests run.
HOOK_URL = "https://93.184.215.14/hooks/tracker"
PATH = "/odata/eventDefinitions"
OMIT = object()  # as a field's value in `rule(...)`: leave the field out


def rule(**fields: Any) -> dict[str, Any]:
    """A valid HTTP rule on created bugs, with one condition group; `fields` override."""
    body: dict[str, Any] = {
        "eventName": "Urgent bugs to the pager",
        "entityType": "bug",
        "enable": True,
        "triggerType": "ITEM_CREATED",
        "conditionsOps": "and",
        "conditions": [
            {"ops": "or", "conditions": [{"field": "priority", "ops": "Is", "value": "Urgent"}]}
        ],
        "actionType": "HTTP",
        "action": {
            "url": HOOK_URL,
            "method": "POST",
            "headers": [{"name": "X-Team", "value": "platform"}],
            "body": '{"text": "{{item.name}}"}',
        },
    }
    body.update(fields)
    return {name: value for name, value in body.items() if value is not OMIT}


async def create(client: TestClient, member: Member, **fields: Any) -> dict[str, Any]:
    response = await client.post(PATH, json=rule(**fields), headers=member.in_channel())
    assert response.status == 201, await response.text()
    return dict(await response.json())


async def read(client: TestClient, member: Member, definition_id: str) -> dict[str, Any]:
    response = await client.get(f"{PATH}('{definition_id}')", headers=member.in_channel())
    assert response.status == 200, await response.text()
    return dict(await response.json())


async def stored_rows(factory: Factory) -> list[dict[str, Any]]:
    """Every definition row, secrets included, as plain values (to compare before and after)."""
    async with factory.work(write=False) as uow:
        rows = await uow.rows(select(EventDefinition).order_by(EventDefinition.id))
    return [json.loads(json.dumps(dict(row), default=str)) for row in rows]


async def stored(factory: Factory, definition_id: str) -> EventDefinition:
    async with factory.work(write=False) as uow:
        definition = await uow.get(EventDefinition, definition_id)
    assert definition is not None
    return definition
