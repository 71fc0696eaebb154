"""Checking a link at the source before anything is stored: the credentials, the project, and
the states its item types have."""

from collections.abc import Sequence

from bot.errors import BadGateway, BadRequest, Invalid
from bot.projects.sources import SourceKind
from bot.sync.connectors import Connectors, Link, NoConnector
from bot.sync.source import (
    Source,
    SourceError,
    SourceNotFound,
    SourceProject,
    SourceUnauthorized,
)

# What each source is given, by the names the API takes (sync.md, Linking).
NEEDED = {
    SourceKind.AZURE_DEVOPS: ("token",),
    SourceKind.JIRA: ("email", "token"),
    SourceKind.PLANNER: ("tenantId", "clientId", "clientSecret"),
}


def missing_credentials(kind: SourceKind, names: Sequence[str]) -> list[str]:
    """The credentials this kind needs that are not set (`names`: API names)."""
    return [name for name in NEEDED.get(kind, ()) if name not in names]


async def check(
    connectors: Connectors, link: Link, item_types: Sequence[str]
) -> tuple[SourceProject, list[dict[str, str]]]:
    """The project at the source and its states (the union over `item_types`); a refusal is
    the 400 or 502 the API answers, so nothing is stored."""
    names = ", ".join(NEEDED.get(link.kind, ("credentials",)))
    try:
        source = connectors.open(link)
        found = await source.check()
        try:
            states = await read_states(source, item_types)
        except MissingType as missing:  # the project was found: the type is what it lacks
            raise Invalid(
                "sync.itemTypes", f"no type '{missing}' in '{link.source_id}' at {link.kind}"
            ) from None
    except NoConnector as exc:
        raise Invalid("sync.enabled", str(exc)) from None
    except SourceUnauthorized:
        raise BadRequest(f"{link.kind} refused the credentials: check {names}.") from None
    except SourceNotFound:
        raise Invalid("sourceId", f"no project '{link.source_id}' at {link.kind}") from None
    except SourceError as exc:
        raise BadGateway(f"{link.kind} could not be reached: {exc.message}") from None
    return found, states


class MissingType(Exception):
    """The source's project has no item type of this name."""


async def read_states(source: Source, item_types: Sequence[str]) -> list[dict[str, str]]:
    """The project's states at the source, the union over `item_types`, in the source's order
    (MissingType for a type it lacks)."""
    states: dict[str, dict[str, str]] = {}
    for item_type in item_types:
        try:
            read = await source.states(item_type)
        except SourceNotFound:
            raise MissingType(item_type) from None
        for state in read:
            category = state.category.value if state.category else "Active"
            states.setdefault(state.id, {"id": state.id, "name": state.name, "category": category})
    return list(states.values())
