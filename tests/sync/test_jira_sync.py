"""The sync engine through the Jira connector and the local Jira over HTTP, on both databases:
a linked project is imported, changes here go out (an edit and a transition), changes there come
in by polling and by a signed webhook, and what Jira refuses lands on the item."""

from datetime import timedelta
from typing import Any

from aiohttp.test_utils import TestClient

from bot.clock import FrozenClock
from bot.keys import WORKER
from bot.sync.jira.adf import to_adf
from bot.sync.standins.jira import HIDDEN, JiraStandin, signature
from tests.factories import Factory, Member
from tests.sync.jira_fixtures import JIRA_STATES, jira, jira_body, link_jira, make_jira
from tests.sync.linking import bugs, run_jobs, sync_status

__all__ = ["jira", "make_jira"]


async def patch_bug(client: TestClient, member: Member, bug_id: str, **values: Any) -> None:
    patched = await client.patch(f"/odata/bugs({bug_id})", json=values, headers=member.in_channel())
    assert patched.status == 204, await patched.text()


async def test_a_linked_project_is_imported_with_statuses_priorities_and_people(
    client, factory: Factory, jira: JiraStandin
) -> None:
    ada = await factory.member("Ada Lovelace")
    jira.add_user("Ada Lovelace", ada.user.email)
    jira.seed(
        3,
        types=("Bug",),
        values=lambda n: {
            "status": ["In Progress", "To Do", "Done"][n],
            "priority": ["Highest", "Low", "Medium"][n],
            "assignee": [ada.user.email, "riley@contoso.example", None][n],
            "description": [
                {
                    "type": "doc",
                    "version": 1,
                    "content": [
                        {"type": "paragraph", "content": [{"type": "text", "text": "Steps"}]}
                    ],
                },
                None,
                None,
            ][n],
        },
    )
    project = await link_jira(client, ada, jira)
    imported = sorted(await bugs(client, ada), key=lambda bug: bug["sourceId"])
    assert [bug["sourceId"] for bug in imported] == ["FAB-1", "FAB-2", "FAB-3"]
    assert [bug["name"] for bug in imported] == ["Issue 0", "Issue 1", "Issue 2"]
    assert {bug["source"] for bug in imported} == {"Jira"}
    assert imported[0]["body"] == "Steps"
    assert [bug["status"] for bug in imported] == ["In Progress", "Not Started", "Completed"]
    assert [a["_id"] for a in imported[0]["assignedTo"]] == [ada.user.id]
    assert imported[1]["sync"]["unmatched"] == ["Riley Source"]
    assert imported[0]["priority"] != imported[1]["priority"]
    status = await sync_status(client, ada, project["_id"])
    assert status["counts"]["imported"] == 3
    assert status["state"] == "running"


async def test_a_change_here_goes_out_as_an_edit_and_a_transition(
    client, factory: Factory, jira: JiraStandin
) -> None:
    ada = await factory.member()
    (key,) = jira.seed(1, types=("Bug",))
    await link_jira(client, ada, jira)
    (bug,) = await bugs(client, ada)
    await patch_bug(
        client, ada, bug["_id"], name="Renamed here", body="- one\n- [two](https://x.example)"
    )
    await patch_bug(client, ada, bug["_id"], status="In Progress")
    await run_jobs(client)
    issue = jira.issue(key)
    assert issue is not None
    assert issue.summary == "Renamed here"
    assert jira.status_of(key) == "In Progress"
    (put,) = jira.exchanges_to("PUT")
    assert put.request_body["fields"]["description"]["content"][0]["type"] == "bulletList"
    (moved,) = jira.exchanges_to("POST", "/transitions")
    assert moved.request_body == {"transition": {"id": "11"}}
    (synced,) = await bugs(client, ada)
    assert synced["sync"]["status"] is None
    assert synced["body"] == "- one\n- [two](https://x.example)"


async def test_a_missing_transition_leaves_the_status_there_and_says_what_was_offered(
    client, factory: Factory, jira: JiraStandin
) -> None:
    ada = await factory.member()
    (key,) = jira.seed(1, types=("Bug",))
    project = await link_jira(client, ada, jira)
    jira.remove_transitions(to="Done")
    (bug,) = await bugs(client, ada)
    await patch_bug(client, ada, bug["_id"], status="Completed")
    await run_jobs(client)
    assert jira.status_of(key) == "To Do"
    (refused,) = await bugs(client, ada)
    assert refused["sync"]["status"] == "Svc_TRANSITION_NOTFOUND"
    assert refused["status"] == "Completed"
    log = (await sync_status(client, ada, project["_id"]))["log"]
    assert any("Svc_TRANSITION_NOTFOUND" in line["message"] and "In Progress" in line["message"]
               for line in log)  # fmt: skip
    await patch_bug(client, ada, bug["_id"], status="In Progress")
    await run_jobs(client)
    assert jira.status_of(key) == "In Progress"
    (moved,) = await bugs(client, ada)
    assert moved["sync"]["status"] is None


async def test_a_change_there_arrives_by_polling_and_is_not_sent_back(
    client, factory: Factory, jira: JiraStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    (key,) = jira.seed(1, types=("Bug",))
    await link_jira(client, ada, jira)
    clock.advance(timedelta(minutes=1))
    jira.change(key, summary="Renamed there", status="Done")
    clock.advance(timedelta(seconds=61))
    await run_jobs(client)
    (bug,) = await bugs(client, ada)
    assert bug["name"] == "Renamed there"
    assert bug["status"] == "Completed"
    assert jira.exchanges_to("PUT") == []
    assert jira.exchanges_to("POST", "/transitions") == []
    # From two minutes before the last change read (06:00 UTC), in the account's time zone.
    (poll,) = [
        x for x in jira.exchanges_to("POST", "/search/jql") if "updated" in x.request_body["jql"]
    ][-1:]
    assert 'updated >= "2026-12-07 16:58"' in poll.request_body["jql"]


async def test_a_signed_webhook_has_the_project_read_now_and_a_bad_one_is_refused(
    client, factory: Factory, jira: JiraStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    (key,) = jira.seed(1, types=("Bug",))
    project = await link_jira(client, ada, jira)
    secret, pid = project["hookSecret"], project["_id"]
    clock.advance(timedelta(seconds=5))  # before the next poll is due
    jira.change(key, summary="Renamed there")
    body = b'{"webhookEvent": "jira:issue_updated", "issue": {"key": "FAB-1"}}'
    for wrong in ("", signature("not-the-secret", body), signature(secret, body + b" ")):
        refused = await client.post(
            f"/api/sync/hooks/{pid}", data=body, headers={"X-Hub-Signature": wrong}
        )
        assert refused.status == 401
    await run_jobs(client)
    assert (await bugs(client, ada))[0]["name"] == "Issue 0"
    # The webhook a Jira administrator registered with the secret calls, signed.
    jira.add_webhook(str(client.make_url(f"/api/sync/hooks/{pid}")), secret)
    jira.change(key, priority="High")
    await jira.hooks_settled()
    assert [call.status for call in jira.hook_calls] == [202]
    await run_jobs(client)
    assert (await bugs(client, ada))[0]["name"] == "Renamed there"


async def test_updated_moved_there_is_pulled_then_the_change_is_retried(
    client, factory: Factory, jira: JiraStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    (key,) = jira.seed(1, types=("Bug",))
    await link_jira(client, ada, jira)
    (bug,) = await bugs(client, ada)
    clock.advance(timedelta(seconds=1))
    jira.change(key, priority="Highest")  # there, not yet pulled
    await patch_bug(client, ada, bug["_id"], name="Renamed here")
    await run_jobs(client)
    issue = jira.issue(key)
    assert issue is not None
    assert (issue.summary, issue.priority) == ("Renamed here", "Highest")
    assert len(jira.exchanges_to("PUT")) == 1
    (synced,) = await bugs(client, ada)
    assert synced["name"] == "Renamed here"
    assert synced["sync"]["status"] is None


async def test_a_revoked_token_pauses_the_sync(client, factory: Factory, jira: JiraStandin) -> None:
    ada = await factory.member()
    jira.seed(1, types=("Bug",))
    project = await link_jira(client, ada, jira)
    jira.revoke_token()
    (bug,) = await bugs(client, ada)
    await patch_bug(client, ada, bug["_id"], name="Waits")
    await run_jobs(client)
    status = await sync_status(client, ada, project["_id"])
    assert status["state"] == "paused"
    assert "401" in status["lastError"]["message"]
    assert jira.token not in str(status)
    sent = len(jira.exchanges)
    await run_jobs(client)
    assert len(jira.exchanges) == sent


async def test_rich_text_written_there_round_trips_through_an_edit_here(
    client, factory: Factory, jira: JiraStandin
) -> None:
    ada = await factory.member()
    text = "Steps:\n\n1. open `app`\n2. see [docs](https://x.example)\n\n```sh\nrun --fast\n```"
    (key,) = jira.seed(1, types=("Bug",), values=lambda _: {"description": to_adf(text)})
    await link_jira(client, ada, jira)
    (bug,) = await bugs(client, ada)
    assert bug["body"] == text
    await patch_bug(client, ada, bug["_id"], name="Renamed here")
    await run_jobs(client)
    issue = jira.issue(key)
    assert issue is not None and issue.description == to_adf(text)
    (put,) = jira.exchanges_to("PUT")
    assert put.request_body == {"fields": {"summary": "Renamed here"}}


async def test_a_429_is_waited_out_for_its_retry_after_and_nothing_is_lost(
    client, factory: Factory, jira: JiraStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    keys = jira.seed(3, types=("Bug",))
    await link_jira(client, ada, jira)
    client.app[WORKER].batch = 1  # one request at a time: each can heed the 429 before it
    jira.throttle(2, window_seconds=5)
    for bug in await bugs(client, ada):
        await patch_bug(client, ada, bug["_id"], name=f"Here {bug['sourceId']}")
    for _ in range(200):
        await run_jobs(client)
        there = all(jira.issue(k).summary == f"Here {k}" for k in keys)  # type: ignore[union-attr]
        if there and {bug["sync"]["status"] for bug in await bugs(client, ada)} == {None}:
            break
        clock.advance(timedelta(milliseconds=500))
    else:
        raise AssertionError("the changes never all went out")
    assert any(x.status == 429 for x in jira.exchanges)
    assert jira.throttle_violations == []


async def test_a_link_reads_the_statuses_and_a_refused_one_stores_nothing(
    client, factory: Factory, jira: JiraStandin
) -> None:
    ada = await factory.member()
    body = jira_body(jira, token="wrong-token")
    body.pop("states")
    refused = await client.post("/api/projects", json=body, headers=ada.in_channel())
    assert refused.status == 400
    said = await refused.text()
    assert "email, token" in said and "wrong-token" not in said
    odd = jira_body(jira, sync={"enabled": True, "itemTypes": {"Bug": "Epic"}})
    odd.pop("states")
    assert (await client.post("/api/projects", json=odd, headers=ada.in_channel())).status == 400
    listed = await client.get("/api/projects", headers=ada.in_channel())
    assert [p["source"] for p in (await listed.json())["value"]] == ["Svc.Native"]
    linked = jira_body(jira)
    linked.pop("states")
    made = await client.post("/api/projects", json=linked, headers=ada.in_channel())
    assert made.status == 201, await made.text()
    states = (await made.json())["states"]
    assert [(s["id"], s["name"], s["category"]) for s in states] == [
        (s["id"], s["name"], s["category"]) for s in JIRA_STATES
    ]


async def test_a_user_whose_email_jira_hides_is_matched_by_hand_both_ways(
    client, factory: Factory, jira: JiraStandin, clock: FrozenClock
) -> None:
    ada = await factory.member("Ada Lovelace")
    (first, second) = jira.seed(2, types=("Bug",), values=lambda n: {"assignee": HIDDEN.email})
    await link_jira(client, ada, jira)
    assert {bug["sync"]["unmatched"][0] for bug in await bugs(client, ada)} == {"Quinn Private"}
    mapped = await client.patch(
        f"/api/users/{ada.user.id}",
        json={
            "mapping": [
                {"source": "Jira", "sourceId": HIDDEN.account_id, "projectHostname": jira.base_url}
            ]
        },
        headers=ada.in_channel(),
    )
    assert mapped.status == 200, await mapped.text()
    clock.advance(timedelta(minutes=1))
    jira.change(first, summary="Touched there")
    jira.change(second, assignee=None)
    clock.advance(timedelta(seconds=61))
    await run_jobs(client)
    by_key = {bug["sourceId"]: bug for bug in await bugs(client, ada)}
    assert [a["_id"] for a in by_key[first]["assignedTo"]] == [ada.user.id]
    await patch_bug(client, ada, by_key[second]["_id"], assignedTo=[ada.user.id])
    await run_jobs(client)
    assert jira.issue(second).assignee == HIDDEN.account_id  # type: ignore[union-attr]
    assert jira.exchanges_to("GET", "/user/search") == []


async def test_an_item_made_here_in_a_status_the_workflow_cannot_reach_is_made_there_once(
    client, factory: Factory, jira: JiraStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    jira.seed(1, types=("Bug",))
    project = await link_jira(client, ada, jira)
    jira.remove_transitions(to="Done")
    made = await client.post(
        "/odata/bugs",
        json={"name": "New here", "projectId": project["_id"], "status": "Completed"},
        headers=ada.in_channel(),
    )
    assert made.status == 201, await made.text()
    await run_jobs(client)
    clock.advance(timedelta(seconds=61))
    await run_jobs(client)
    (issue,) = [i for i in jira.issues if i.summary == "New here"]
    assert jira.status_of(issue.key) == "To Do"
    (bug,) = [b for b in await bugs(client, ada) if b["name"] == "New here"]
    assert bug["sourceId"] == issue.key
    assert (bug["status"], bug["sync"]["status"]) == ("Completed", "Svc_TRANSITION_NOTFOUND")
    assert (
        len(jira.exchanges_to("POST", "/rest/api/3/issue"))
        - len(jira.exchanges_to("POST", "/rest/api/3/issue/"))
        == 1
    )


async def test_a_status_added_in_jira_arrives_unmapped_on_refresh(
    client, factory: Factory, jira: JiraStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    (key,) = jira.seed(1, types=("Bug",))
    project = await link_jira(client, ada, jira)
    blocked = jira.add_status("Blocked")
    refreshed = await client.post(
        f"/api/projects/{project['_id']}/refresh", headers=ada.in_channel()
    )
    assert refreshed.status == 200, await refreshed.text()
    states = {s["id"]: (s["name"], s["category"]) for s in (await refreshed.json())["states"]}
    assert states[blocked] == ("Blocked", "Active")
    clock.advance(timedelta(minutes=1))
    jira.change(key, status="Blocked")
    clock.advance(timedelta(seconds=61))
    await run_jobs(client)
    (bug,) = await bugs(client, ada)
    assert (bug["status"], bug["sync"]["status"]) == ("Invalid", "Svc_MAPPING_NOTFOUND")
