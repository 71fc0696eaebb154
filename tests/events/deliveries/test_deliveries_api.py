"""The delivery log (`GET /api/events/{id}/deliveries`), resend, and the log's 30 days."""

from datetime import timedelta

from aiohttp.test_utils import TestClient

from bot.clock import FrozenClock
from bot.keys import DELIVERER, WORKER
from tests.events.deliveries.factory import delivery, queued_tries, rule_to, stored
from tests.events.deliveries.receiver import Receiver
from tests.factories import Factory, Member


async def log_of(client: TestClient, member: Member, rule_id: str, **params: str) -> dict:
    response = await client.get(
        f"/api/events/{rule_id}/deliveries", params=params, headers=member.in_channel()
    )
    assert response.status == 200, await response.text()
    return dict(await response.json())


async def test_the_log_lists_deliveries_newest_first_each_with_its_tries_newest_first(
    client: TestClient, factory: Factory, receiver: Receiver, ada: Member, clock: FrozenClock
) -> None:
    rule = await rule_to(client, ada, receiver.url("/fail"))
    older = await delivery(factory, rule["_id"])
    worker = client.app[WORKER]
    await worker.run_once()
    clock.advance(timedelta(seconds=10))
    await worker.run_once()  # the retry, 5 s later
    newer = await delivery(factory, rule["_id"], url=receiver.url("/ok"))
    await worker.run_once()

    page = await log_of(client, ada, rule["_id"])

    assert page["@odata.count"] == 2
    assert [d["_id"] for d in page["value"]] == [newer.id, older.id]
    first = page["value"][1]
    assert first["webhookId"] == older.webhook_id
    assert (first["state"], first["attemptCount"], first["triggerType"]) == (
        "pending",
        2,
        "ITEM_CREATED",
    )
    assert (first["url"], first["method"]) == (receiver.url("/fail"), "POST")
    assert [(t["outcome"], t["responseCode"]) for t in first["attempts"]] == [
        ("retrying", 500),
        ("retrying", 500),
    ]
    assert first["attempts"][0]["at"] > first["attempts"][1]["at"]
    assert first["attempts"][0]["error"] == "HTTP 500 Internal Server Error: receiver broke"
    assert isinstance(first["attempts"][0]["latencyMs"], int)
    assert "headers" not in first and "body" not in first  # a rule's headers may hold tokens
    [try_] = page["value"][0]["attempts"]
    assert (try_["outcome"], try_["responseCode"], try_["error"]) == ("succeeded", 200, None)


async def test_the_log_pages_and_filters_like_every_list(
    client: TestClient, factory: Factory, receiver: Receiver, ada: Member, clock: FrozenClock
) -> None:
    rule = await rule_to(client, ada, receiver.url("/ok"))
    made = []
    for _ in range(3):
        made.append(await delivery(factory, rule["_id"], failed=True))
        clock.advance(timedelta(seconds=1))

    page = await log_of(client, ada, rule["_id"], **{"$top": "2"})
    assert [d["_id"] for d in page["value"]] == [made[2].id, made[1].id]
    assert page["@odata.count"] == 3 and "@odata.nextLink" in page
    filtered = await log_of(
        client, ada, rule["_id"], **{"$filter": f"webhookId eq '{made[0].webhook_id}'"}
    )
    assert [d["_id"] for d in filtered["value"]] == [made[0].id]
    bad = await client.get(
        f"/api/events/{rule['_id']}/deliveries",
        params={"$filter": "secret eq 'x'"},
        headers=ada.in_channel(),
    )
    assert bad.status == 400 and (await bad.json())["error"].startswith("Invalid $filter")


async def test_resend_sends_the_same_request_again_with_the_same_webhook_id(
    client: TestClient, factory: Factory, receiver: Receiver, ada: Member, clock: FrozenClock
) -> None:
    rule = await rule_to(client, ada, receiver.url("/refuse"))
    sent = await delivery(factory, rule["_id"])
    worker = client.app[WORKER]
    await worker.run_once()
    assert (await stored(factory, sent.id)).state == "failed"

    response = await client.post(
        f"/api/events/{rule['_id']}/deliveries/{sent.id}/resend", headers=ada.in_channel()
    )

    assert response.status == 202, await response.text()
    body = await response.json()
    assert (body["_id"], body["state"], body["webhookId"]) == (sent.id, "pending", sent.webhook_id)
    assert [t["outcome"] for t in body["attempts"]] == ["failed"]  # the tries so far
    await worker.run_once()
    assert [r.webhook_id for r in receiver.requests] == [sent.webhook_id] * 2
    assert receiver.requests[0].body == receiver.requests[1].body
    receiver.requests[1].verify(rule["secret"])
    page = await log_of(client, ada, rule["_id"])
    assert [t["outcome"] for t in page["value"][0]["attempts"]] == ["failed", "failed"]


async def test_a_resent_delivery_that_fails_starts_the_schedule_again(
    client: TestClient, factory: Factory, receiver: Receiver, ada: Member, clock: FrozenClock
) -> None:
    rule = await rule_to(client, ada, receiver.url("/fail"))
    sent = await delivery(factory, rule["_id"], failed=True)
    response = await client.post(
        f"/api/events/{rule['_id']}/deliveries/{sent.id}/resend", headers=ada.in_channel()
    )
    assert response.status == 202
    await client.app[WORKER].run_once()

    [job] = await queued_tries(factory)
    assert timedelta(seconds=5) <= job.run_at - clock.now() <= timedelta(seconds=5.5)


async def test_resend_refusals_say_why_and_change_nothing(
    client: TestClient, factory: Factory, receiver: Receiver, ada: Member
) -> None:
    rule = await rule_to(client, ada, receiver.url("/ok"))
    other = await rule_to(client, ada, receiver.url("/ok"), eventName="Other")
    pending = await delivery(factory, rule["_id"])
    failed = await delivery(factory, rule["_id"], failed=True)

    async def resend(rule_id: str, delivery_id: str) -> tuple[int, dict]:
        response = await client.post(
            f"/api/events/{rule_id}/deliveries/{delivery_id}/resend", headers=ada.in_channel()
        )
        return response.status, await response.json()

    assert await resend(rule["_id"], pending.id) == (
        409,
        {"error": f"Delivery '{pending.id}' is still being delivered."},
    )
    assert await resend(other["_id"], failed.id) == (
        404,
        {"error": f"Delivery '{failed.id}' not found."},
    )
    assert (await resend(rule["_id"], "0" * 24))[0] == 404
    assert (await resend(rule["_id"], "not-an-id"))[0] == 404
    assert (await resend("0" * 24, failed.id))[0] == 404
    off = await client.patch(
        f"/odata/eventDefinitions('{rule['_id']}')",
        json={"enable": False},
        headers=ada.in_channel(),
    )
    assert off.status == 204
    assert await resend(rule["_id"], failed.id) == (
        409,
        {"error": f"Event definition '{rule['_id']}' is disabled: enable it to resend."},
    )
    assert (await stored(factory, failed.id)).state == "failed"
    assert len(await queued_tries(factory)) == 1  # the pending one's own


async def test_another_teams_delivery_log_is_invisible(
    client: TestClient, factory: Factory, receiver: Receiver, ada: Member
) -> None:
    rule = await rule_to(client, ada, receiver.url("/ok"))
    await delivery(factory, rule["_id"], failed=True)
    await factory.team("19:team-b@thread.tacv2", name="Team B", group_id=None)
    await factory.channel("19:channel-b@thread.tacv2", team_id="19:team-b@thread.tacv2")
    eve = await factory.member("Eve", team_id="19:team-b@thread.tacv2")

    own = eve.in_channel("19:team-b@thread.tacv2", "19:channel-b@thread.tacv2")
    response = await client.get(f"/api/events/{rule['_id']}/deliveries", headers=own)
    assert response.status == 404
    response = await client.get(f"/api/events/{rule['_id']}/deliveries", headers=eve.in_channel())
    assert response.status == 403


async def test_the_log_keeps_thirty_days(
    client: TestClient, factory: Factory, receiver: Receiver, ada: Member, clock: FrozenClock
) -> None:
    rule = await rule_to(client, ada, receiver.url("/ok"))
    old = await delivery(factory, rule["_id"], failed=True)
    clock.advance(timedelta(days=2))
    recent = await delivery(factory, rule["_id"], failed=True)
    still_trying = await delivery(factory, rule["_id"])
    clock.advance(timedelta(days=29))

    await client.app[DELIVERER].prune()

    ada = await factory.member("Ada again")  # a fresh session: a month has passed
    page = await log_of(client, ada, rule["_id"])
    assert {d["_id"] for d in page["value"]} == {recent.id, still_trying.id}
    assert old.id not in {d["_id"] for d in page["value"]}
