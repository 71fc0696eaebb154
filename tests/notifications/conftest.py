"""The thread rig (tests/discussions/head): the app, the local connector, Team A installed."""

from tests.discussions.head.conftest import bot, connector, post, rig, service_url

__all__ = ["bot", "connector", "post", "rig", "service_url"]
