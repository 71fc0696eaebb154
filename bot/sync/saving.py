"""Saving a project with its `sync`: the link is checked at the source before anything is
stored, and sync turned on starts the link job and answers the hook secret once."""

from typing import Any

from bot.db.statements import Row
from bot.db.uow import UnitOfWork
from bot.errors import Invalid
from bot.mappings.defaults import add_priority_mappings
from bot.mappings.following import FollowingMappings
from bot.messaging import Messenger
from bot.projects import service as projects
from bot.projects.schemas import ProjectIn, ProjectPatch, SourceState
from bot.projects.sources import SourceKind
from bot.sync import checks, links, log, states, unlinking
from bot.sync.connectors import Connectors, Link
from bot.sync.engine.kinds import link_once, poll_at
from bot.sync.jira import query as jira_query
from bot.sync_records.schemas import Direction, SyncSettings, SyncState

# Saving these sends the link to be checked again.
RECHECKED = ("hostname", "item_types", *projects.SECRET_NAMES)


async def create_project(
    uow: UnitOfWork, *, body: ProjectIn, secret_key: str, connectors: Connectors
) -> dict[str, Any]:
    """Configure an external project; with sync enabled, its link is checked first and its
    states, when not given, are read from the source."""
    sent = body.sync
    _refuse_unusable_query(body.source, sent)
    if sent is not None and sent.enabled:
        row = links.new_sync(_unsaved(body), uow.clock.now())
        links.merge(row, sent, body.source)
        secrets = _sent_secrets(body.model_dump(by_alias=False))
        _, states = await _check(
            connectors, body.source, body.hostname or "", body.source_id, secrets, row.item_types
        )
        if not body.states and body.source.brings_states:
            body = body.model_copy(update={"states": [SourceState(**s) for s in states]})
    project = await projects.create_project(
        uow, body=body, secret_key=secret_key, mappings=FollowingMappings()
    )
    hook_secret = None
    if sent is not None:
        row = links.new_sync(project, uow.clock.now())
        links.merge(row, sent, SourceKind(project.source))
        row["states_read_at"] = uow.clock.now() if row.enabled else None
        before = await links.insert_row(uow, row)
        if row.enabled:
            hook_secret = await _turned_on(uow, project, row, before, secret_key)
    return await _saved(uow, project, hook_secret)


async def update_project(
    uow: UnitOfWork,
    *,
    project_id: str,
    patch: ProjectPatch,
    secret_key: str,
    connectors: Connectors,
    messenger: Messenger,
) -> dict[str, Any]:
    """Change a project; its `sync` is merged, and a link that changed is checked at the source
    (a refusal rolls everything back) and its states read again, unless they were sent."""
    held = await projects.get_project(uow, project_id=project_id, for_update=True)
    _refuse_unusable_query(SourceKind(held.source), patch.sync)
    was_at = _address(held)
    project = await projects.update_project(
        uow,
        project_id=project_id,
        patch=patch,
        secret_key=secret_key,
        mappings=FollowingMappings(),
    )
    changed = patch.model_dump(exclude_unset=True, by_alias=False)
    if changed.get("sync", ...) is None:
        raise Invalid("sync", "must not be null")
    row = await links.sync_row(uow, project.id, for_update=True)
    if patch.sync is None and row is None:
        return await _saved(uow, project, None)
    was_enabled = row is not None and row.enabled
    if row is None:
        row = links.new_sync(project, uow.clock.now())
        before = await links.insert_row(uow, row)
    else:
        before = dict(row)
    source = SourceKind(project.source)
    if patch.sync is not None:
        links.merge(row, patch.sync, source)
        changed |= patch.sync.model_dump(exclude_unset=True, by_alias=False)
    row["updated_at"] = uow.clock.now()
    hook_secret = None
    if not row.enabled:
        row["state"] = SyncState.OFF.value
        if was_enabled:
            await links.write(uow, row, before)
            await unlinking.switched_off(
                uow, project=project, row=row, secret_key=secret_key, connectors=connectors
            )
            before = dict(row)
    elif not was_enabled or any(name in changed for name in RECHECKED):
        secrets = projects.held_secrets(secret_key, project)
        _, read = await _check(
            connectors, source, project.hostname, project.source_id, secrets, row.item_types
        )
        if source.brings_states and "states" not in changed:
            await links.write(uow, row, before)
            await states.keep(uow, project=project, row=row, states=read, messenger=messenger)
            before = dict(row)
        moved = (project.hostname, project.source_id) != (was_at.hostname, was_at.source_id)
        if row.hook_ids and moved:  # its hooks are made anew at the new address
            await links.write(uow, row, before)
            await _hooks_left(uow, was_at, row, secret_key, connectors)
            before = dict(row)
        if not was_enabled:
            hook_secret = await _turned_on(uow, project, row, before, secret_key)
            before = dict(row)
        elif row.state == SyncState.PAUSED:  # new credentials: resume, sending what waited
            row["state"] = (SyncState.RUNNING if row.imported else SyncState.IMPORTING).value
            row["last_error"], row["told_paused"] = None, False
            before = await links.write(uow, row, before)
            await _start(uow, project, row)
        elif not row.hook_ids:
            before = await links.write(uow, row, before)
            await _start(uow, project, row)
    await links.write(uow, row, before)
    return await _saved(uow, project, hook_secret)


def _refuse_unusable_query(source: SourceKind, sent: SyncSettings | None) -> None:
    """A query the source's pulls cannot use is refused before anything is saved."""
    query = sent.query if sent is not None else None
    if source is SourceKind.JIRA and query and (why := jira_query.refusal(query)) is not None:
        raise Invalid("sync.query", why)


async def new_hook_secret(uow: UnitOfWork, *, project_id: str, secret_key: str) -> str:
    """A new hook secret for a project whose sync is on; the old one stops working."""
    project = await projects.get_project(uow, project_id=project_id)
    row = await links.sync_row(uow, project.id, for_update=True)
    if row is None or not row.enabled or SourceKind(project.source) not in links.HOOKED:
        raise Invalid(
            "sync.enabled", "hook secrets are for Azure DevOps and Jira projects that sync"
        )
    before = dict(row)
    secret = links.new_hook_secret(row, secret_key)
    row["updated_at"] = uow.clock.now()
    await links.write(uow, row, before)
    return secret


async def refresh_states(
    uow: UnitOfWork,
    *,
    project_id: str,
    secret_key: str,
    connectors: Connectors,
    messenger: Messenger,
) -> dict[str, Any]:
    """Read an Azure DevOps or Jira project's states from its source again, now."""
    project = await projects.get_project(uow, project_id=project_id, for_update=True)
    source = SourceKind(project.source)
    if not source.brings_states:
        raise Invalid("source", f"{source} projects have no states to read from a source")
    row = await links.sync_row(uow, project.id, for_update=True)
    item_types = row.item_types if row is not None else links.DEFAULT_ITEM_TYPES
    secrets = projects.held_secrets(secret_key, project)
    _, read = await _check(
        connectors, source, project.hostname, project.source_id, secrets, item_types
    )
    await states.keep(uow, project=project, row=row, states=read, messenger=messenger)
    return await _saved(uow, project, None)


def _address(project: Row) -> Row:
    """Where the project is reached, and with what: to remove hooks made there once it moves."""
    return Row(
        source=project.source,
        hostname=project.hostname,
        source_id=project.source_id,
        credentials=project.credentials,
    )


async def _hooks_left(
    uow: UnitOfWork, at: Row, row: Row, secret_key: str, connectors: Connectors
) -> None:
    """The hooks made at the project's former address removed (the link makes new ones);
    `row`, held for update, has its earlier changes written."""
    before = dict(row)
    left = await unlinking.remove_hooks(
        project=at, row=row, secret_key=secret_key, connectors=connectors
    )
    await links.write(uow, row, before)
    message = f"Moved from {at.hostname} ({at.source_id}): its hooks are made again."
    level = log.INFO if left is None else log.WARNING
    await log.write(uow, project_id=row.project_id, level=level, message=f"{message} {left or ''}")


async def _check(
    connectors: Connectors,
    source: SourceKind,
    hostname: str,
    source_id: str,
    secrets: dict[str, str],
    item_types: dict[str, str],
) -> tuple[Any, list[dict[str, str]]]:
    if source is SourceKind.NATIVE:
        raise Invalid("sync.enabled", "the channel's native project does not sync")
    missing = checks.missing_credentials(source, [projects.json_name(n) for n in secrets])
    if missing:
        raise Invalid(missing[0], f"required to sync with {source}")
    link = Link(kind=source, hostname=hostname, source_id=source_id, secrets=secrets)
    return await checks.check(connectors, link, list(item_types.values()))


async def _turned_on(
    uow: UnitOfWork, project: Row, row: Row, before: dict[str, Any], secret_key: str
) -> str | None:
    """Sync just enabled: the import starts (none when it only sends), and an Azure DevOps or
    Jira project gets its hook secret, shown this once. `row`, held for update, has changed
    since `before`; all it holds is written before the start."""
    hook_secret = None
    before = await links.write(uow, row, before)
    await add_priority_mappings(uow, project=project)
    if SourceKind(project.source) in links.HOOKED and row.hook_secret is None:
        hook_secret = links.new_hook_secret(row, secret_key)
    row["imported"] = row.imported or row.direction == Direction.OUT
    row["state"] = (SyncState.RUNNING if row.imported else SyncState.IMPORTING).value
    row["last_error"], row["told_paused"] = None, False
    await links.write(uow, row, before)
    await _start(uow, project, row)
    return hook_secret


async def _start(uow: UnitOfWork, project: Row, row: Row) -> None:
    """The poller, now; or the link job first while the import or the hooks are still to do."""
    hooks_missing = SourceKind(project.source) in links.HOOKED and not row.hook_ids
    if row.imported and not hooks_missing:
        await poll_at(uow, project_id=project.id, run_at=uow.clock.now())
    else:
        await link_once(uow, project_id=project.id)


async def _saved(uow: UnitOfWork, project: Row, hook_secret: str | None) -> dict[str, Any]:
    held = await links.syncs_of(uow, [project.id])
    row, pending = held.get(project.id, (None, 0))
    shown = projects.project_out(project, links.sync_out(row, pending))
    out = shown.model_dump(mode="json", by_alias=True)
    if hook_secret is not None:
        out["hookSecret"] = hook_secret
    return out


def _sent_secrets(sent: dict[str, Any]) -> dict[str, str]:
    return {
        name: sent[name].get_secret_value()
        for name in projects.SECRET_NAMES
        if sent.get(name) is not None
    }


def _unsaved(body: ProjectIn) -> Row:
    return Row(id="", source=body.source)
