"""Typed keys of the web frame's long-lived resources on the aiohttp application."""

from typing import TYPE_CHECKING

from aiohttp import web

from bot.web.fairness import ListsInFlight
from bot.web.metrics import Metrics

if TYPE_CHECKING:  # it reads the routes, which read these keys
    from bot.web.openapi import OpenApiDocument

# List requests running per session or token (bot.web.fairness).
LISTS_IN_FLIGHT = web.AppKey("lists_in_flight", ListsInFlight)
# What /metrics serves, counted as requests and background work happen (bot.web.metrics).
METRICS = web.AppKey("metrics", Metrics)
# What /openapi.json serves, built when first asked for (bot.web.openapi).
OPENAPI: web.AppKey["OpenApiDocument"] = web.AppKey("openapi")
