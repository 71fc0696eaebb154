"""Sync in the chat: a channel's synced projects (the `sync` command) and the notices that a
project's sync paused or that its source has new states (where a synced item lives is on its
card: `cards.synced`)."""

from collections.abc import Sequence
from datetime import datetime

from bot.sync_records.schemas import ProjectSyncShown, SyncState, source_name
from cards.help import MONOSPACE, run_command
from cards.item import fact_columns
from cards.layout import (
    ATTENTION,
    GOOD,
    Card,
    Element,
    action_set,
    envelope,
    execute,
    heading,
    largest_fitting,
    plain,
    rich_text,
    shorten,
    subtle,
    text_run,
)
from cards.when import ago

NAME_MAX = 80
ERROR_MAX = 300
SHOWN_MAX = 10  # projects on one card; the rest are named by `sync <project>`
STATES = {
    SyncState.OFF: ("Off", "default"),
    SyncState.IMPORTING: ("Importing", "accent"),
    SyncState.RUNNING: ("Running", "good"),
    SyncState.PAUSED: ("Paused", ATTENTION),
    SyncState.FAILING: ("Failing: retried later", "warning"),
}
WHAT_TO_DO = (
    "Save new credentials on the project (its token: PATCH /api/projects/{id}): the sync then "
    "resumes and sends what waited."
)
NEVER = "never"


def sync_card(
    projects: Sequence[ProjectSyncShown], *, now: datetime | None, note: str | None = None
) -> Card:
    """Each project: its state, what waits to go out, its last error, counts, last pull and
    push, and a Sync now button (not while paused: new credentials resume it)."""
    shown = list(projects[:SHOWN_MAX])

    def build(count: int) -> Card:
        body: list[Element] = []
        if note:
            body.append(rich_text(text_run(shorten(note, ERROR_MAX), color=GOOD)))
        body.append(heading("Sync"))
        for project in shown[:count]:
            body.extend(_project(project, now))
        rest = len(projects) - count
        if rest > 0:
            body.append(
                rich_text(
                    text_run(f"And {rest} more: type ", isSubtle=True),
                    text_run("sync {project}", fontType=MONOSPACE, isSubtle=True),
                    text_run(" to see one.", isSubtle=True),
                    separator=True,
                )
            )
        return envelope(body)

    return largest_fitting(build, len(shown))


def _project(project: ProjectSyncShown, now: datetime | None) -> list[Element]:
    label, colour = STATES[project.state]
    title = rich_text(
        text_run(shorten(project.name, NAME_MAX), weight="bolder"),
        text_run(f"  {source_name(project.source)}", isSubtle=True),
        separator=True,
        spacing="medium",
    )
    counts = project.counts
    facts = [
        ("State", rich_text(text_run(label, color=colour, weight="bolder"))),
        ("Waiting to go out", plain(_changes(project.pending))),
        ("Last pull", plain(ago(project.last_pull_at, now) if project.last_pull_at else NEVER)),
        ("Last push", plain(ago(project.last_push_at, now) if project.last_push_at else NEVER)),
        (
            "Counts",
            plain(
                f"{counts.imported} imported · {counts.pulled} pulled · {counts.pushed} pushed · "
                f"{counts.conflicts} conflicts · {counts.errors} errors"
            ),
        ),
    ]
    body = [title, fact_columns(facts)]
    if project.last_error is not None:
        error = project.last_error
        said = f"Last error ({ago(error.at, now)}): {error.code}: {error.message}"
        body.append(rich_text(text_run(shorten(said, ERROR_MAX), color=ATTENTION)))
    if project.state == SyncState.PAUSED:
        body.append(subtle(WHAT_TO_DO.format(id=project.project_id), wrap=True))
    else:
        command = f"sync {project.name} now"
        body.append(action_set([execute("Sync now", run_command(command))]))
    return body


def _changes(count: int) -> str:
    return "nothing" if count == 0 else "1 change" if count == 1 else f"{count} changes"


def sync_paused_card(*, project: str, project_id: str, source: str, reason: str) -> Card:
    """Posted once in the channel when the project's source refused the credentials."""
    name = source_name(source)
    return envelope(
        [
            heading("A project's sync is paused"),
            rich_text(text_run(shorten(project, NAME_MAX), weight="bolder")),
            plain(f"{name} refused the credentials: " + shorten(reason, ERROR_MAX)),
            subtle(
                f"Nothing is sent to {name} or read from it until new credentials are saved on "
                f"the project (its token: PATCH /api/projects/{project_id}). Changes made here "
                "wait and go out once it resumes.",
                wrap=True,
            ),
            rich_text(
                text_run("Type ", isSubtle=True),
                text_run("sync", fontType=MONOSPACE, isSubtle=True),
                text_run(" to see the channel's synced projects.", isSubtle=True),
            ),
        ]
    )


def sync_states_added_card(
    *, project: str, project_id: str, source: str, states: Sequence[str]
) -> Card:
    """Posted once in the channel when the source lists states the project had not seen."""
    name = source_name(source)
    listed = ", ".join(shorten(state, NAME_MAX) for state in states[:SHOWN_MAX])
    more = len(states) - SHOWN_MAX
    return envelope(
        [
            heading(f"New states at {name}"),
            rich_text(text_run(shorten(project, NAME_MAX), weight="bolder")),
            plain(listed + (f" and {more} more" if more > 0 else "")),
            subtle(
                "They have no mapping yet: items in them show as Invalid until each is mapped to a "
                f"status (POST /odata/_fieldMappings with projectId {project_id}).",
                wrap=True,
            ),
        ]
    )
