"""`docs/settings.md` names every setting `bot/settings.py` reads."""

from pathlib import Path

from bot.settings import Settings

SETTINGS_DOC = Path(__file__).resolve().parents[2] / "docs" / "settings.md"


def test_every_setting_is_in_the_settings_table() -> None:
    table = SETTINGS_DOC.read_text()
    names = [field.alias or name for name, field in Settings.model_fields.items()]
    assert [name for name in names if f"`{name}`" not in table] == []
