"""Personal notifications: people told in their 1:1 chat with the bot about what concerns them."""
