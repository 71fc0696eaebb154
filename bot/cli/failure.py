"""The failure of a command that did not do its work."""


class CommandFailed(Exception):
    """A command that did not do its work, with what the caller needs beside the message (the
    commands to run instead, the rows that were wrong): printed with `error`, exit 1."""

    def __init__(self, message: str, **details: object) -> None:
        super().__init__(message)
        self.message = message
        self.details = details
