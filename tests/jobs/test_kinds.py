"""Job kinds across an upgrade: every kind the app runs reads the rows the previous code stored,
and writes new rows in the same shape."""

from aiohttp.test_utils import TestClient

from bot.keys import WORKER

ACTIVITY = {"type": "message", "text": "Assigned to you"}
THREAD = "19:general@thread.tacv2;messageid=1700000000123"
# Each kind's payload exactly as the code before typed kinds stored it.
OLD_PAYLOADS = {
    "teams.new_thread": {"channelId": "19:general@thread.tacv2", "activity": ACTIVITY},
    "teams.reply": {"conversationId": THREAD, "activity": ACTIVITY},
    "teams.update": {"conversationId": THREAD, "activityId": "1700000000456", "activity": ACTIVITY},
    "discussions.refresh": {"itemId": "0123456789abcdef01234567"},
    "notifications.digest": {"channelId": "0123456789abcdef01234567"},
    "events.deliver": {"deliveryId": "0123456789abcdef01234567", "attempt": 2, "seriesStart": 1},
    "events.due_sweep": {"sweptUntil": "2024-05-01T09:30:00.000Z"},
    "events.prune_deliveries": {},
}
# Kinds added since, in the shape their first release stores: a later change must read these.
FIRST_PAYLOADS = {
    "sync.link": {"projectId": "0123456789abcdef01234567"},
    "sync.poll": {"projectId": "0123456789abcdef01234567"},
    "sync.push": {"projectId": "0123456789abcdef01234567", "itemId": "89abcdef0123456789abcdef"},
    "sync.comment_shown": {"messageId": "0123456789abcdef01234567"},
}
STORED = OLD_PAYLOADS | FIRST_PAYLOADS


async def test_every_kind_the_app_runs_reads_the_payload_the_previous_code_stored(
    client: TestClient,
) -> None:
    kinds = {kind.name: kind for kind in client.app[WORKER].kinds}

    assert kinds.keys() == STORED.keys()
    for name, old in STORED.items():
        payload = kinds[name].read(old)
        assert kinds[name].stored(payload) == old, name  # and new rows keep that shape


async def test_a_delivery_try_stored_with_its_first_payload_reads_its_counts_as_zero(
    client: TestClient,
) -> None:
    [deliver] = [kind for kind in client.app[WORKER].kinds if kind.name == "events.deliver"]

    payload = deliver.read({"deliveryId": "0123456789abcdef01234567"})

    assert (payload.attempt, payload.series_start) == (0, 0)
    assert deliver.stored(payload) == {"deliveryId": "0123456789abcdef01234567"}
