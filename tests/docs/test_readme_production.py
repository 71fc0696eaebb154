"""The README's production section tells someone moving to PostgreSQL what they would miss."""

from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def production_section() -> str:
    return README.read_text().split("\n## Running in production\n", 1)[1].split("\n## ", 1)[0]


def test_it_says_the_demo_is_not_seeded_on_postgresql_and_how_to_seed_it() -> None:
    section = production_section()
    assert "the demo is not seeded" in section
    assert "`.venv/bin/python -m bot admin demo`" in section
