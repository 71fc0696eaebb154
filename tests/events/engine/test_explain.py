"""`POST /api/events/{id}/test`: would the rule fire for this item now, and why; sends nothing."""

from aiohttp.test_utils import TestClient

from tests.events.definitions.helpers import stored_rows
from tests.events.engine.helpers import add_rule, condition, deliveries, where
from tests.factories import CHANNEL, TEAM, Factory, Member, create_item

CHANNEL_B = "19:channel-b@thread.tacv2"


async def explain(
    client: TestClient, member: Member, rule_id: str, body: object, *, channel: str = CHANNEL
) -> tuple[int, dict]:
    response = await client.post(
        f"/api/events/{rule_id}/test", json=body, headers=member.in_channel(TEAM, channel)
    )
    return response.status, await response.json()


async def test_a_rule_that_would_fire_says_which_condition_decided(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    rule = await add_rule(
        client,
        ada,
        conditions=where(
            condition("priority", "Is", "high"), condition("statusCategory", "IsNot", "Done")
        ),
    )
    bug = await create_item(client, ada, priority="High")

    status, answer = await explain(client, ada, rule, {"itemId": bug["_id"]})

    assert status == 200
    assert answer == {
        "wouldFire": True,
        "decidedBy": {
            "group": 0,
            "condition": 1,
            "field": "statusCategory",
            "ops": "IsNot",
            "value": "Done",
            "actual": "New",
        },
        "reason": "The rule fires: conditions.0.conditions.1 (statusCategory IsNot 'Done') "
        "holds; the item's statusCategory is 'New'.",
    }
    assert await deliveries(factory) == []  # nothing sent, nothing queued


async def test_a_rule_that_would_not_fire_names_the_condition_that_failed(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    rule = await add_rule(
        client,
        ada,
        conditions=where(
            condition("name", "Contains", "printer"), condition("priority", "Is", "High")
        ),
    )
    bug = await create_item(client, ada, name="Printer jam", priority="Normal")

    status, answer = await explain(client, ada, rule, {"itemId": bug["_id"]})

    assert status == 200
    assert answer["wouldFire"] is False
    assert answer["decidedBy"] == {
        "group": 0,
        "condition": 1,
        "field": "priority",
        "ops": "Is",
        "value": "High",
        "actual": "Normal",
    }
    assert "does not hold; the item's priority is 'Normal'" in answer["reason"]


async def test_changed_on_an_item_as_it_stands_never_holds(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    rule = await add_rule(
        client, ada, triggerType="ITEM_UPDATED", conditions=where(condition("priority", "Changed"))
    )
    bug = await create_item(client, ada)

    status, answer = await explain(client, ada, rule, {"itemId": bug["_id"]})

    assert (status, answer["wouldFire"]) == (200, False)
    assert answer["decidedBy"]["actual"] is None
    assert "the event did not change it" in answer["reason"]


async def test_a_switched_off_rule_would_not_fire_and_says_so(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    rule = await add_rule(client, ada, enable=False, conditions=[])
    bug = await create_item(client, ada)

    status, answer = await explain(client, ada, rule, {"itemId": bug["_id"]})

    assert status == 200
    assert (answer["wouldFire"], answer["decidedBy"]) == (False, None)
    assert answer["reason"].startswith("The rule is switched off")


async def test_an_item_of_another_channel_or_kind_or_none_is_a_404(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    await factory.channel(CHANNEL_B, name="Other")
    rule = await add_rule(client, ada)
    elsewhere = await add_rule(client, ada, channel=CHANNEL_B)
    other_channel = await create_item(client, ada)  # channel A's bug
    task = await create_item(client, ada, of="task")
    before = await stored_rows(factory)

    assert await explain(
        client, ada, elsewhere, {"itemId": other_channel["_id"]}, channel=CHANNEL_B
    ) == (
        404,
        {"error": f"Bug '{other_channel['_id']}' not found."},
    )
    assert await explain(client, ada, rule, {"itemId": task["_id"]}) == (
        404,
        {"error": f"Bug '{task['_id']}' not found."},
    )
    assert await explain(client, ada, rule, {"itemId": "not-an-id"}) == (
        404,
        {"error": "Bug 'not-an-id' not found."},
    )
    assert await explain(client, ada, "0" * 24, {"itemId": task["_id"]}) == (
        404,
        {"error": f"Event definition '{'0' * 24}' not found."},
    )
    assert await stored_rows(factory) == before


async def test_a_body_without_an_item_id_string_is_a_400(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    rule = await add_rule(client, ada)

    assert await explain(client, ada, rule, {}) == (400, {"error": "itemId: Field required"})
    for body in ({"itemId": 7}, {"itemId": None}):
        assert await explain(client, ada, rule, body) == (
            400,
            {"error": "itemId: Input should be a valid string"},
        )
