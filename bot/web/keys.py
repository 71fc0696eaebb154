"""Typed keys of the web frame's long-lived resources on the aiohttp application."""

from aiohttp import web

from bot.web.fairness import ListsInFlight
from bot.web.metrics import Metrics

# List requests running per session or token (bot.web.fairness).
LISTS_IN_FLIGHT = web.AppKey("lists_in_flight", ListsInFlight)
# What /metrics serves, counted as requests and background work happen (bot.web.metrics).
METRICS = web.AppKey("metrics", Metrics)
