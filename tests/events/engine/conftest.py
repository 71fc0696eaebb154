"""The engine's tests run the pump themselves: no worker polls or sends."""

import pytest

from bot.settings import Settings


@pytest.fixture
def settings(db: str, make_settings) -> Settings:  # noqa: ANN001
    return make_settings(db, JOBS_POLL_SECONDS=0)
