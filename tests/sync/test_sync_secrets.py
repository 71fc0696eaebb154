"""The personal access token and the hook secret never appear in a response (the secret once, in
the answer that turns sync on), a log line, an export, an error or a row at rest: the bytes are
searched, through a link, an import, a push, a 500, a refused save and a revoked token."""

import argparse
import base64
import logging
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from bot.cli.export import export_channel
from bot.clock import FrozenClock
from bot.db.tables import Base
from bot.settings import Settings
from bot.sync.standins.azure_devops import AzureDevOpsStandin
from tests.factories import CHANNEL, TEAM, Factory
from tests.sync.linking import ado_body, bugs, run_jobs

PAT = "pat-0f7d5c1e9a2b4c6d8e0f1a3b5c7d9e1f"
WRONG = "pat-wrong-6b1d3f5a7c9e0b2d4f6a8c0e"


def forms(secret: str) -> list[bytes]:
    """The secret as it could leak: itself, and inside a Basic header (any user name)."""
    return [
        secret.encode(),
        *(base64.b64encode(f"{user}:{secret}".encode()) for user in ("", "tracker")),
    ]


async def test_credentials_never_show_in_responses_logs_exports_errors_or_rows(
    client,
    factory: Factory,
    standin: AzureDevOpsStandin,
    settings: Settings,
    clock: FrozenClock,
    caplog: pytest.LogCaptureFixture,
    tmp_path: Path,
) -> None:
    caplog.set_level(logging.DEBUG)
    ada = await factory.member()
    standin.add_token(PAT)
    (work_item, _) = standin.seed(2)
    answers: list[bytes] = []

    async def call(method: str, path: str, **options: object) -> bytes:
        response = await client.request(method, path, headers=ada.in_channel(), **options)
        answers.append(await response.read())
        return answers[-1]

    linked = await client.post(
        "/api/projects", json=ado_body(standin, token=PAT), headers=ada.in_channel()
    )
    assert linked.status == 201, await linked.text()
    project = await linked.json()
    secret, pid = project.pop("hookSecret"), project["_id"]
    await run_jobs(client)
    (bug,) = await bugs(client, ada)
    standin.fail_next(status=500, path_part=f"/workitems/{work_item}")
    await call("PATCH", f"/odata/bugs({bug['_id']})", json={"name": "Fails once"})
    await run_jobs(client)
    await call("PATCH", f"/api/projects/{pid}", json={"token": WRONG})  # refused: 400
    standin.revoke_token(PAT)
    clock.advance(timedelta(seconds=61))
    await run_jobs(client)  # the retried push meets the 401: paused
    for path in (f"/api/projects/{pid}", "/api/projects", f"/api/projects/{pid}/sync"):
        await call("GET", path)
    await call("GET", "/odata/bugs")
    await call("POST", f"/api/projects/{pid}/sync")  # refused while paused
    shown = await call("GET", f"/api/projects/{pid}/sync")
    assert b'"paused"' in shown and b"Unauthorized" in shown
    out = tmp_path / "export.json"
    args = argparse.Namespace(team_id=TEAM, channel_id=CHANNEL, out=out)
    await export_channel(settings, args)
    async with factory.work(write=False) as uow:
        rows = [
            repr(await uow.rows(select(table))).encode() for table in Base.metadata.sorted_tables
        ]

    places = {
        "responses": b"\n".join(answers),
        "log": caplog.text.encode(),
        "export": out.read_bytes(),
        "rows at rest": b"\n".join(rows),
    }
    assert b"answered 500" in places["log"] and b"Fabrikam" in places["export"]  # searched
    assert b"hookSecret" not in places["responses"]
    for where, text in places.items():
        for leaked in (*forms(PAT), *forms(WRONG), *forms(secret)):
            assert leaked not in text, f"a credential shows in the {where}"
