"""The arrows between the parts of `bot/` (and `cards/`): which part may import which.

Every module counts but the routes (`api.py`, `*_api.py`), which sit on the web frame and may
reach anything. A part is a package under `bot/` (`bot/items/…` is `items`), a module directly
in `bot/` (`bot/clock.py` is `clock`), or `cards`. An arrow the table does not allow fails.
"""

import ast
import graphlib
from pathlib import Path

ROOT = Path(__file__).parents[1]
# Parts every other part may lean on: no imports of their own but these.
CORE = {
    "clock",
    "errors",
    "ids",
    "lru",
    "logs",
    "outcomes",
    "settings",
    "timestamps",
    "schemas",
    "validation",
}
# The port the domain talks to the chat through (`bot.messaging`) sits with the storage.
STORE = CORE | {"db", "odata", "jobs", "messaging"}
# The domain: what the tracker knows and does, whoever asks.
DOMAIN = {
    "sync_records",
    "pending_events",
    "directory",
    "fields",
    "projects",
    "mappings",
    "files",
    "items",
    "me",
    "events",
    "discussions",
    "sync",
    "changes",
}
# The edges the domain is reached through; the domain imports none of them.
EDGES = {"teams", "web", "cards"}

# part -> the parts it may import. Read bottom-up: each part builds on those above it.
ALLOWED: dict[str, set[str]] = {
    **{part: set() for part in CORE - {"schemas"}},
    "schemas": {"timestamps"},
    "db": CORE,
    "odata": CORE | {"db"},
    "jobs": CORE | {"db"},
    "messaging": CORE | {"db"},
    # The sync's records, which items, mappings and projects write in their own transactions
    # (the engine that reads them is `sync`).
    "sync_records": STORE,
    # What a change writes for the events engine (and notes for the sync) in its transaction.
    "pending_events": STORE | {"sync_records"},
    "directory": STORE,
    "auth": STORE | {"directory"},
    "fields": STORE | {"directory", "pending_events"},
    "projects": STORE | {"directory", "fields", "sync_records"},
    "mappings": STORE | {"directory", "fields", "projects", "sync_records"},
    "workspace": STORE | {"directory", "fields", "projects"},
    "files": STORE | {"directory"},
    "items": STORE
    | {"directory", "fields", "projects", "mappings", "files", "sync_records", "pending_events"},
    # A channel's item changes as a stream, read from the events items record; and the lists of
    # the channels a user may read, for the personal tab's.
    "changes": STORE | {"directory"},
    "me": STORE | {"directory", "fields", "projects", "mappings", "files", "items"},
    "events": STORE | {"directory", "fields", "projects", "mappings", "files", "items"},
    # Threads and notifications: react to the events engine (observers wired in `create_app`).
    "discussions": STORE | {"directory", "fields", "items", "events", "pending_events"},
    # Stores the comments made at a source in the items' discussions.
    "sync": STORE
    | {"directory", "fields", "projects", "mappings", "files", "items", "events", "discussions"}
    | {"sync_records", "pending_events"},
    "demo": STORE | DOMAIN | {"auth", "workspace"},
    # The typed keys of what `create_app` puts on the application.
    "keys": STORE | DOMAIN | {"auth"},
    "cards": STORE | DOMAIN,
    "web": STORE | DOMAIN | {"auth", "keys"},
    "pages": STORE | DOMAIN | {"auth", "keys", "web"},
    "tabs": STORE | {"keys", "web"},
    "teams": STORE | DOMAIN | {"auth", "keys", "web", "cards", "workspace"},
    "app": STORE | DOMAIN | {"auth", "keys", "web", "pages", "tabs", "teams", "cards", "workspace"},
    "cli": STORE | DOMAIN | {"auth", "keys", "web", "teams", "cards", "workspace", "demo", "app"},
    "__main__": {"cli"},
}


def _part(path: Path) -> str:
    relative = path.relative_to(ROOT)
    if relative.parts[0] == "cards":
        return "cards"
    inside = relative.parts[1:]
    return inside[0] if len(inside) > 1 else Path(inside[0]).stem


def _imported_part(module: str) -> str | None:
    names = module.split(".")
    if names[0] == "cards":
        return "cards"
    return names[1] if names[0] == "bot" and len(names) > 1 else None


def _is_route(path: Path) -> bool:
    return path.name == "api.py" or path.name.endswith("_api.py")


def _modules() -> list[Path]:
    found = [*(ROOT / "bot").rglob("*.py"), *(ROOT / "cards").rglob("*.py")]
    migrations = ROOT / "bot" / "db" / "migrations"
    package = ROOT / "bot" / "__init__.py"
    return sorted(
        path
        for path in found
        if not _is_route(path) and migrations not in path.parents and path != package
    )


def _arrows() -> set[tuple[str, str]]:
    """(module, part it imports) for every import of another part, type-only ones included."""
    found = set()
    for path in _modules():
        own = _part(path)
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            else:
                continue
            for name in names:
                part = _imported_part(name)
                if part is not None and part != own:
                    found.add((str(path.relative_to(ROOT)), part))
    return found


def _part_of(module: str) -> str:
    return _part(ROOT / module)


def test_the_table_draws_no_circle() -> None:
    graphlib.TopologicalSorter(ALLOWED).prepare()  # raises CycleError naming the circle


def test_the_domain_may_import_no_edge() -> None:
    assert {part: ALLOWED[part] & EDGES for part in DOMAIN} == {part: set() for part in DOMAIN}


def test_every_part_is_in_the_table() -> None:
    assert {_part(path) for path in _modules()} - ALLOWED.keys() == set()


def test_no_new_arrow_goes_the_wrong_way() -> None:
    wrong = {(module, part) for module, part in _arrows() if part not in ALLOWED[_part_of(module)]}
    assert wrong == set(), "arrows the table does not allow"


def test_the_parts_import_each_other_in_no_circle() -> None:
    """The imports themselves draw no circle."""
    graph: dict[str, set[str]] = {}
    for module, part in _arrows():
        graph.setdefault(_part_of(module), set()).add(part)
    graphlib.TopologicalSorter(graph).prepare()
