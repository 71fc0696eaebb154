"""The local Planner behaves as Graph does where the connector relies on it: client-credentials
tokens that expire, the plan's tasks paged by `@odata.nextLink`, ETags that move on every write
(the details' apart), `If-Match` required and checked, and its failures."""

from typing import Any

import aiohttp
import pytest

from bot.clock import FrozenClock
from bot.sync.standins.planner import PlannerStandin
from tests.vendor_apis.planner_fixtures import MakePlanner, make_planner

__all__ = ["make_planner"]


@pytest.fixture
async def planner(make_planner: MakePlanner, clock: FrozenClock) -> PlannerStandin:
    return await make_planner(clock=clock, page_size=2)  # type: ignore[no-any-return]


async def token(http: aiohttp.ClientSession, standin: PlannerStandin, **form: str) -> Any:
    sent = {
        "grant_type": "client_credentials",
        "client_id": standin.client_id,
        "client_secret": standin.client_secret,
        "scope": "https://graph.microsoft.com/.default",
        **form,
    }
    url = f"{standin.authority_url}/{standin.tenant_id}/oauth2/v2.0/token"
    async with http.post(url, data=sent) as response:
        return response.status, await response.json()


async def call(
    http: aiohttp.ClientSession, method: str, url: str, bearer: str, **options: Any
) -> tuple[int, Any, str | None]:
    headers = {"Authorization": f"Bearer {bearer}", **options.pop("headers", {})}
    async with http.request(method, url, headers=headers, **options) as response:
        body = await response.json() if response.content_length else None
        return response.status, body, response.headers.get("ETag")


async def test_tokens_are_given_for_the_right_credentials_only_and_expire(
    planner: PlannerStandin,
) -> None:
    async with aiohttp.ClientSession() as http:
        status, answer = await token(http, planner, client_secret="wrong")
        assert (status, answer["error"]) == (401, "invalid_client")
        status, answer = await token(http, planner)
        assert status == 200 and answer["token_type"] == "Bearer"
        plan = f"{planner.graph_url}/planner/plans/{planner.plan_id}"
        assert (await call(http, "GET", plan, answer["access_token"]))[0] == 200
        planner.expire_tokens()
        status, body, _ = await call(http, "GET", plan, answer["access_token"])
        assert status == 401 and "expired" in body["error"]["message"]


async def test_tasks_are_paged_and_writes_are_guarded_by_their_etag(
    planner: PlannerStandin,
) -> None:
    ids = planner.seed(5)
    async with aiohttp.ClientSession() as http:
        bearer = (await token(http, planner))[1]["access_token"]
        url: str | None = f"{planner.graph_url}/planner/plans/{planner.plan_id}/tasks"
        seen = []
        while url:
            status, page, _ = await call(http, "GET", url, bearer)
            seen += [task["id"] for task in page["value"]]
            url = page.get("@odata.nextLink")
        assert seen == ids
        task_url = f"{planner.graph_url}/planner/tasks/{ids[0]}"
        _, task, etag = await call(http, "GET", task_url, bearer)
        assert etag == task["@odata.etag"]
        patch = {"json": {"percentComplete": 50}}
        assert (await call(http, "PATCH", task_url, bearer, **patch))[0] == 400  # no If-Match
        planner.exchanges.pop()  # sent wrong on purpose: not the stand-in's to answer for
        status, _, moved = await call(
            http, "PATCH", task_url, bearer, headers={"If-Match": etag}, **patch
        )
        assert status == 204 and moved != etag
        stale = await call(http, "PATCH", task_url, bearer, headers={"If-Match": etag}, **patch)
        assert stale[0] == 412
        details_url = f"{task_url}/details"
        _, details, details_etag = await call(http, "GET", details_url, bearer)
        status, written, _ = await call(
            http,
            "PATCH",
            details_url,
            bearer,
            headers={"If-Match": details_etag, "Prefer": "return=representation"},
            json={"description": "Steps"},
        )
        assert status == 200 and written["description"] == "Steps"
        assert (await call(http, "GET", task_url, bearer))[2] == moved  # the task's ETag stays
        assert (await call(http, "DELETE", task_url, bearer, headers={"If-Match": moved}))[0] == 204
        assert planner.task(ids[0]) is None


async def test_failures_and_throttling_answer_as_graph_does(planner: PlannerStandin) -> None:
    async with aiohttp.ClientSession() as http:
        bearer = (await token(http, planner))[1]["access_token"]
        plan = f"{planner.graph_url}/planner/plans/{planner.plan_id}"
        planner.fail_next(status=503, retry_after=7)
        async with http.get(plan, headers={"Authorization": f"Bearer {bearer}"}) as response:
            assert (response.status, response.headers["Retry-After"]) == (503, "7")
        planner.throttle(1)
        assert (await call(http, "GET", plan, bearer))[0] == 200
        async with http.get(plan, headers={"Authorization": f"Bearer {bearer}"}) as response:
            assert response.status == 429 and int(response.headers["Retry-After"]) >= 1


async def test_a_json_batch_answers_each_read_on_its_own_and_takes_twenty_at_most(
    planner: PlannerStandin,
) -> None:
    ids = planner.seed(3)
    planner.describe(ids[0], "Why")
    planner.fail_next(status=429, retry_after=5, path_part=f"/tasks/{ids[1]}/details")
    reads = [
        {"id": "a", "method": "GET", "url": f"/planner/tasks/{ids[0]}/details"},
        {"id": "b", "method": "GET", "url": f"/planner/tasks/{ids[1]}/details"},
        {"id": "c", "method": "GET", "url": f"/planner/tasks/{ids[2]}"},
        {"id": "d", "method": "GET", "url": "/planner/tasks/gone/details"},
        {
            "id": "e",
            "method": "DELETE",
            "url": f"/planner/tasks/{ids[2]}",
            "headers": {"If-Match": "x"},
        },
    ]
    batch = f"{planner.graph_url}/$batch"
    async with aiohttp.ClientSession() as http:
        bearer = (await token(http, planner))[1]["access_token"]
        status, answer, _ = await call(http, "POST", batch, bearer, json={"requests": reads})
        assert status == 200
        by_id = {r["id"]: r for r in answer["responses"]}
        assert by_id["a"]["body"]["description"] == "Why"
        assert by_id["a"]["headers"]["ETag"] == by_id["a"]["body"]["@odata.etag"]
        assert (by_id["b"]["status"], by_id["b"]["headers"]["Retry-After"]) == (429, "5")
        assert by_id["c"]["body"]["id"] == ids[2]
        assert by_id["d"]["status"] == 404
        assert by_id["e"]["status"] == 400 and planner.task(ids[2]) is not None  # reads only
        many = [
            {"id": str(n), "method": "GET", "url": f"/planner/tasks/{ids[0]}"} for n in range(21)
        ]
        status, refused, _ = await call(http, "POST", batch, bearer, json={"requests": many})
        assert status == 400 and "20" in refused["error"]["message"]
        planner.exchanges.pop()  # sent wrong on purpose: not the stand-in's to answer for
        status, _, _ = await call(http, "POST", batch, bearer, json={"requests": many[:20]})
        assert status == 200
