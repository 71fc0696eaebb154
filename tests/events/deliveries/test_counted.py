"""Each try of a delivery counts for /metrics by its outcome, and its job run by kind and
outcome, once the try's record commits."""

from aiohttp.test_utils import TestClient

from bot.events.delivery import DELIVER
from bot.keys import WORKER
from tests.events.deliveries.factory import delivery, rule_to
from tests.events.deliveries.receiver import Receiver
from tests.factories import Factory, Member
from tests.scrape import scrape

TRIES = "tracker_webhook_deliveries_total"


async def test_each_try_is_counted_by_its_outcome(
    client: TestClient, factory: Factory, receiver: Receiver, ada: Member
) -> None:
    for path in ("/ok", "/ok", "/fail", "/refuse"):
        rule = await rule_to(client, ada, receiver.url(path))
        await delivery(factory, rule["_id"])

    await client.app[WORKER].run_once()

    samples = await scrape(client)
    assert samples.count(TRIES, outcome="succeeded") == 2
    assert samples.count(TRIES, outcome="retrying") == 1  # a 500: tried again later
    assert samples.count(TRIES, outcome="failed") == 1  # a 400: no use trying again
    assert samples.count("tracker_job_runs_total", kind=DELIVER.name, outcome="done") == 4
    assert samples.count("tracker_job_run_duration_seconds_count", kind=DELIVER.name) == 4
