"""Tenants, teams, channels, users and team memberships."""
