"""With the worker running, a committed change is matched at once: no poll, no request waits."""

import pytest
from aiohttp.test_utils import TestClient

from bot.settings import Settings
from tests.events.engine.helpers import add_rule, deliveries, delivery_jobs
from tests.factories import Factory, create_item
from tests.waiting import until


@pytest.fixture
def settings(db: str, make_settings) -> Settings:  # noqa: ANN001
    # The worker runs but never polls: only the commit's wake-up can make it look.
    return make_settings(db, JOBS_POLL_SECONDS=3600)


async def test_a_created_bug_is_matched_by_the_running_worker_without_a_poll(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    rule = await add_rule(client, ada)
    bug = await create_item(client, ada)

    made: list = []

    async def matched() -> bool:
        made[:] = await deliveries(factory)
        return bool(made)

    await until(matched, "the worker to match the new bug", poll=0.05)
    assert [(d["definition_id"], d["item_id"]) for d in made] == [(rule, bug["_id"])]
    # Its send job (and, the address being unreachable here, maybe its retry) names it.
    assert {job["deliveryId"] for job in await delivery_jobs(factory)} == {made[0]["id"]}
