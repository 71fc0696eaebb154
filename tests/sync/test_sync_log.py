"""The sync log keeps each project's newest lines: a poll trims the rest, the newest stay shown."""

from datetime import timedelta

from sqlalchemy import func, select

from bot.db.tables import SyncLogLine
from bot.sync import log
from tests.factories import Factory
from tests.sync.linking import link, run_jobs, sync_status
from tests.sync.standin_fixtures import MakeAzureDevOps


async def test_a_poll_keeps_the_newest_lines_only(
    client, factory: Factory, make_azure_devops: MakeAzureDevOps, clock
) -> None:  # noqa: ANN001
    ada = await factory.member()
    project = await link(client, ada, await make_azure_devops(clock=clock))
    other = await link(client, ada, await make_azure_devops(clock=clock, project="Other"))
    async with factory.work() as uow:
        for n in range(log.KEPT + 20):
            clock.advance(timedelta(milliseconds=1))
            for pid in (project["_id"], other["_id"]):
                await log.write(uow, project_id=pid, message=f"line {n}")
    clock.advance(timedelta(seconds=61))
    await run_jobs(client)  # both projects poll
    async with factory.work() as uow:
        counts = dict(
            (
                await uow.session.execute(
                    select(SyncLogLine.project_id, func.count()).group_by(SyncLogLine.project_id)
                )
            ).all()
        )
    assert counts == {project["_id"]: log.KEPT, other["_id"]: log.KEPT}
    shown = [line["message"] for line in (await sync_status(client, ada, project["_id"]))["log"]]
    assert f"line {log.KEPT + 19}" in shown
