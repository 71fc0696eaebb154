"""A synced project moved to another address (its organization renamed, a new server): the
hooks made at the former one are removed there and made again at the new one."""

from tests.factories import Factory
from tests.sync.linking import link, run_jobs, sync_status
from tests.sync.standin_fixtures import MakeAzureDevOps


async def test_moving_a_project_moves_its_hooks(
    client, factory: Factory, make_azure_devops: MakeAzureDevOps, clock
) -> None:  # noqa: ANN001
    ada = await factory.member()
    old = await make_azure_devops(clock=clock, organization="contoso")
    new = await make_azure_devops(clock=clock, organization="contoso-renamed")
    project = await link(client, ada, old)
    assert len(old.subscriptions) == 3
    moved = await client.patch(
        f"/api/projects/{project['_id']}",
        json={"hostname": new.org_url, "token": new.token},
        headers=ada.in_channel(),
    )
    assert moved.status == 200, await moved.text()
    await run_jobs(client)
    assert old.subscriptions == {}
    made = new.subscriptions.values()
    assert sorted(s["eventType"] for s in made) == [
        "workitem.created",
        "workitem.deleted",
        "workitem.updated",
    ]
    assert {s["consumerInputs"]["url"] for s in made} == {
        f"http://127.0.0.1:9/api/sync/hooks/{project['_id']}"
    }
    log = (await sync_status(client, ada, project["_id"]))["log"]
    assert any(line["message"].startswith("Moved from ") for line in log)


async def test_saving_without_moving_keeps_the_hooks(
    client, factory: Factory, make_azure_devops: MakeAzureDevOps, clock
) -> None:  # noqa: ANN001
    ada = await factory.member()
    standin = await make_azure_devops(clock=clock)
    project = await link(client, ada, standin)
    made = dict(standin.subscriptions)
    saved = await client.patch(
        f"/api/projects/{project['_id']}", json={"token": standin.token}, headers=ada.in_channel()
    )
    assert saved.status == 200
    await run_jobs(client)
    assert standin.subscriptions == made
