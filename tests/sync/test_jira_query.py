"""A Jira project's `sync.query` is JQL ANDed into the pulls, which add their own `updated`
condition and order: a query holding its own ORDER BY, or a bracket or quote left open, is
refused when the project is saved (400 naming `sync.query`), and nothing changes."""

import pytest
from aiohttp.test_utils import TestClient

from bot.sync.jira.query import refusal
from bot.sync.standins.jira import JiraStandin
from tests.factories import Factory
from tests.sync.jira_fixtures import jira, jira_body, link_jira, make_jira

__all__ = ["jira", "make_jira"]

ORDERED = "status = Done ORDER BY created DESC"


@pytest.mark.parametrize(
    ("query", "why"),
    [
        (ORDERED, "drop its ORDER BY"),
        ("labels = ops order\n  by rank", "drop its ORDER BY"),
        ("status = Done) OR (project = OTHER", "closes a bracket"),
        ("(status = Done", "'(' is not closed"),
        ('summary ~ "unfinished', "not closed"),
    ],
)
def test_queries_the_pulls_cannot_use_are_named(query: str, why: str) -> None:
    assert why in (refusal(query) or "")


@pytest.mark.parametrize(
    "query",
    [
        "status = Done",
        'summary ~ "sort order by date"',  # inside quotes it is text
        '(labels = ops OR labels = "a \\" (b") AND priority = High',
        "reorder = 1 AND byline = 2",
    ],
)
def test_narrowing_queries_are_taken(query: str) -> None:
    assert refusal(query) is None


async def test_a_new_project_with_an_ordered_query_is_refused_and_not_made(
    client: TestClient, factory: Factory, jira: JiraStandin
) -> None:
    ada = await factory.member()
    body = jira_body(jira, sync={"enabled": True, "query": ORDERED})
    response = await client.post("/api/projects", json=body, headers=ada.in_channel())
    assert response.status == 400
    error = (await response.json())["error"]
    assert error.startswith("sync.query: ") and "ORDER BY" in error
    assert jira.exchanges == []  # refused before Jira is asked
    listed = await client.get("/api/projects", headers=ada.in_channel())
    assert [p["source"] for p in (await listed.json())["value"]] == ["Svc.Native"]


async def test_a_linked_project_keeps_its_query_when_an_ordered_one_is_sent(
    client: TestClient, factory: Factory, jira: JiraStandin
) -> None:
    ada = await factory.member()
    project = await link_jira(client, ada, jira)
    url = f"/api/projects/{project['_id']}"
    before = await (await client.get(url, headers=ada.in_channel())).json()
    patch = {"displayName": "Renamed", "sync": {"query": "status = Done order by rank"}}
    response = await client.patch(url, json=patch, headers=ada.in_channel())
    assert response.status == 400
    assert (await response.json())["error"].startswith("sync.query: ")
    after = await (await client.get(url, headers=ada.in_channel())).json()
    assert after == before
    taken = await client.patch(
        url, json={"sync": {"query": "status = Done"}}, headers=ada.in_channel()
    )
    assert taken.status == 200, await taken.text()
    assert (await taken.json())["sync"]["query"] == "status = Done"
