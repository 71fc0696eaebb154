"""A source that refuses to list the project's items (a query it cannot read) fails the sync
visibly, retried later, instead of failing its job unseen; once the query is fixed, it imports."""

from datetime import timedelta

from bot.clock import FrozenClock
from bot.sync.standins.jira import JiraStandin
from tests.factories import Factory
from tests.sync.jira_fixtures import jira, jira_body, make_jira
from tests.sync.linking import bugs, link_body, run_jobs, sync_status

__all__ = ["jira", "make_jira"]


async def test_a_query_the_source_refuses_is_said_and_fixing_it_imports(
    client, factory: Factory, jira: JiraStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    jira.seed(2, types=("Bug",))
    body = jira_body(jira)
    body["sync"] = {"enabled": True, "query": "status ="}
    project = await link_body(client, ada, body)
    status = await sync_status(client, ada, project["_id"])
    assert status["state"] == "failing"
    assert "JQL" in status["lastError"]["message"]
    assert any("Check the project's sync query" in line["message"] for line in status["log"])
    assert await bugs(client, ada) == []
    fixed = await client.patch(
        f"/api/projects/{project['_id']}", json={"sync": {"query": None}}, headers=ada.in_channel()
    )
    assert fixed.status == 200, await fixed.text()
    clock.advance(timedelta(minutes=2))
    await run_jobs(client)
    assert len(await bugs(client, ada)) == 2
    status = await sync_status(client, ada, project["_id"])
    assert (status["state"], status["lastError"]) == ("running", None)
