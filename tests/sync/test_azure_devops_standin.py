"""The local Azure DevOps, driven by a plain aiohttp client as the connector would drive it.
Every exchange of these tests is checked against the published description at teardown."""

import asyncio
import base64
from collections.abc import AsyncIterator
from datetime import timedelta

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from bot.clock import FrozenClock
from bot.sync.standins.azure_devops import OWNER, SOMEONE_ELSE, AzureDevOpsStandin
from bot.sync.standins.azure_devops.__main__ import serve
from tests.sync.ado_client import AdoClient, wiql
from tests.sync.standin_fixtures import MakeAzureDevOps
from tests.vendor_apis.conformance import problems_of
from tests.waiting import finished, until, until_set

ADA = "Ada <ada@contoso.example>"
DUE = "Microsoft.VSTS.Scheduling.DueDate"


def title(text: str) -> list[dict[str, str]]:
    return [{"op": "add", "path": "/fields/System.Title", "value": text}]


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


@pytest.fixture
def ado(http: aiohttp.ClientSession, azure_devops: AzureDevOpsStandin) -> AdoClient:
    return AdoClient(http, azure_devops)


def ids(answer_body: dict) -> list[int]:  # type: ignore[type-arg]
    return [ref["id"] for ref in answer_body["workItems"]]


# Projects and work item types


async def test_the_project_is_found_by_name_or_id_with_its_default_team(ado: AdoClient) -> None:
    by_name = await ado.project("fabrikam")
    assert by_name.status == 200
    assert by_name.body["name"] == "Fabrikam"
    assert by_name.body["defaultTeam"]["name"] == "Fabrikam Team"
    by_id = await ado.project(by_name.body["id"])
    assert by_id.status == 200 and by_id.body["name"] == "Fabrikam"


async def test_an_unknown_project_is_404(ado: AdoClient) -> None:
    answer = await ado.project("Nowhere")
    assert answer.status == 404
    assert "TF200016" in answer.body["message"]


async def test_a_types_states_come_with_their_categories(ado: AdoClient) -> None:
    answer = await ado.call("GET", "/Fabrikam/_apis/wit/workitemtypes/Bug/states")
    assert answer.status == 200
    assert answer.body["count"] == 4
    assert [(s["name"], s["category"]) for s in answer.body["value"]] == [
        ("New", "Proposed"),
        ("Active", "InProgress"),
        ("Resolved", "Resolved"),
        ("Closed", "Completed"),
    ]
    unknown = await ado.call("GET", "/Fabrikam/_apis/wit/workitemtypes/Epic/states")
    assert unknown.status == 404


async def test_a_state_added_there_is_listed_and_usable(
    ado: AdoClient, azure_devops: AzureDevOpsStandin, make_azure_devops: MakeAzureDevOps
) -> None:
    [bug] = azure_devops.seed(1, types=("Bug",))
    azure_devops.add_state("Bug", "In Review", category="Resolved")
    answer = await ado.call("GET", "/Fabrikam/_apis/wit/workitemtypes/Bug/states")
    added = answer.body["value"][-1]
    assert (added["name"], added["category"]) == ("In Review", "Resolved")
    state = [{"op": "add", "path": "/fields/System.State", "value": "In Review"}]
    moved = await ado.patch(bug, state)
    assert moved.body["fields"]["System.State"] == "In Review"
    other = await make_azure_devops()  # another stand-in keeps the process as it was
    assert other.store.types["Bug"].state("In Review") is None


async def test_a_bug_has_repro_steps_and_severity_and_a_task_has_neither(ado: AdoClient) -> None:
    path = "/Fabrikam/_apis/wit/workitemtypes/{}/fields"
    bug = await ado.call("GET", path.format("Bug"), **{"$expand": "allowedValues"})
    task = await ado.call("GET", path.format("Task"))
    bug_fields = {f["referenceName"]: f for f in bug.body["value"]}
    task_fields = {f["referenceName"] for f in task.body["value"]}
    assert {"Microsoft.VSTS.TCM.ReproSteps", "Microsoft.VSTS.Common.Severity"} <= set(bug_fields)
    assert not {"Microsoft.VSTS.TCM.ReproSteps", "Microsoft.VSTS.Common.Severity"} & task_fields
    assert "Microsoft.VSTS.Scheduling.DueDate" in task_fields
    assert bug_fields["Microsoft.VSTS.Common.Priority"]["allowedValues"] == [1, 2, 3, 4]


# WIQL and batch reads


async def test_wiql_lists_in_changed_date_order_and_pages_by_changed_date(
    ado: AdoClient, azure_devops: AzureDevOpsStandin
) -> None:
    seeded = azure_devops.seed(5)
    azure_devops.change(seeded[0], {"System.Title": "Changed last"})
    everything = await ado.query(wiql(), timePrecision="true")
    assert everything.status == 200
    assert ids(everything.body) == [*seeded[1:], seeded[0]]

    # A page of three, then everything changed after the last one seen.
    first = await ado.query(wiql(), timePrecision="true", **{"$top": "3"})
    assert ids(first.body) == seeded[1:4]
    last_seen = azure_devops.work_item(seeded[3])["fields"]["System.ChangedDate"]  # type: ignore[index]
    rest = await ado.query(wiql(since=last_seen), timePrecision="true")
    assert ids(rest.body) == [seeded[4], seeded[0]]


async def test_wiql_refuses_more_than_its_limit_without_top(
    http: aiohttp.ClientSession, make_azure_devops: MakeAzureDevOps
) -> None:
    standin = await make_azure_devops(wiql_limit=3)
    ado = AdoClient(http, standin)
    standin.seed(4)
    refused = await ado.query(wiql(), timePrecision="true")
    assert refused.status == 400
    assert "VS402337" in refused.body["message"]
    capped = await ado.query(wiql(), timePrecision="true", **{"$top": "10"})
    assert len(ids(capped.body)) == 3


async def test_wiql_narrows_to_an_area_path(
    ado: AdoClient, azure_devops: AzureDevOpsStandin
) -> None:
    seeded = azure_devops.seed(4)
    azure_devops.change(seeded[1], {"System.AreaPath": "Fabrikam\\Web"})
    azure_devops.change(seeded[2], {"System.AreaPath": "Fabrikam\\Web\\Login"})
    azure_devops.change(seeded[3], {"System.AreaPath": "Fabrikam\\Website"})
    answer = await ado.query(wiql(area="Fabrikam\\Web"), timePrecision="true")
    assert ids(answer.body) == [seeded[1], seeded[2]]


async def test_wiql_needs_time_precision_to_compare_times(
    ado: AdoClient, azure_devops: AzureDevOpsStandin
) -> None:
    azure_devops.seed(1)
    answer = await ado.query(wiql(since="2026-01-01T10:00:00.000Z"))
    assert answer.status == 400
    assert "timePrecision" in answer.body["message"]


@pytest.mark.parametrize(
    "query",
    [
        "SELECT [System.Id], [System.Title] FROM WorkItems",
        wiql().replace("ORDER BY [System.ChangedDate] ASC, ", "ORDER BY "),
        wiql() + " AND [System.State] = 'New'",
        wiql(area="Fabrikam").replace("UNDER", "="),
    ],
)
async def test_wiql_refuses_any_other_shape(ado: AdoClient, query: str) -> None:
    answer = await ado.query(query, timePrecision="true")
    assert answer.status == 400
    assert answer.body["typeKey"] == "QueryException"


async def test_a_batch_reads_up_to_200_items_with_the_fields_asked_for(
    ado: AdoClient, azure_devops: AzureDevOpsStandin
) -> None:
    seeded = azure_devops.seed(201)
    answer = await ado.batch(seeded[:200], fields=["System.Title", "System.State"])
    assert answer.status == 200
    assert answer.body["count"] == 200
    assert answer.body["value"][7]["fields"] == {
        "System.Title": "Work item 7",
        "System.State": "New",
    }
    refused = await ado.batch(seeded)
    assert refused.status == 400
    assert "200" in refused.body["message"]


async def test_a_batch_omits_a_deleted_item_only_when_asked_to(
    ado: AdoClient, azure_devops: AzureDevOpsStandin
) -> None:
    seeded = azure_devops.seed(2)
    azure_devops.delete(seeded[0])
    assert (await ado.batch(seeded)).status == 404
    omitted = await ado.batch(seeded, errorPolicy="omit")
    assert omitted.body["value"][0] is None
    assert omitted.body["value"][1]["id"] == seeded[1]


async def test_ten_thousand_items_seed_and_list(
    ado: AdoClient, azure_devops: AzureDevOpsStandin
) -> None:
    seeded = azure_devops.seed(10_000)
    answer = await ado.query(wiql(), timePrecision="true")
    assert ids(answer.body) == seeded


# One work item


async def test_create_read_update_and_delete_a_work_item(
    ado: AdoClient, azure_devops: AzureDevOpsStandin
) -> None:
    made = await ado.create(
        "Task",
        [
            {"op": "add", "path": "/fields/System.Title", "value": "Write the guide"},
            {"op": "add", "path": "/fields/System.AssignedTo", "value": ADA},
            {"op": "add", "path": "/fields/Microsoft.VSTS.Common.Priority", "value": "1"},
            {"op": "add", "path": f"/fields/{DUE}", "value": "2026-12-24"},
        ],
    )
    assert made.status == 200
    item_id, fields = made.body["id"], made.body["fields"]
    assert made.body["rev"] == 1
    assert fields["System.State"] == "New"
    assert fields["System.AssignedTo"]["uniqueName"] == "ada@contoso.example"
    assert fields["Microsoft.VSTS.Common.Priority"] == 1
    assert fields[DUE] == "2026-12-24T00:00:00.000Z"
    assert fields["System.CreatedBy"]["uniqueName"] == "tracker@contoso.example"

    changed = await ado.patch(
        item_id,
        [
            {"op": "test", "path": "/rev", "value": 1},
            {"op": "replace", "path": "/fields/System.State", "value": "Closed"},
            {"op": "remove", "path": "/fields/System.AssignedTo"},
        ],
    )
    assert changed.status == 200
    assert changed.body["rev"] == 2
    assert changed.body["fields"]["System.State"] == "Closed"
    assert "System.AssignedTo" not in changed.body["fields"]
    assert "Microsoft.VSTS.Common.ClosedDate" in changed.body["fields"]
    assert changed.body["fields"]["System.ChangedDate"] > fields["System.ChangedDate"]

    read = await ado.read(item_id)
    assert read.body["fields"] == changed.body["fields"]

    deleted = await ado.delete(item_id)
    assert deleted.status == 200 and deleted.body["id"] == item_id
    assert azure_devops.in_recycle_bin(item_id)
    assert (await ado.read(item_id)).status == 404
    assert (await ado.patch(item_id, title("x"))).status == 404


async def test_a_change_sent_twice_makes_one_revision(
    ado: AdoClient, azure_devops: AzureDevOpsStandin
) -> None:
    [item_id] = azure_devops.seed(1)
    change = [{"op": "replace", "path": "/fields/System.State", "value": "Active"}]
    first, again = await ado.patch(item_id, change), await ado.patch(item_id, change)
    assert (first.body["rev"], again.body["rev"]) == (2, 2)
    assert again.body["fields"] == first.body["fields"]


async def test_a_change_there_is_by_another_user_and_makes_a_revision(
    ado: AdoClient, azure_devops: AzureDevOpsStandin
) -> None:
    [item_id] = azure_devops.seed(1, types=("Bug",))
    rev = azure_devops.change(item_id, {"Microsoft.VSTS.Common.Severity": "1 - Critical"})
    read = await ado.read(item_id)
    assert read.body["rev"] == rev == 2
    assert read.body["fields"]["System.ChangedBy"]["uniqueName"] == "riley@contoso.example"
    assert read.body["fields"]["Microsoft.VSTS.Common.Severity"] == "1 - Critical"


async def test_a_stale_rev_is_refused_with_412_and_changes_nothing(
    ado: AdoClient, azure_devops: AzureDevOpsStandin
) -> None:
    [item_id] = azure_devops.seed(1)
    azure_devops.change(item_id, {"System.Title": "Renamed there"})
    answer = await ado.patch(
        item_id,
        [
            {"op": "test", "path": "/rev", "value": 1},
            {"op": "replace", "path": "/fields/System.Title", "value": "Renamed here"},
        ],
    )
    assert answer.status == 412
    assert "TF26071" in answer.body["message"]
    after = azure_devops.work_item(item_id)
    assert after is not None
    assert (after["rev"], after["fields"]["System.Title"]) == (2, "Renamed there")


@pytest.mark.parametrize(
    ("operations", "says"),
    [
        ([{"op": "add", "path": "/fields/Microsoft.VSTS.TCM.ReproSteps", "value": "x"}], "TF51535"),
        ([{"op": "add", "path": "/fields/System.State", "value": "Resolved"}], "TF401320"),
        ([{"op": "add", "path": "/fields/Microsoft.VSTS.Common.Priority", "value": 7}], "TF401320"),
        ([{"op": "add", "path": f"/fields/{DUE}", "value": "soon"}], "Due Date"),
        ([{"op": "add", "path": "/fields/System.ChangedDate", "value": "2020-01-01"}], "ReadOnly"),
        ([{"op": "remove", "path": "/fields/System.Title"}], "Title"),
        ([{"op": "move", "path": "/fields/System.Title", "from": "/fields/System.Tags"}], "move"),
        ([{"op": "add", "path": "/relations/-", "value": {}}], "/relations/-"),
        ([], "patch document"),
    ],
)
async def test_a_patch_the_type_does_not_allow_is_400_and_changes_nothing(
    ado: AdoClient,
    azure_devops: AzureDevOpsStandin,
    operations: list[dict],
    says: str,  # type: ignore[type-arg]
) -> None:
    [task] = azure_devops.seed(1, types=("Task",))
    answer = await ado.patch(task, operations)
    assert answer.status == 400
    assert says in answer.body["message"]
    assert azure_devops.work_item(task)["rev"] == 1  # type: ignore[index]


async def test_a_work_item_needs_a_title(ado: AdoClient, azure_devops: AzureDevOpsStandin) -> None:
    answer = await ado.create("Bug", [{"op": "add", "path": "/fields/System.Tags", "value": "x"}])
    assert answer.status == 400
    assert not azure_devops.store.items


# Comments


async def test_comments_are_added_and_listed_and_make_a_revision(
    ado: AdoClient, azure_devops: AzureDevOpsStandin
) -> None:
    [item_id] = azure_devops.seed(1)
    there = azure_devops.comment(item_id, "<p>Seen there</p>")
    made = await ado.comment(item_id, "<p>Said here</p>")
    assert made.status == 200
    assert made.body["createdBy"]["uniqueName"] == "tracker@contoso.example"
    listed = await ado.comments(item_id)
    assert [c["text"] for c in listed.body["comments"]] == ["<p>Seen there</p>", "<p>Said here</p>"]
    assert listed.body["totalCount"] == 2
    by_id = await ado.comments(item_id, ids=str(there))
    assert [c["id"] for c in by_id.body["comments"]] == [there]
    item = azure_devops.work_item(item_id)
    assert item is not None
    assert (item["rev"], item["fields"]["System.CommentCount"]) == (3, 2)
    assert (await ado.comments(999)).status == 404


async def test_a_comment_is_edited_and_deleted_each_a_revision_of_its_item(
    ado: AdoClient, azure_devops: AzureDevOpsStandin
) -> None:
    [item_id] = azure_devops.seed(1)
    made = await ado.comment(item_id, "<p>First</p>")
    edited = await ado.edit_comment(item_id, made.body["id"], "<p>Second</p>")
    assert edited.status == 200
    assert (edited.body["text"], edited.body["version"]) == ("<p>Second</p>", 2)
    assert [c["text"] for c in (await ado.comments(item_id)).body["comments"]] == ["<p>Second</p>"]
    item = azure_devops.work_item(item_id)
    assert item is not None
    assert (item["rev"], item["fields"]["System.CommentCount"]) == (3, 1)
    assert (await ado.delete_comment(item_id, made.body["id"])).status == 200
    assert (await ado.comments(item_id)).body["comments"] == []
    item = azure_devops.work_item(item_id)
    assert item is not None
    assert (item["rev"], item["fields"]["System.CommentCount"]) == (4, 0)
    assert (await ado.delete_comment(item_id, made.body["id"])).status == 404
    assert (await ado.edit_comment(item_id, made.body["id"], "<p>Late</p>")).status == 404


# Credentials


@pytest.mark.parametrize("token", [None, "not-the-token"])
async def test_a_missing_or_wrong_token_is_401(ado: AdoClient, token: str | None) -> None:
    ado.token = token
    answer = await ado.project("Fabrikam")
    assert answer.status == 401


async def test_a_revoked_token_is_401_and_another_still_works(
    ado: AdoClient, azure_devops: AzureDevOpsStandin
) -> None:
    azure_devops.add_token("second-pat")
    azure_devops.revoke_token()
    assert (await ado.project("Fabrikam")).status == 401
    ado.token = "second-pat"
    assert (await ado.project("Fabrikam")).status == 200


async def test_the_user_name_beside_a_pat_is_ignored(
    http: aiohttp.ClientSession, azure_devops: AzureDevOpsStandin
) -> None:
    pair = base64.b64encode(f"anyone:{azure_devops.token}".encode()).decode()
    url = f"{azure_devops.org_url}/_apis/projects/Fabrikam?api-version=7.1"
    async with http.get(url, headers={"Authorization": f"Basic {pair}"}) as answer:
        assert answer.status == 200


# Service hooks


@pytest.fixture
async def receiver() -> AsyncIterator[tuple[TestServer, list[tuple[str, dict]]]]:  # type: ignore[type-arg]
    calls: list[tuple[str, dict]] = []  # type: ignore[type-arg]

    async def receive(request: web.Request) -> web.Response:
        calls.append((request.headers.get("Authorization", ""), await request.json()))
        return web.Response(status=200)

    app = web.Application()
    app.router.add_post("/api/sync/hooks/p1", receive)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    yield server, calls
    await server.close()


def subscription(standin: AzureDevOpsStandin, url: str, event_type: str) -> dict:  # type: ignore[type-arg]
    return {
        "publisherId": "tfs",
        "eventType": event_type,
        "resourceVersion": "1.0",
        "consumerId": "webHooks",
        "consumerActionId": "httpRequest",
        "publisherInputs": {"projectId": standin.project_id},
        "consumerInputs": {
            "url": url,
            "basicAuthUsername": "tracker",
            "basicAuthPassword": "hook-secret",
        },
    }


async def test_hooks_call_the_receiver_with_basic_credentials_and_the_event(
    ado: AdoClient,
    azure_devops: AzureDevOpsStandin,
    receiver: tuple[TestServer, list],  # type: ignore[type-arg]
) -> None:
    server, calls = receiver
    url = str(server.make_url("/api/sync/hooks/p1"))
    for event_type in ("workitem.created", "workitem.updated", "workitem.deleted"):
        made = await ado.call(
            "POST", "/_apis/hooks/subscriptions", body=subscription(azure_devops, url, event_type)
        )
        assert made.status == 200
        assert made.body["consumerInputs"]["basicAuthPassword"] == "********"

    item_id = azure_devops.create("Bug", {"System.Title": "Made there"})
    azure_devops.change(item_id, {"System.State": "Active"})
    await ado.delete(item_id)
    await until(lambda: len(calls) == 3, "three hook calls")

    expected = "Basic " + base64.b64encode(b"tracker:hook-secret").decode()
    assert {auth for auth, _ in calls} == {expected}
    by_type = {body["eventType"]: body for _, body in calls}
    assert by_type["workitem.created"]["resource"]["id"] == item_id
    assert by_type["workitem.updated"]["resource"]["workItemId"] == item_id
    assert by_type["workitem.updated"]["resource"]["fields"]["System.State"] == {
        "oldValue": "New",
        "newValue": "Active",
    }
    assert by_type["workitem.deleted"]["resource"]["id"] == item_id
    assert all(c.status == 200 for c in azure_devops.hook_calls)


async def test_a_hook_call_never_holds_the_change(
    ado: AdoClient, azure_devops: AzureDevOpsStandin
) -> None:
    arrived, release = asyncio.Event(), asyncio.Event()

    async def slow(request: web.Request) -> web.Response:
        arrived.set()
        await release.wait()
        return web.Response()

    app = web.Application()
    app.router.add_post("/slow", slow)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    try:
        url = str(server.make_url("/slow"))
        await ado.call(
            "POST",
            "/_apis/hooks/subscriptions",
            body=subscription(azure_devops, url, "workitem.updated"),
        )
        [item_id] = azure_devops.seed(1)
        azure_devops.change(item_id, {"System.Title": "Now"})
        await until_set(arrived, "the hook call")
        answer = await ado.patch(item_id, title("Again"))
        assert answer.status == 200
        release.set()
        await finished(azure_devops.hooks_settled(), "the hook calls")
    finally:
        release.set()
        await server.close()


async def test_subscriptions_are_listed_read_and_deleted(
    ado: AdoClient, azure_devops: AzureDevOpsStandin
) -> None:
    body = subscription(azure_devops, "http://127.0.0.1:9/nowhere", "workitem.updated")
    made = await ado.call("POST", "/_apis/hooks/subscriptions", body=body)
    sub_id = made.body["id"]
    listed = await ado.call("GET", "/_apis/hooks/subscriptions", eventType="workitem.updated")
    assert [s["id"] for s in listed.body["value"]] == [sub_id]
    assert (await ado.call("GET", f"/_apis/hooks/subscriptions/{sub_id}")).status == 200
    assert (await ado.call("DELETE", f"/_apis/hooks/subscriptions/{sub_id}")).status == 200
    assert (await ado.call("GET", f"/_apis/hooks/subscriptions/{sub_id}")).status == 404
    assert not azure_devops.subscriptions


async def test_a_subscription_for_another_event_or_project_is_400(
    ado: AdoClient, azure_devops: AzureDevOpsStandin
) -> None:
    body = subscription(azure_devops, "http://127.0.0.1:9/x", "build.complete")
    assert (await ado.call("POST", "/_apis/hooks/subscriptions", body=body)).status == 400
    body = subscription(azure_devops, "http://127.0.0.1:9/x", "workitem.updated")
    body["publisherInputs"]["projectId"] = "00000000-0000-0000-0000-000000000000"
    assert (await ado.call("POST", "/_apis/hooks/subscriptions", body=body)).status == 400
    assert not azure_devops.subscriptions


async def test_a_token_without_the_hooks_permission_is_403_on_subscriptions_only(
    ado: AdoClient, azure_devops: AzureDevOpsStandin
) -> None:
    azure_devops.add_token("read-write-only", hooks=False)
    ado.token = "read-write-only"
    body = subscription(azure_devops, "http://127.0.0.1:9/x", "workitem.updated")
    assert (await ado.call("POST", "/_apis/hooks/subscriptions", body=body)).status == 403
    assert (await ado.call("GET", "/_apis/hooks/subscriptions")).status == 403
    assert (await ado.project("Fabrikam")).status == 200


# Failures on demand


async def test_throttled_requests_get_429_with_retry_after_and_early_returns_are_counted(
    http: aiohttp.ClientSession, make_azure_devops: MakeAzureDevOps, clock: FrozenClock
) -> None:
    standin = await make_azure_devops(clock=clock)
    ado = AdoClient(http, standin)
    standin.throttle(2, window_seconds=30)
    assert [(await ado.project("Fabrikam")).status for _ in range(2)] == [200, 200]
    clock.advance(timedelta(seconds=10))
    throttled = await ado.project("Fabrikam")
    assert throttled.status == 429
    assert throttled.headers["Retry-After"] == "20"
    assert not standin.throttle_violations

    clock.advance(timedelta(seconds=19))  # one second too soon
    assert (await ado.project("Fabrikam")).status == 429
    [early] = standin.throttle_violations
    assert early.allowed_at - early.at == timedelta(seconds=1)

    clock.advance(timedelta(seconds=21))
    assert (await ado.project("Fabrikam")).status == 200
    assert standin.requests_per_window == {0: 4, 1: 1}
    assert len(standin.throttle_violations) == 1


async def test_the_next_requests_fail_with_5xx_then_all_is_well(
    ado: AdoClient, azure_devops: AzureDevOpsStandin
) -> None:
    [item_id] = azure_devops.seed(1)
    azure_devops.fail_next(2, status=503, retry_after=1)
    patch = [{"op": "add", "path": "/fields/System.Title", "value": "Once"}]
    first, second = await ado.patch(item_id, patch), await ado.read(item_id)
    assert (first.status, second.status) == (503, 503)
    assert first.headers["Retry-After"] == "1"
    assert azure_devops.work_item(item_id)["rev"] == 1  # type: ignore[index]
    assert (await ado.patch(item_id, patch)).status == 200


async def test_a_failure_after_the_change_loses_only_the_answer(
    ado: AdoClient, azure_devops: AzureDevOpsStandin
) -> None:
    [item_id] = azure_devops.seed(1)
    azure_devops.fail_next(status=502, after_change=True)
    assert (await ado.patch(item_id, title("Made anyway"))).status == 502
    assert azure_devops.work_item(item_id)["fields"]["System.Title"] == "Made anyway"  # type: ignore[index]


async def test_a_request_hung_after_its_change_is_made_answers_once_released(
    ado: AdoClient, azure_devops: AzureDevOpsStandin
) -> None:
    [item_id] = azure_devops.seed(1)
    hang = azure_devops.hang_next(after_change=True)
    waiting = asyncio.create_task(ado.patch(item_id, title("Held")))
    await until_set(hang.arrived, "the answer to be held")
    assert azure_devops.work_item(item_id)["rev"] == 2  # type: ignore[index]
    assert not waiting.done()
    hang.release()
    assert (await finished(waiting, "the released answer")).body["rev"] == 2


async def test_a_hung_request_is_served_only_once_released(
    ado: AdoClient, azure_devops: AzureDevOpsStandin
) -> None:
    [item_id] = azure_devops.seed(1)
    hang = azure_devops.hang_next()
    waiting = asyncio.create_task(ado.patch(item_id, title("Held")))
    await until_set(hang.arrived, "the request to be held")
    assert not waiting.done()
    assert (await ado.read(item_id)).body["rev"] == 1  # others are not held; nothing changed
    hang.release()
    answer = await finished(waiting, "the released request")
    assert (answer.status, answer.body["rev"]) == (200, 2)


async def test_a_wrong_api_version_is_400_and_the_checker_says_so(
    http: aiohttp.ClientSession,
) -> None:
    async with AzureDevOpsStandin() as unchecked:
        ado = AdoClient(http, unchecked)
        [item_id] = unchecked.seed(1)
        answer = await ado.call(
            "GET", f"/Fabrikam/_apis/wit/workItems/{item_id}/comments", api_version="7.1"
        )
        assert answer.status == 400
        assert "7.1-preview.4" in answer.body["message"]
        [problem] = problems_of(unchecked.exchanges)
        assert "api-version '7.1', the description says '7.1-preview.4'" in problem


async def test_every_exchange_is_logged(ado: AdoClient, azure_devops: AzureDevOpsStandin) -> None:
    await ado.project("Fabrikam")
    ado.token = None
    await ado.project("Fabrikam")
    assert [(x.method, x.path, x.status) for x in azure_devops.exchanges] == [
        ("GET", "/contoso/_apis/projects/Fabrikam", 200),
        ("GET", "/contoso/_apis/projects/Fabrikam", 401),
    ]
    assert azure_devops.exchanges[0].response_body["name"] == "Fabrikam"
    assert azure_devops.exchanges_to("GET", "/projects/") == azure_devops.exchanges
    assert azure_devops.exchanges_to("PATCH") == []


def test_the_standins_people_are_named_as_the_service_names_them() -> None:
    assert OWNER.endswith("<tracker@contoso.example>")
    assert SOMEONE_ELSE.endswith("<riley@contoso.example>")


async def test_the_stand_in_serves_on_its_own_for_trying_it_out(
    http: aiohttp.ClientSession,
) -> None:
    stop = asyncio.Event()
    ready: asyncio.Future[AzureDevOpsStandin] = asyncio.get_running_loop().create_future()
    serving = asyncio.create_task(
        serve(port=0, seed=3, token="try-it", stop=stop, ready=ready.set_result)
    )
    try:
        standin = await finished(ready, "the stand-in to serve")
        ado = AdoClient(http, standin)
        ado.token = "try-it"
        answer = await ado.query(wiql(), timePrecision="true")
        assert len(ids(answer.body)) == 3
        assert problems_of(standin.exchanges) == []
    finally:
        stop.set()
        await finished(serving, "the stand-in to stop")
