"""The README's settings table names every setting `bot/settings.py` reads."""

from pathlib import Path

from bot.settings import Settings

README = Path(__file__).resolve().parents[2] / "README.md"


def test_every_setting_is_in_the_readme_table() -> None:
    section = README.read_text().split("\n## Settings\n", 1)[1].split("\n## ", 1)[0]
    names = [field.alias or name for name, field in Settings.model_fields.items()]
    assert [name for name in names if f"`{name}`" not in section] == []
