"""What the bot sends: a turn's cards, and proactive messages through the stored conversation
references, within Teams' limits."""
