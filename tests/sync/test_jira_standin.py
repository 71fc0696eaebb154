"""The local Jira answers as Jira Cloud does for what the connector uses: Basic email:token,
search paged by nextPageToken and minute-precise on `updated` in the caller's time zone,
transitions only as the workflow offers them, and signed webhooks."""

import asyncio
import hashlib
import hmac
from datetime import timedelta
from typing import Any

import aiohttp
from aiohttp import web

from bot.clock import FrozenClock
from bot.sync.standins.jira import JiraStandin
from bot.sync.standins.jira.__main__ import serve
from tests.sync.jira_fixtures import jira, make_jira
from tests.vendor_apis.openapi import problems_of
from tests.waiting import finished

__all__ = ["jira", "make_jira"]


async def call(
    standin: JiraStandin, method: str, path: str, *, token: str | None = None, **kwargs: Any
) -> tuple[int, Any]:
    auth = {"Authorization": aiohttp.encode_basic_auth(standin.email, token or standin.token)}
    async with aiohttp.ClientSession() as http:
        async with http.request(
            method, standin.base_url + "/rest/api/3" + path, headers=auth, **kwargs
        ) as response:
            body = await response.json() if response.content_length else None
            return response.status, body


async def test_a_wrong_token_is_answered_401(jira: JiraStandin) -> None:
    status, body = await call(jira, "GET", "/myself", token="wrong")
    assert status == 401
    assert body["errorMessages"]
    assert (await call(jira, "GET", "/myself"))[1]["timeZone"] == "Australia/Sydney"


async def test_search_pages_by_token_and_compares_updated_to_the_minute(
    make_jira: Any, clock: FrozenClock
) -> None:
    standin: JiraStandin = await make_jira(clock=clock, page_limit=2)
    standin.seed(3, types=("Bug",))
    clock.advance(timedelta(minutes=5, seconds=30))
    (late,) = standin.seed(1, types=("Task",))
    keys: list[str] = []
    body: dict[str, Any] = {"jql": "project = FAB ORDER BY updated ASC, key ASC", "maxResults": 50}
    while True:
        status, page = await call(standin, "POST", "/search/jql", json=body)
        assert status == 200
        assert len(page["issues"]) <= 2
        keys += [issue["key"] for issue in page["issues"]]
        if page["isLast"]:
            break
        body["nextPageToken"] = page["nextPageToken"]
    assert keys == ["FAB-1", "FAB-2", "FAB-3", "FAB-4"]
    local = (clock.now() - timedelta(seconds=30)).astimezone(standin.zone)  # 06:05 UTC
    since = local.strftime("%Y-%m-%d %H:%M")
    jql = f'project = FAB AND updated >= "{since}" ORDER BY updated ASC'
    _, page = await call(standin, "POST", "/search/jql", json={"jql": jql, "fields": ["updated"]})
    assert [issue["key"] for issue in page["issues"]] == [late]
    assert set(page["issues"][0]["fields"]) == {"updated"}
    status, refused = await call(standin, "POST", "/search/jql", json={"jql": "summary ~ x"})
    assert status == 400 and refused["errorMessages"]


async def test_a_status_moves_only_through_a_transition_offered(jira: JiraStandin) -> None:
    (key,) = jira.seed(1)
    _, offered = await call(jira, "GET", f"/issue/{key}/transitions")
    assert [t["to"]["name"] for t in offered["transitions"]] == ["In Progress", "Done"]
    status, _ = await call(
        jira, "POST", f"/issue/{key}/transitions", json={"transition": {"id": "21"}}
    )
    assert status == 400
    assert jira.status_of(key) == "To Do"
    status, _ = await call(
        jira, "POST", f"/issue/{key}/transitions", json={"transition": {"id": "11"}}
    )
    assert status == 204
    assert jira.status_of(key) == "In Progress"
    jira.remove_transitions(to="Done")
    _, offered = await call(jira, "GET", f"/issue/{key}/transitions")
    assert [t["to"]["name"] for t in offered["transitions"]] == ["In Review", "To Do"]


async def test_an_edit_of_a_field_off_the_screen_is_refused(jira: JiraStandin) -> None:
    (key,) = jira.seed(1)
    status, body = await call(
        jira, "PUT", f"/issue/{key}", json={"fields": {"status": {"id": "1"}}}
    )
    assert status == 400 and "status" in body["errors"]
    assert (await call(jira, "PUT", f"/issue/{key}", json={"fields": {"summary": "B"}}))[0] == 204
    assert jira.issue(key).summary == "B"  # type: ignore[union-attr]


async def test_a_hidden_email_is_not_found_by_user_search(jira: JiraStandin) -> None:
    _, found = await call(jira, "GET", "/user/search", params={"query": "quinn@contoso.example"})
    assert found == []
    _, found = await call(jira, "GET", "/user/search", params={"query": "riley@contoso.example"})
    assert [u["displayName"] for u in found] == ["Riley Source"]


async def test_a_comment_is_edited_and_deleted_and_moves_the_issues_updated(
    jira: JiraStandin, clock: FrozenClock
) -> None:
    (key,) = jira.seed(1, types=("Bug",))
    said = {"type": "doc", "version": 1, "content": []}
    status, made = await call(jira, "POST", f"/issue/{key}/comment", json={"body": said})
    assert status == 201
    issue = jira.issue(key)
    assert issue is not None
    before = issue.updated
    clock.advance(timedelta(minutes=1))
    edited_body = {"type": "doc", "version": 1, "content": [{"type": "rule"}]}
    path = f"/issue/{key}/comment/{made['id']}"
    status, edited = await call(jira, "PUT", path, json={"body": edited_body})
    assert status == 200
    assert edited["body"] == edited_body and edited["updated"] != edited["created"]
    assert issue.updated > before
    assert (await call(jira, "DELETE", path))[0] == 204
    assert issue.comments == []
    assert (await call(jira, "DELETE", path))[0] == 404
    assert (await call(jira, "PUT", path, json={"body": edited_body}))[0] == 404


async def test_webhooks_are_signed_with_the_secret(jira: JiraStandin) -> None:
    received: list[tuple[bytes, str]] = []

    async def hook(request: web.Request) -> web.Response:
        received.append((await request.read(), request.headers["X-Hub-Signature"]))
        return web.Response(status=202)

    app = web.Application()
    app.router.add_post("/hook", hook)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        url = f"http://127.0.0.1:{runner.addresses[0][1]}/hook"
        (key,) = jira.seed(1)
        jira.add_webhook(url, "s3cret")
        jira.change(key, summary="Changed there")
        await jira.hooks_settled()
    finally:
        await runner.cleanup()
    ((body, signature),) = received
    assert signature == "sha256=" + hmac.new(b"s3cret", body, hashlib.sha256).hexdigest()
    assert b"jira:issue_updated" in body


async def test_the_stand_in_serves_on_its_own_for_trying_it_out() -> None:
    stop = asyncio.Event()
    ready: asyncio.Future[JiraStandin] = asyncio.get_running_loop().create_future()
    serving = asyncio.ensure_future(
        serve(port=0, seed=3, token="try-it", stop=stop, ready=ready.set_result)
    )
    try:
        standin = await finished(ready, "the stand-in to serve")
        body = {"jql": "project = FAB", "maxResults": 10}
        status, page = await call(standin, "POST", "/search/jql", token="try-it", json=body)
        assert status == 200 and len(page["issues"]) == 3
        assert problems_of(standin.exchanges) == []
    finally:
        stop.set()
        await finished(serving, "the stand-in to stop")
