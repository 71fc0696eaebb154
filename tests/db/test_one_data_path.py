"""One data path: outside `bot/db/`, code reaches the database through the unit of work's
statements (`rows`, `row`, `value`, `values`, `execute`, `execute_many`, `insert_many`), never
its ORM entities or session (docs/ARCHITECTURE.md, "Reaching the database")."""

import ast
from pathlib import Path

ROOT = Path(__file__).parents[2]
ENTITY_WAYS = {"get", "entity", "entities", "entity_rows", "add", "delete", "flush", "session"}


def _entity_uses(source: str, module: str) -> list[str]:
    """Each `uow.<entity way>` the module's source names (a call, or the session reached)."""
    found = []
    for node in ast.walk(ast.parse(source, module)):
        if isinstance(node, ast.Attribute) and node.attr in ENTITY_WAYS:
            receiver = node.value
            name = receiver.attr if isinstance(receiver, ast.Attribute) else None
            if isinstance(receiver, ast.Name):
                name = receiver.id
            if name is not None and name.lstrip("_").endswith("uow"):
                found.append(f"{module}:{node.lineno} uow.{node.attr}")
    return found


def _uses_by_module() -> dict[str, list[str]]:
    uses = {}
    for path in sorted((ROOT / "bot").rglob("*.py")):
        module = str(path.relative_to(ROOT))
        if not module.startswith("bot/db/") and (found := _entity_uses(path.read_text(), module)):
            uses[module] = found
    return uses


def test_services_reach_the_database_by_statements_alone() -> None:
    uses = [use for found in _uses_by_module().values() for use in found]
    assert uses == [], "write statements through the unit of work, not entities"


def test_the_check_finds_an_entity_use() -> None:
    """The guard is not blind: each way to the entities is found, by any unit's name."""
    lines = [f"    await uow.{way}()" for way in sorted(ENTITY_WAYS - {"session"})]
    lines += ["    uow.session", "    self._uow.add(1)", "    other.get(1)"]
    source = "async def probe(uow, self, other):\n" + "\n".join(lines) + "\n"
    found = _entity_uses(source, "bot/probe.py")
    assert len(found) == len(ENTITY_WAYS) + 1
    assert not any("other" in use for use in found)
