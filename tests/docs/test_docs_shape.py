"""The README and the architecture stay short enough to read, and what they point at exists."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
ARCHITECTURE = ROOT / "docs" / "ARCHITECTURE.md"
MOST_LINES = 250


def named_paths(text: str) -> set[str]:
    """Backticked names that look like repository paths: holding a `/`, or ending in .py or .md.
    Routes (`/api/…`), URLs and templates (`<id>`, `{id}`, `…`) are not paths."""
    names = set()
    for quoted in re.findall(r"`([^`\s]+)`", text):
        if not ("/" in quoted or quoted.endswith((".py", ".md"))):
            continue
        if quoted.startswith("/") or re.search(r"[<>{}…*:=()\[\]$]", quoted):
            continue
        names.add(quoted)
    return names


def test_the_readme_is_at_most_250_lines() -> None:
    assert len(README.read_text().splitlines()) <= MOST_LINES


def test_the_architecture_is_at_most_250_lines() -> None:
    assert len(ARCHITECTURE.read_text().splitlines()) <= MOST_LINES


def test_every_path_the_architecture_names_exists() -> None:
    names = named_paths(ARCHITECTURE.read_text())
    assert names, "the architecture names no path: the check would prove nothing"
    assert sorted(name for name in names if not (ROOT / name).exists()) == []


def test_every_link_between_the_docs_leads_somewhere() -> None:
    pages = [README, *sorted((ROOT / "docs").glob("*.md"))]
    broken = []
    for page in pages:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            if "://" not in target and not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} → {target}")
    assert broken == []
