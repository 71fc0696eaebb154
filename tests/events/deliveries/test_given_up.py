"""A try whose job the worker gives up (its record kept failing) ends its delivery failed, with
the last error, counted: no delivery stays pending forever."""

from aiohttp.test_utils import TestClient
from sqlalchemy import text, update

from bot.db.tables import Job
from bot.keys import WORKER
from tests.events.deliveries.factory import attempts, delivery, queued_tries, rule_to, stored
from tests.events.deliveries.receiver import Receiver
from tests.factories import Factory, Member
from tests.logged import captured
from tests.scrape import scrape

TRIES = "tracker_webhook_deliveries_total"
# A success cannot be recorded (the database refuses it); a failure can.
_REFUSE_SUCCESS = {
    "sqlite": [
        "CREATE TRIGGER refuse_success BEFORE INSERT ON event_delivery_attempts "
        "WHEN NEW.outcome = 'succeeded' BEGIN SELECT RAISE(ABORT, 'the record failed'); END"
    ],
    "postgresql": [
        "CREATE FUNCTION refuse_success() RETURNS trigger LANGUAGE plpgsql AS "
        "$$ BEGIN RAISE EXCEPTION 'the record failed'; END $$",
        "CREATE TRIGGER refuse_success BEFORE INSERT ON event_delivery_attempts "
        "FOR EACH ROW WHEN (NEW.outcome = 'succeeded') EXECUTE FUNCTION refuse_success()",
    ],
}
_LET_SUCCEED = {
    "sqlite": ["DROP TRIGGER refuse_success"],
    "postgresql": [
        "DROP TRIGGER refuse_success ON event_delivery_attempts",
        "DROP FUNCTION refuse_success()",
    ],
}


async def _run(factory: Factory, statements: dict[str, list[str]]) -> None:
    async with factory.work() as uow:
        for statement in statements[uow.session.bind.dialect.name]:
            await uow.session.execute(text(statement))


async def test_a_try_whose_job_is_given_up_fails_the_delivery_with_the_last_error(
    client: TestClient, factory: Factory, receiver: Receiver, ada: Member
) -> None:
    rule = await rule_to(client, ada, receiver.url("/ok"))
    sent = await delivery(factory, rule["_id"])
    async with factory.work() as uow:  # every try of its job but the last was made already
        await uow.execute(update(Job).values(attempts=Job.max_attempts - 1))

    await _run(factory, _REFUSE_SUCCESS)
    try:
        with captured() as logged:
            await client.app[WORKER].run_once()
    finally:  # the database outlives the test
        await _run(factory, _LET_SUCCEED)

    assert len(receiver.requests) == 1
    assert (await stored(factory, sent.id)).state == "failed"
    [attempt] = await attempts(factory, sent.id)
    assert attempt.outcome == "failed"
    assert attempt.error is not None
    assert "Gave up after" in attempt.error and "the record failed" in attempt.error
    assert await queued_tries(factory) == []
    assert any(
        sent.id in line["message"] and "the record failed" in line["message"]
        for line in logged.lines()
        if line["level"] == "WARNING"
    )
    assert (await scrape(client)).count(TRIES, outcome="failed") == 1
