"""Typed keys of the bot's long-lived resources on the aiohttp application."""

from aiohttp import web

from bot.teams.handler import TrackerBot
from bot.teams.outbound.notifier import Notifier
from bot.teams.transport.adapter import BotRuntime

BOT = web.AppKey("bot", BotRuntime)
BOT_HANDLER = web.AppKey("bot_handler", TrackerBot)
NOTIFIER = web.AppKey("notifier", Notifier)
