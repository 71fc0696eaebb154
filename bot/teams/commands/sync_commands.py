"""`sync`: the channel's synced projects, each with its state, what waits, its last error and
a Sync now button; `sync <project>`: one of them; `sync <project> now`: an import or a pull
started now, as `POST /api/projects/{id}/sync` starts it."""

from bot.errors import BadRequest
from bot.sync import overview, status
from bot.sync_records.schemas import ProjectSyncShown, SyncState, source_name
from bot.teams.commands import grammar
from bot.teams.context import BotContext
from cards.help import note_card
from cards.layout import Card, shorten
from cards.sync import sync_card

NAME_MAX = 60
SYNC_IN_A_CHANNEL = "Sync belongs to a channel: say sync in a channel where I am installed."
NOTHING_SYNCS = (
    "No project of this channel syncs yet. Link one with `POST /api/projects` and "
    "`sync.enabled` (docs/sync.md), then `sync` shows it here."
)
PAUSED = (
    "“{name}” is paused: {source} refused the credentials. Save new credentials on the "
    "project (its token); its sync then resumes by itself and sends what waited."
)
WHICH = "Say which project to sync now, e.g. `sync {first} now`. This channel syncs {names}."


async def sync(ctx: BotContext, command: grammar.Sync) -> Card:
    if ctx.channel is None:
        raise BadRequest(SYNC_IN_A_CHANNEL)
    if command.now:
        return await _now(ctx, command.project)
    async with ctx.work(write=False) as uow:
        if command.project is None:
            projects = await overview.synced_projects(uow)
        else:
            projects = [await overview.synced_project(uow, name=command.project)]
        if not projects:
            return note_card(NOTHING_SYNCS)
        return sync_card(projects, now=uow.clock.now())


async def _now(ctx: BotContext, name: str | None) -> Card:
    only = await _only_one(ctx) if name is None else None
    async with ctx.work() as uow:
        project = only or await overview.synced_project(uow, name=name or "")
        if project.state == SyncState.PAUSED:
            said = PAUSED.format(
                name=shorten(project.name, NAME_MAX), source=source_name(project.source)
            )
            raise BadRequest("The source refused the credentials.", said=said)
        state = await status.start_now(uow, project_id=project.project_id)
        started = "the import" if state == SyncState.IMPORTING else "a pull"
        note = (
            f"{ctx.actor.display_name} started {started} from {source_name(project.source)} "
            f"for {shorten(project.name, NAME_MAX)}."
        )
        return sync_card([project], now=uow.clock.now(), note=note)


async def _only_one(ctx: BotContext) -> ProjectSyncShown:
    """`sync now` alone: the channel's one synced project; with none or several, it says so."""
    async with ctx.work(write=False) as uow:
        projects = await overview.synced_projects(uow)
    if not projects:
        raise BadRequest("No project of this channel syncs.", said=NOTHING_SYNCS)
    if len(projects) > 1:
        names = ", ".join(shorten(project.name, NAME_MAX) for project in projects)
        said = WHICH.format(first=shorten(projects[0].name, NAME_MAX), names=names)
        raise BadRequest("Several projects of this channel sync: name one.", said=said)
    return projects[0]
