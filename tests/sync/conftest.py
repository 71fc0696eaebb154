"""Fixtures for the sync tests."""

from tests.sync.standin_fixtures import azure_devops, make_azure_devops

__all__ = ["azure_devops", "make_azure_devops"]
