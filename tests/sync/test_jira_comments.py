"""Comments travel both ways between an item's discussion and its Jira issue, each once, with
the author's name, as Atlassian Document Format there: through the real app, the local Jira and
the local Teams connector, over HTTP."""

from datetime import timedelta
from typing import Any

from bot.clock import FrozenClock
from bot.sync.jira.adf import to_adf
from bot.sync.standins.jira import JiraStandin
from tests.discussions.conftest import connector
from tests.discussions.helpers import Desk
from tests.sync.jira_fixtures import jira, link_jira, make_jira
from tests.sync.linking import bugs, run_jobs
from tests.sync.test_sync_comments import desk
from tests.teams.activities import GRACE

__all__ = ["connector", "desk", "jira", "make_jira"]
POLL = timedelta(seconds=61)


async def _linked_bug(desk: Desk, standin: JiraStandin) -> tuple[str, dict[str, Any]]:
    (key,) = standin.seed(1, types=("Bug",))
    await link_jira(desk.client, desk.ada, standin)
    (bug,) = await bugs(desk.client, desk.ada)
    return key, bug


async def _listed(desk: Desk, bug_id: str) -> list[dict[str, Any]]:
    response = await desk.comments(bug_id)
    assert response.status == 200, await response.text()
    return list((await response.json())["value"])


async def _poll(desk: Desk, clock: FrozenClock) -> None:
    clock.advance(POLL)
    await run_jobs(desk.client)


async def test_a_comment_here_reaches_the_issue_once_as_adf_with_its_author(
    desk: Desk, jira: JiraStandin, clock: FrozenClock
) -> None:
    key, bug = await _linked_bug(desk, jira)
    await desk.started(bug["_id"])
    posted = await desk.comment(bug["_id"], {"content": "Seen on the staging cache"})
    assert posted.status == 201, await posted.text()
    await run_jobs(desk.client)
    issue = jira.issue(key)
    assert issue is not None
    assert [c.body for c in issue.comments] == [
        to_adf("**Ada Lovelace**:\n\nSeen on the staging cache")
    ]
    desk.connector.calls.clear()
    await _poll(desk, clock)
    await _poll(desk, clock)
    assert len(issue.comments) == 1
    assert len(await _listed(desk, bug["_id"])) == 1
    assert desk.connector.sent() == []  # nothing told back in the thread


async def test_a_comment_made_in_jira_is_listed_and_told_in_the_thread_once(
    desk: Desk, jira: JiraStandin, clock: FrozenClock
) -> None:
    key, bug = await _linked_bug(desk, jira)
    await desk.started(bug["_id"])
    grace = jira.add_user(GRACE.name, GRACE.upn)
    clock.advance(timedelta(seconds=5))
    jira.comment(key, to_adf("Reproduced on **build 12**") or {}, by=grace)
    await _poll(desk, clock)
    await _poll(desk, clock)
    [listed] = await _listed(desk, bug["_id"])
    told_html = "<p>Grace Hopper: Reproduced on <strong>build 12</strong></p>"
    assert listed["body"]["content"] == told_html
    [told] = desk.connector.sent()
    assert told.body["text"] == told_html
    assert jira.exchanges_to("POST", "/comment") == []


async def test_comments_are_read_only_for_issues_whose_comment_count_moved(
    desk: Desk, jira: JiraStandin, clock: FrozenClock
) -> None:
    quiet, talked = jira.seed(2, types=("Bug",))
    await link_jira(desk.client, desk.ada, jira)
    clock.advance(timedelta(minutes=1))
    jira.change(quiet, summary="Renamed in Jira")
    jira.comment(talked, to_adf("Seen in Jira too"))
    read_before = len(jira.exchanges_to("GET", "/comment"))
    await _poll(desk, clock)
    read = [x.path for x in jira.exchanges_to("GET", "/comment")[read_before:]]
    assert read == [f"/rest/api/3/issue/{talked}/comment"]
