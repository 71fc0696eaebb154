"""`docs/production.md` tells someone moving to PostgreSQL what they would miss."""

from pathlib import Path

PRODUCTION = Path(__file__).resolve().parents[2] / "docs" / "production.md"


def test_it_says_the_demo_is_not_seeded_on_postgresql_and_how_to_seed_it() -> None:
    text = PRODUCTION.read_text()
    assert "the demo is not seeded" in text
    assert "`.venv/bin/python -m bot admin demo`" in text
