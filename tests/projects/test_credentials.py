"""Project credentials: write-only, sealed at rest under SECRET_KEY, never in any response."""

from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from cryptography.fernet import InvalidToken
from sqlalchemy import select

from bot.app import create_app
from bot.db.tables import Project
from bot.projects.credentials import unseal
from bot.settings import Settings
from tests.conftest import SECRET
from tests.factories import Factory, Member, create_item
from tests.projects.bodies import SECRET_PASSWORD, SECRET_TOKEN, add_project, jira

OTHER_SECRET = "another-secret-key-9876543210fedcba9876543210"


async def sealed(factory: Factory, project_id: str) -> str | None:
    """The stored `projects.credentials` column, as the database holds it."""
    async with factory.work() as uow:
        return await uow.session.scalar(select(Project.credentials).where(Project.id == project_id))


async def text_of(client: TestClient, method: str, path: str, member: Member, **kw: Any) -> str:
    response = await client.request(method, path, headers=member.in_channel(), **kw)
    assert response.status < 500
    return await response.text()


async def test_secrets_never_appear_in_any_response(client, factory: Factory) -> None:
    ada = await factory.member()
    body = jira(token=SECRET_TOKEN, password=SECRET_PASSWORD)
    response = await client.post("/api/projects", json=body, headers=ada.in_channel())
    created_text = await response.text()
    assert response.status == 201
    project = await response.json()
    bug = await create_item(client, ada, projectId=project["_id"])
    pid = project["_id"]
    texts = [
        created_text,
        await text_of(client, "GET", f"/api/projects/{pid}", ada),
        await text_of(client, "GET", "/api/projects", ada),
        await text_of(client, "GET", "/api/projects", ada, params={"$select": "hasCredentials"}),
        await text_of(client, "PATCH", f"/api/projects/{pid}", ada, json={"color": "#000000"}),
        await text_of(client, "PATCH", f"/api/projects/{pid}", ada, json={"token": SECRET_TOKEN}),
        await text_of(client, "GET", "/odata/_fieldMappings", ada),
        await text_of(client, "GET", f"/api/bugs/{bug['_id']}/details", ada),
        await text_of(client, "GET", "/odata/bugs", ada),
        await text_of(client, "GET", f"/api/fields/bug/status/{pid}", ada),
        # Refusals carrying the secrets do not echo them either.
        await text_of(client, "POST", "/api/projects", ada, json=body),  # 409
        await text_of(client, "POST", "/api/projects", ada, json={**body, "color": "x"}),
        await text_of(client, "POST", "/api/projects", ada, json={**body, "password": "p" * 5000}),
        await text_of(client, "PATCH", f"/api/projects/{pid}", ada, json={**body, "enable": 3}),
    ]
    for text in texts:
        assert SECRET_TOKEN not in text
        assert SECRET_PASSWORD not in text
        # Only the names of the credentials set are shown, never a value.
        assert '"token":' not in text and '"password":' not in text


async def test_credentials_are_stored_sealed_under_the_secret_key(client, factory: Factory) -> None:
    ada = await factory.member()
    body = jira(token=SECRET_TOKEN, password=SECRET_PASSWORD)
    project = await add_project(client, ada, body)
    assert project["hasCredentials"] is True
    stored = await sealed(factory, project["_id"])
    assert stored is not None
    assert SECRET_TOKEN not in stored and SECRET_PASSWORD not in stored
    assert unseal(SECRET, stored) == {"token": SECRET_TOKEN, "password": SECRET_PASSWORD}
    with pytest.raises(InvalidToken):
        unseal(OTHER_SECRET, stored)


async def test_has_credentials_follows_what_is_stored(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    pid = project["_id"]
    assert project["hasCredentials"] is False
    assert await sealed(factory, pid) is None

    async def patched(body: dict[str, Any]) -> dict[str, Any]:
        response = await client.patch(f"/api/projects/{pid}", json=body, headers=ada.in_channel())
        assert response.status == 200, await response.text()
        return await response.json()

    assert (await patched({"token": SECRET_TOKEN}))["hasCredentials"] is True
    assert unseal(SECRET, await sealed(factory, pid)) == {"token": SECRET_TOKEN}
    # A change of other fields keeps the credentials.
    assert (await patched({"displayName": "Renamed"}))["hasCredentials"] is True
    assert (await patched({"password": SECRET_PASSWORD}))["hasCredentials"] is True
    both = {"token": SECRET_TOKEN, "password": SECRET_PASSWORD}
    assert unseal(SECRET, await sealed(factory, pid)) == both
    assert (await patched({"token": "rotated"}))["hasCredentials"] is True
    assert unseal(SECRET, await sealed(factory, pid)) == {**both, "token": "rotated"}
    assert (await patched({"token": None}))["hasCredentials"] is True  # the password stays
    assert unseal(SECRET, await sealed(factory, pid)) == {"password": SECRET_PASSWORD}
    assert (await patched({"password": None}))["hasCredentials"] is False
    assert await sealed(factory, pid) is None


async def test_another_secret_key_cannot_read_what_was_sealed(
    client, factory: Factory, make_settings, db: str, aiohttp_client, clock
) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira(token=SECRET_TOKEN, password=SECRET_PASSWORD))
    other: Settings = make_settings(db, SECRET_KEY=OTHER_SECRET)
    rekeyed = await aiohttp_client(create_app(other, clock=clock))
    # Under the new key the old secrets are unreadable: a new password is stored alone.
    response = await rekeyed.patch(
        f"/api/projects/{project['_id']}", json={"password": "new"}, headers=ada.in_channel()
    )
    assert response.status == 200
    assert (await response.json())["hasCredentials"] is True
    stored = await sealed(factory, project["_id"])
    assert unseal(OTHER_SECRET, stored) == {"password": "new"}
    with pytest.raises(InvalidToken):
        unseal(SECRET, stored)
