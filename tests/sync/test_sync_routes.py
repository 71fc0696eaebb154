"""The sync routes and the project's `sync`: every bad input gets the API's error and stores
nothing; credentials and the hook secret never show (but the secret, once)."""

from typing import Any

import pytest

from bot.sync.standins.azure_devops import AzureDevOpsStandin
from tests.factories import Factory
from tests.sync.linking import ado_body, link, run_jobs

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
