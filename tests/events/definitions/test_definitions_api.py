"""Event rules through the API: create (the secret shown once), read, list, change, delete,
rotate the secret, and the triggers list."""

import base64
from datetime import timedelta

from aiohttp.test_utils import TestClient
from sqlalchemy import update

from bot.clock import FrozenClock
from bot.db.tables import EventDefinition
from bot.events.definitions.header_values import MASK
from tests.events.definitions.helpers import HOOK_URL, OMIT, PATH, create, read, stored
from tests.factories import CHANNEL, TEAM, TENANT, Factory


async def test_create_answers_the_rule_and_its_secret_once(
    client: TestClient, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member()
    made = await create(client, ada)
    secret = made.pop("secret")
    assert secret.startswith("whsec_") and len(base64.b64decode(secret[6:])) == 24
    assert made == {
        "@odata.context": "http://127.0.0.1:3978/odata/$metadata#eventDefinitions/$entity",
        "@odata.editLink": f"http://127.0.0.1:3978/odata/eventDefinitions('{made['_id']}')",
        "@odata.id": f"http://127.0.0.1:3978/odata/eventDefinitions('{made['_id']}')",
        "_id": made["_id"],
        "tenantId": TENANT,
        "teamId": TEAM,
        "channelId": CHANNEL,
        "entityType": "bug",
        "eventName": "Urgent bugs to the pager",
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
            "headers": [{"name": "X-Team", "value": MASK}],  # write-only
            "body": '{"text": "{{item.name}}"}',
        },
        "disabledReason": None,
        "createdAt": "2026-11-21T09:30:00.000Z",
        "updatedAt": "2026-11-21T09:30:00.000Z",
    }
    assert (await stored(factory, made["_id"])).secret == secret
    # Never again: not when read, listed, or changed.
    assert "secret" not in await read(client, ada, made["_id"])
    for path in (PATH, "/api/events"):
        listed = await (await client.get(path, headers=ada.in_channel())).json()
        assert secret not in str(listed) and "previous" not in str(listed)
    patched = await client.patch(
        f"{PATH}({made['_id']})", json={"enable": False}, headers=ada.in_channel()
    )
    assert patched.status == 204 and await patched.read() == b""


async def test_two_rules_never_share_a_secret(client: TestClient, factory: Factory) -> None:
    ada = await factory.member()
    first, second = await create(client, ada), await create(client, ada)
    assert first["secret"] != second["secret"]


async def test_defaults_and_a_notification_rule(client: TestClient, factory: Factory) -> None:
    ada = await factory.member()
    made = await create(
        client,
        ada,
        entityType="task",
        triggerType="ITEM_DELETED",
        actionType="Notification",
        action=OMIT,
        conditions=OMIT,
        conditionsOps=OMIT,
        enable=OMIT,
        # The context headers decide where a rule lives.
        tenantId="someone-else",
        teamId="19:other@thread.tacv2",
        channelId="19:other@thread.tacv2",
    )
    assert made["action"] == {} and made["conditions"] == []
    assert made["enable"] is True and made["conditionsOps"] == "and"
    assert (made["teamId"], made["channelId"]) == (TEAM, CHANNEL)


async def test_an_http_action_takes_defaults_for_method_headers_and_body(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    made = await create(client, ada, action={"url": HOOK_URL})
    assert made["action"] == {"url": HOOK_URL, "method": "POST", "headers": [], "body": ""}


async def test_dates_and_categories_are_stored_in_one_form(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    made = await create(
        client,
        ada,
        triggerType="ITEM_UPDATED",
        conditions=[
            {
                "ops": "and",
                "conditions": [
                    {"field": "dueDate", "ops": "LessThan", "value": "2026-12-01T10:00:00+02:00"},
                    {"field": "statusCategory", "ops": "ChangedTo", "value": "done"},
                    {"field": "assignedTo", "ops": "Changed"},
                    {"field": "name", "ops": "HasValue", "value": ""},
                ],
            }
        ],
    )
    assert made["conditions"][0]["conditions"] == [
        {"field": "dueDate", "ops": "LessThan", "value": "2026-12-01T08:00:00.000Z"},
        {"field": "statusCategory", "ops": "ChangedTo", "value": "Done"},
        {"field": "assignedTo", "ops": "Changed", "value": None},
        {"field": "name", "ops": "HasValue", "value": None},
    ]


async def test_both_lists_take_odata_options(
    client: TestClient, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member()
    names = ["Alpha", "beta", "Gamma"]
    for name in names:
        clock.advance(timedelta(seconds=1))  # listed in the order they were made
        await create(client, ada, eventName=name, entityType="task" if name == "beta" else "bug")
    for path in ("/api/events", PATH):
        everything = await (await client.get(path, headers=ada.in_channel())).json()
        assert (
            everything["@odata.context"] == "http://127.0.0.1:3978/odata/$metadata#eventDefinitions"
        )
        assert everything["@odata.count"] == 3
        assert [row["eventName"] for row in everything["value"]] == names
        params = {
            "$filter": "entityType eq 'bug' and contains(eventName, 'A')",
            "$orderby": "eventName desc",
            "$top": "1",
            "$select": "eventName,triggerType",
        }
        page = await (await client.get(path, params=params, headers=ada.in_channel())).json()
        assert page["@odata.count"] == 2
        assert page["value"] == [
            {"_id": page["value"][0]["_id"], "eventName": "Gamma", "triggerType": "ITEM_CREATED"}
        ]
        assert "@odata.nextLink" in page
        bad = await client.get(path, params={"$filter": "secret eq 'x'"}, headers=ada.in_channel())
        assert bad.status == 400 and "Invalid $filter" in (await bad.json())["error"]


async def test_patch_changes_what_it_names_and_keeps_the_rest(
    client: TestClient, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member()
    made = await create(client, ada)
    clock.advance(timedelta(minutes=5))
    response = await client.patch(
        f"{PATH}('{made['_id']}')",
        json={"eventName": "Renamed", "enable": False, "action": {"url": HOOK_URL + "/v2"}},
        headers=ada.in_channel(),
    )
    assert response.status == 204, await response.text()
    after = await read(client, ada, made["_id"])
    assert after["eventName"] == "Renamed" and after["enable"] is False
    assert after["action"] == {"url": HOOK_URL + "/v2", "method": "POST", "headers": [], "body": ""}
    assert after["conditions"] == made["conditions"]
    assert after["updatedAt"] == "2026-11-21T09:35:00.000Z"
    assert after["createdAt"] == made["createdAt"]


async def test_patch_to_a_notification_drops_the_http_settings(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    made = await create(client, ada)
    response = await client.patch(
        f"{PATH}({made['_id']})", json={"actionType": "Notification"}, headers=ada.in_channel()
    )
    assert response.status == 204, await response.text()
    assert (await read(client, ada, made["_id"]))["action"] == {}


async def test_switching_a_rule_back_on_clears_why_the_service_switched_it_off(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    made = await create(client, ada)
    async with factory.work() as uow:
        await uow.session.execute(
            update(EventDefinition)
            .where(EventDefinition.id == made["_id"])
            .values(enabled=False, disabled_reason="The receiver answered 410 Gone.")
        )
    assert (await read(client, ada, made["_id"]))["disabledReason"] == (
        "The receiver answered 410 Gone."
    )
    response = await client.patch(
        f"{PATH}({made['_id']})", json={"enable": True}, headers=ada.in_channel()
    )
    assert response.status == 204
    after = await read(client, ada, made["_id"])
    assert after["enable"] is True and after["disabledReason"] is None


async def test_delete_removes_the_rule(client: TestClient, factory: Factory) -> None:
    ada = await factory.member()
    made = await create(client, ada)
    url = f"{PATH}('{made['_id']}')"
    response = await client.delete(url, headers=ada.in_channel())
    assert response.status == 204 and await response.read() == b""
    for method in ("GET", "DELETE", "PATCH"):
        again = await client.request(method, url, json={}, headers=ada.in_channel())
        assert again.status == 404, method
        assert await again.json() == {"error": f"Event definition '{made['_id']}' not found."}
    rotated = await client.post(f"/api/events/{made['_id']}/secret", headers=ada.in_channel())
    assert rotated.status == 404


async def test_a_malformed_or_unknown_id_is_404(client: TestClient, factory: Factory) -> None:
    ada = await factory.member()
    for key in ("nope", "0" * 24, "'" + "f" * 24 + "'", "A" * 24):
        response = await client.get(f"{PATH}({key})", headers=ada.in_channel())
        assert response.status == 404, key


async def test_rotation_shows_the_new_secret_once_and_keeps_the_old_for_a_day(
    client: TestClient, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member()
    made = await create(client, ada)
    clock.advance(timedelta(hours=1))
    response = await client.post(f"/api/events/{made['_id']}/secret", headers=ada.in_channel())
    assert response.status == 200, await response.text()
    rotated = await response.json()
    assert rotated["_id"] == made["_id"]
    assert rotated["secret"].startswith("whsec_") and rotated["secret"] != made["secret"]
    assert rotated["previousSecretUntil"] == "2026-11-22T10:30:00.000Z"
    definition = await stored(factory, made["_id"])
    assert (definition.secret, definition.previous_secret) == (rotated["secret"], made["secret"])
    assert rotated["secret"] not in str(await read(client, ada, made["_id"]))
    # Rotating again: the secret just replaced is the one still honoured.
    again = await (
        await client.post(f"/api/events/{made['_id']}/secret", headers=ada.in_channel())
    ).json()
    assert (await stored(factory, made["_id"])).previous_secret == rotated["secret"]
    assert again["secret"] not in (made["secret"], rotated["secret"])


async def test_triggers_are_the_ten_of_both_kinds(client: TestClient, factory: Factory) -> None:
    ada = await factory.member()
    response = await client.get("/api/events/triggers", headers=ada.in_channel())
    assert response.status == 200
    words = ["created", "updated", "due soon", "deleted", "overdue"]
    names = ["ITEM_CREATED", "ITEM_UPDATED", "DUESOON", "ITEM_DELETED", "OVERDUE"]
    assert await response.json() == [
        {"id": "", "entityType": kind, "name": name, "displayName": f"A {kind} is {word}"}
        for kind in ("task", "bug")
        for name, word in zip(names, words, strict=True)
    ]


async def test_triggers_take_a_filter_and_an_order(client: TestClient, factory: Factory) -> None:
    ada = await factory.member()
    params = {"$filter": "entityType eq 'bug' and startswith(name, 'item')", "$orderby": "name"}
    response = await client.get("/api/events/triggers", params=params, headers=ada.in_channel())
    assert [row["name"] for row in await response.json()] == [
        "ITEM_CREATED",
        "ITEM_DELETED",
        "ITEM_UPDATED",
    ]
    bad = await client.get(
        "/api/events/triggers", params={"$filter": "nope eq 1"}, headers=ada.in_channel()
    )
    assert bad.status == 400 and "Invalid $filter" in (await bad.json())["error"]
