"""Which connector speaks to which source kind: each kind registers a factory that opens a
`Source` for one project's link (address, project, credentials)."""

from collections.abc import Callable
from dataclasses import dataclass, field

from bot.projects.sources import SourceKind
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
