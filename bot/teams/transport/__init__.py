"""How Teams and the bot reach each other: the /api/messages endpoint, the SDK's adapter and
credentials, and every HTTP call to the Bot Connector."""
