"""Services reach the database through the unit of work's data API only (`bot.db.uow`): the
performance layer and the choice of dialect stay in `bot/db/`."""

import ast
from pathlib import Path

import pytest

BOT = Path(__file__).parents[1] / "bot"
INTERNAL = ("bot.db.driver", "bot.db.reads", "bot.db.many", "bot.db.locks", "bot.db.sqlite_inline")
OUTSIDE_DB = sorted(path for path in BOT.rglob("*.py") if BOT / "db" not in path.parents)
# Modules whose `session` is an HTTP client's (msrest's requests driver), not the ORM's.
HTTP_SESSIONS = {BOT / "teams" / "transport" / "connector_threads.py"}


def _imports(tree: ast.AST) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return found


@pytest.mark.parametrize("path", OUTSIDE_DB, ids=lambda path: str(path.relative_to(BOT)))
def test_a_module_outside_the_storage_layer_uses_only_the_data_api(path: Path) -> None:
    tree = ast.parse(path.read_text(), str(path))
    assert not {name for name in _imports(tree) if name.startswith(INTERNAL)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            # The ORM session is the unit's own: services use its entity methods.
            private = {"reads", "dialect"} | ({"session"} if path not in HTTP_SESSIONS else set())
            assert node.attr not in private, ast.unparse(node)


@pytest.mark.parametrize("path", OUTSIDE_DB, ids=lambda path: str(path.relative_to(BOT)))
def test_a_module_outside_the_storage_layer_names_no_dialect(path: Path) -> None:
    # What differs between SQLite and PostgreSQL (an upsert's `ON CONFLICT` included) is built in
    # `bot/db/` (`bot.db.upserts`), so a service reads the same on both.
    tree = ast.parse(path.read_text(), str(path))
    assert not {name for name in _imports(tree) if name.startswith("sqlalchemy.dialects")}
