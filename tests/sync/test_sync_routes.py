"""The sync routes and the project's `sync`: every bad input gets the API's error and stores
nothing; credentials and the hook secret never show (but the secret, once)."""

from typing import Any

import pytest

from bot.sync.standins.azure_devops import AzureDevOpsStandin
from tests.factories import Factory
from tests.sync.linking import ado_body, hook_basic, link, run_jobs

UNKNOWN = "0123456789abcdef01234567"


async def projects(client, member) -> list[dict[str, Any]]:  # noqa: ANN001
    listed = await client.get("/api/projects", headers=member.in_channel())
    return list((await listed.json())["value"])


@pytest.mark.parametrize(
    ("overrides", "error"),
    [
        ({"sync": {"enabled": True, "intervalSeconds": 5}}, "sync.intervalSeconds"),
        ({"sync": {"enabled": True, "direction": "sideways"}}, "sync.direction"),
        ({"sync": {"enabled": True, "itemTypes": {"Epic": "Epic"}}}, "sync.itemTypes"),
        ({"sync": {"enabled": "yes please"}}, "sync.enabled"),
        ({"token": None}, "token: required to sync with Microsoft.Vsts"),
        ({"token": "wrong-pat"}, "refused the credentials: check token"),
        ({"sourceId": "Nowhere"}, "sourceId: no project 'Nowhere'"),
        ({"hostname": "https://10.1.2.3/contoso"}, "hostname"),
        ({"sync": "on"}, "sync"),
        ({"sync": {"enabled": True, "intervalSeconds": 86_401}}, "sync.intervalSeconds"),
        ({"sync": {"enabled": True, "direction": None}}, "sync.direction"),
        ({"sync": {"enabled": True, "itemTypes": {"Bug": "Epic"}}}, "sync.itemTypes"),
        ({"sync": {"enabled": True, "query": 5}}, "sync.query"),
    ],
)
async def test_a_link_refused_stores_nothing(
    client, factory: Factory, standin: AzureDevOpsStandin, overrides: dict[str, Any], error: str
) -> None:
    ada = await factory.member()
    body = {k: v for k, v in ado_body(standin, **overrides).items() if v is not None}
    response = await client.post("/api/projects", json=body, headers=ada.in_channel())
    assert response.status == 400, await response.text()
    assert error in (await response.json())["error"]
    assert [p["source"] for p in await projects(client, ada)] == ["Svc.Native"]


async def test_an_unreachable_source_answers_502_and_stores_nothing(
    client, factory: Factory, standin: AzureDevOpsStandin
) -> None:
    ada = await factory.member()
    body = ado_body(standin, hostname="http://127.0.0.1:9/contoso")
    response = await client.post("/api/projects", json=body, headers=ada.in_channel())
    assert response.status == 502, await response.text()
    assert [p["source"] for p in await projects(client, ada)] == ["Svc.Native"]


async def test_sync_routes_refuse_what_does_not_sync(
    client, factory: Factory, standin: AzureDevOpsStandin
) -> None:
    ada = await factory.member()
    plain = await client.post(
        "/api/projects",
        json={
            **ado_body(standin),
            "sync": None,
            "states": [{"id": "New", "name": "New", "category": "New"}],
        },
        headers=ada.in_channel(),
    )
    assert plain.status == 201, await plain.text()
    pid = (await plain.json())["_id"]
    for path in (f"/api/projects/{pid}/sync", f"/api/projects/{pid}/sync/hook-secret"):
        refused = await client.post(path, headers=ada.in_channel())
        assert refused.status == 400
        assert "sync.enabled" in (await refused.json())["error"]
    for method, path in (
        ("GET", f"/api/projects/{UNKNOWN}/sync"),
        ("POST", f"/api/projects/{UNKNOWN}/sync"),
        ("POST", f"/api/projects/{UNKNOWN}/sync/hook-secret"),
    ):
        missing = await client.request(method, path, headers=ada.in_channel())
        assert missing.status == 404
    shown = await client.get(f"/api/projects/{pid}/sync", headers=ada.in_channel())
    assert (await shown.json())["state"] == "off"
    nulled = await client.patch(
        f"/api/projects/{pid}", json={"sync": {"enabled": None}}, headers=ada.in_channel()
    )
    assert nulled.status == 400


async def test_credentials_and_the_hook_secret_never_show_but_once(
    client, factory: Factory, standin: AzureDevOpsStandin
) -> None:
    ada = await factory.member()
    standin.seed(2)
    project = await link(client, ada, standin)
    secret = project.pop("hookSecret")
    assert project["credentials"] == ["token"]
    pid = project["_id"]
    renewed = await client.post(f"/api/projects/{pid}/sync/hook-secret", headers=ada.in_channel())
    new_secret = (await renewed.json())["hookSecret"]
    assert new_secret != secret
    await run_jobs(client)
    texts = [
        await (await client.get(path, headers=ada.in_channel())).text()
        for path in (
            f"/api/projects/{pid}",
            "/api/projects",
            f"/api/projects/{pid}/sync",
            "/odata/bugs",
            "/odata/tasks",
        )
    ]
    patched = await client.patch(
        f"/api/projects/{pid}", json={"color": "#000000"}, headers=ada.in_channel()
    )
    texts.append(await patched.text())
    for text in texts:
        for value in (standin.token, secret, new_secret):
            assert value not in text
        assert "hookSecret" not in text


WRONG_PAT = "pat-that-azure-devops-refuses"
BAD_PATCHES = [
    ({"sync": {"intervalSeconds": 14}}, "sync.intervalSeconds"),
    ({"sync": {"intervalSeconds": "often"}}, "sync.intervalSeconds"),
    ({"sync": {"direction": "sideways"}}, "sync.direction"),
    ({"sync": {"direction": None}}, "sync.direction"),
    ({"sync": {"itemTypes": {"Epic": "Epic"}}}, "sync.itemTypes"),
    ({"sync": {"itemTypes": {"Bug": " "}}}, "sync.itemTypes"),
    ({"sync": {"itemTypes": None}}, "sync.itemTypes"),
    ({"sync": {"itemTypes": {"Bug": "Epic"}}}, "sync.itemTypes"),
    ({"sync": {"enabled": "certainly"}}, "sync.enabled"),
    ({"sync": {"query": 7}}, "sync.query"),
    ({"sync": {"query": "x" * 2001}}, "sync.query"),
    ({"sync": "on"}, "sync"),
    ({"sync": None}, "sync"),
    ({"token": WRONG_PAT}, "refused the credentials: check token"),
    ({"sourceId": "Nowhere"}, "sourceId"),
    ({"hostname": "https://10.1.2.3/contoso"}, "hostname"),
    ({"hostname": "http://127.0.0.1:9/contoso"}, ""),  # unreachable: 502
]


async def test_every_bad_patch_of_a_synced_project_changes_nothing(
    client, factory: Factory, standin: AzureDevOpsStandin
) -> None:
    ada = await factory.member()
    standin.seed(1)
    project = await link(client, ada, standin)
    pid = project["_id"]

    async def shown() -> list[Any]:
        return [
            await (await client.get(path, headers=ada.in_channel())).json()
            for path in (f"/api/projects/{pid}", f"/api/projects/{pid}/sync")
        ]

    def writes() -> int:
        return len(standin.exchanges) - len(standin.exchanges_to("GET"))

    before, written = await shown(), writes()
    for patch, error in BAD_PATCHES:
        response = await client.patch(
            f"/api/projects/{pid}",
            json={"displayName": "Renamed", **patch},
            headers=ada.in_channel(),
        )
        assert response.status == (400 if error else 502), (patch, await response.text())
        assert error in (await response.json())["error"], patch
        await run_jobs(client)
        assert await shown() == before, patch
        assert writes() == written, patch


async def test_sync_routes_answer_a_malformed_project_id_as_an_unknown_one(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    for method, path in (
        ("GET", "/api/projects/not-an-id/sync"),
        ("POST", "/api/projects/not-an-id/sync"),
        ("POST", "/api/projects/not-an-id/sync/hook-secret"),
    ):
        answered = await client.request(method, path, headers=ada.in_channel())
        assert answered.status == 404, (path, await answered.text())
        assert "error" in await answered.json()
    hook = await client.post("/api/sync/hooks/not-an-id", headers={"Authorization": "Basic eDp5"})
    assert hook.status == 401


async def test_a_renewed_disabled_or_paused_sync_takes_no_old_hook_and_reads_nothing(
    client, factory: Factory, standin: AzureDevOpsStandin
) -> None:
    ada = await factory.member()
    standin.seed(1)
    project = await link(client, ada, standin)
    pid, old = project["_id"], project["hookSecret"]
    renewed = await client.post(f"/api/projects/{pid}/sync/hook-secret", headers=ada.in_channel())
    new = (await renewed.json())["hookSecret"]

    async def told(secret: str) -> int:
        called = await client.post(
            f"/api/sync/hooks/{pid}", headers={"Authorization": hook_basic("tracker", secret)}
        )
        await run_jobs(client)
        return called.status

    asked = len(standin.exchanges)
    assert await told(old) == 401
    assert len(standin.exchanges) == asked
    standin.revoke_token()
    assert await told(new) == 202  # read, and refused: paused
    paused = await client.get(f"/api/projects/{pid}/sync", headers=ada.in_channel())
    assert (await paused.json())["state"] == "paused"
    asked = len(standin.exchanges)
    assert await told(new) == 202  # paused: nothing is read
    now = await client.post(f"/api/projects/{pid}/sync", headers=ada.in_channel())
    assert now.status == 400
    assert "credentials" in (await now.json())["error"]
    assert len(standin.exchanges) == asked
    off = await client.patch(
        f"/api/projects/{pid}", json={"sync": {"enabled": False}}, headers=ada.in_channel()
    )
    assert off.status == 200  # switching off tries to remove the hooks at the source
    asked = len(standin.exchanges)
    assert await told(new) == 401
    assert len(standin.exchanges) == asked
