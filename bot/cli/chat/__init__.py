"""`python -m bot chat`: a console that talks to the bot of a running app as the Bot Framework
Emulator does, with cards as text and their buttons as numbered choices."""
