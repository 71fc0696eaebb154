"""Which connector speaks to which source kind: each kind registers a factory that opens a
`Source` for one project's link (address, project, credentials)."""

from collections.abc import Callable
from dataclasses import dataclass, field

import aiohttp

from bot.clock import Clock
from bot.events import ssrf
from bot.projects.sources import SourceKind
from bot.sync.azure_devops import open_source as open_azure_devops
from bot.sync.jira import open_source as open_jira
from bot.sync.planner import open_source as open_planner
from bot.sync.source import Source


@dataclass(frozen=True, slots=True)
class Link:
    """What a connector needs to reach one project at its source."""

    kind: SourceKind
    hostname: str
    source_id: str
    secrets: dict[str, str] = field(repr=False)  # never in a log line or a repr
    query: str | None = None  # the project's `sync.query` (Planner: where tasks made here go)


Connect = Callable[[Link], Source]


class NoConnector(Exception):
    """No connector is installed for this source kind."""


@dataclass
class Connectors:
    """The installed connectors, by source kind (`bot.app` registers them)."""

    factories: dict[SourceKind, Connect] = field(default_factory=dict)

    def register(self, kind: SourceKind, connect: Connect) -> None:
        self.factories[kind] = connect

    def open(self, link: Link) -> Source:
        connect = self.factories.get(link.kind)
        if connect is None:
            raise NoConnector(f"Sync with {link.kind} is not available in this version.")
        return connect(link)

    def supports(self, kind: SourceKind) -> bool:
        return kind in self.factories


def register_all(
    connectors: Connectors,
    http: aiohttp.ClientSession,
    *,
    allowed: ssrf.AllowList,
    clock: Clock,
    authority: str,
) -> None:
    """Register the three connectors, each speaking through `http` (`bot.sync.address`) to
    hosts the address rule `allowed` lets through; Planner's tokens come from `authority`."""

    def azure_devops(link: Link) -> Source:
        return open_azure_devops(
            http,
            hostname=link.hostname,
            source_id=link.source_id,
            token=link.secrets.get("token", ""),
            allowed=allowed,
            clock=clock,
        )

    def jira(link: Link) -> Source:
        return open_jira(
            http,
            hostname=link.hostname,
            source_id=link.source_id,
            email=link.secrets.get("email", ""),
            token=link.secrets.get("token", ""),
            allowed=allowed,
            clock=clock,
        )

    def planner(link: Link) -> Source:
        return open_planner(
            http,
            hostname=link.hostname,
            plan_id=link.source_id,
            secrets=link.secrets,
            authority=authority,
            allowed=allowed,
            clock=clock,
            buckets=link.query,
        )

    connectors.register(SourceKind.AZURE_DEVOPS, azure_devops)
    connectors.register(SourceKind.JIRA, jira)
    connectors.register(SourceKind.PLANNER, planner)
