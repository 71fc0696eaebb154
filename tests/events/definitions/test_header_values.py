"""A rule's header values are write-only: every answer shows them masked, a PATCH that sends
the mask back keeps the stored value, a new value replaces it, a header left out is removed."""

from aiohttp.test_utils import TestClient

from bot.events.definitions.header_values import MASK
from tests.events.definitions.helpers import HOOK_URL, PATH, create, read, stored
from tests.factories import Factory, Member

TOKEN = "Bearer s3cr3t-receiver-token"


def _action(*headers: dict[str, str], url: str = HOOK_URL) -> dict:
    return {"url": url, "method": "POST", "headers": list(headers), "body": ""}


async def _patch(client: TestClient, ada: Member, rule_id: str, action: dict) -> None:
    response = await client.patch(
        f"{PATH}({rule_id})", json={"action": action}, headers=ada.in_channel()
    )
    assert response.status == 204, await response.text()


async def _stored_headers(factory: Factory, rule_id: str) -> list[dict[str, str]]:
    return list((await stored(factory, rule_id)).action["headers"])


async def test_header_values_are_shown_masked_wherever_a_rule_is_read(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    auth = {"name": "Authorization", "value": TOKEN}
    made = await create(client, ada, action=_action(auth))
    shown = [{"name": "Authorization", "value": MASK}]
    assert made["action"]["headers"] == shown
    assert (await read(client, ada, made["_id"]))["action"]["headers"] == shown
    for path in (PATH, "/api/events", f"{PATH}?$select=action"):
        response = await client.get(path, headers=ada.in_channel())
        text = await response.text()
        assert response.status == 200, text
        assert "s3cr3t" not in text and MASK in text
    assert await _stored_headers(factory, made["_id"]) == [auth]


async def test_a_patch_sending_the_mask_back_keeps_the_value_and_a_new_one_replaces_it(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    made = await create(
        client,
        ada,
        action=_action(
            {"name": "Authorization", "value": TOKEN}, {"name": "X-Team", "value": "platform"}
        ),
    )
    rule_id = made["_id"]
    # The client sends back what it read, with another URL.
    shown = (await read(client, ada, rule_id))["action"]
    await _patch(client, ada, rule_id, {**shown, "url": HOOK_URL + "/v2"})
    assert await _stored_headers(factory, rule_id) == [
        {"name": "Authorization", "value": TOKEN},
        {"name": "X-Team", "value": "platform"},
    ]
    assert (await stored(factory, rule_id)).action["url"] == HOOK_URL + "/v2"

    await _patch(
        client,
        ada,
        rule_id,
        _action({"name": "authorization", "value": MASK}, {"name": "X-Team", "value": "infra"}),
    )
    assert await _stored_headers(factory, rule_id) == [
        {"name": "authorization", "value": TOKEN},
        {"name": "X-Team", "value": "infra"},
    ]

    await _patch(client, ada, rule_id, _action({"name": "X-Team", "value": MASK}))
    assert await _stored_headers(factory, rule_id) == [{"name": "X-Team", "value": "infra"}]


async def test_the_mask_for_a_header_not_stored_is_refused(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    response = await client.post(
        PATH,
        json={
            "eventName": "Copied rule",
            "entityType": "bug",
            "triggerType": "ITEM_CREATED",
            "actionType": "HTTP",
            "action": _action({"name": "Authorization", "value": MASK}),
        },
        headers=ada.in_channel(),
    )
    assert response.status == 400
    assert (await response.json())["error"].startswith("action.headers.0.value: ")

    made = await create(client, ada, action=_action({"name": "X-Team", "value": "platform"}))
    response = await client.patch(
        f"{PATH}({made['_id']})",
        json={"action": _action({"name": "Authorization", "value": MASK})},
        headers=ada.in_channel(),
    )
    assert response.status == 400
    assert (await response.json())["error"].startswith("action.headers.0.value: ")
    assert await _stored_headers(factory, made["_id"]) == [{"name": "X-Team", "value": "platform"}]
