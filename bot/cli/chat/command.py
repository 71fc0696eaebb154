"""`python -m bot chat [--url URL | --start]`: the console's loop. A typed line is said to the
bot; a number presses that button of the last card (`1 status=In Progress` types into the card's
inputs first: bot.cli.chat.typed); `exit`, `quit`, Ctrl-D or Ctrl-C leave."""

import argparse
import asyncio
import concurrent.futures
import contextlib
import sys
import threading
from collections.abc import Awaitable, Callable, Sequence

import aiohttp

from bot.cli.chat import local_app
from bot.cli.chat.connector import LocalConnector
from bot.cli.chat.console import Answer, Console, ConsoleError
from bot.cli.chat.typed import typed_values
from bot.settings import Settings

DEFAULT_URL = "http://127.0.0.1:3978"  # where `make run` serves
YOU = "you> "
BOT = "bot> "
INDENT = " " * len(BOT)
LEAVE = {"exit", "quit"}
WELCOME = (
    "Talking to the bot at {url} as the Bot Framework Emulator would (the demo's user, in its "
    "Bugs channel). Type a command (`help`, `bugs`, `bug 1`), a button's number to press it, or "
    "`exit`. Inputs go after the number as name=value: after `bug 1`, `1 status=Not Started` "
    "sets its status; after `bugs`, `9 #1=yes #3=yes` ticks rows #1 and #3 and presses "
    "Bulk edit selected."
)

Read = Callable[[str], Awaitable[str | None]]  # a line typed after the prompt; None at the end
Write = Callable[[str], None]


async def chat(_settings: Settings | None, args: argparse.Namespace) -> int:
    """Talk to the bot at `--url`, or to an app of the console's own (`--start`)."""
    async with contextlib.AsyncExitStack() as stack:
        url = str(args.url).rstrip("/")
        if args.start:
            print("Starting an app on a temporary SQLite database, with the demo…", flush=True)
            url = await stack.enter_async_context(local_app.started())
        connector = LocalConnector()
        service_url = await stack.enter_async_context(connector.serving())
        http = await stack.enter_async_context(aiohttp.ClientSession())
        console = Console(http, url, service_url, connector)
        await converse(console, read_terminal_line, _write)
    return 0


async def converse(console: Console, read: Read, write: Write) -> None:
    """Until the user leaves: read a line, answer it, write the answers."""
    write(WELCOME.format(url=console.app_url))
    while (line := await read(YOU)) is not None:
        line = line.strip()
        if line.lower() in LEAVE:
            return
        if not line:
            continue
        try:
            answers = await respond(console, line)
        except ConsoleError as exc:
            write(f"{BOT}{exc}")
            continue
        write(transcript(answers))


async def respond(console: Console, line: str) -> list[Answer]:
    """A button's number (and inputs) presses it; anything else is said to the bot."""
    press = pressed(line)
    if press is None:
        return await console.say(line)
    number, rest = press
    try:
        typed = typed_values(rest, console.button(number).inputs)
    except ValueError as exc:
        raise ConsoleError(str(exc)) from None
    return await console.press(number, typed)


def pressed(line: str) -> tuple[int, str] | None:
    """`3`, or `3 status=In Review title="Two words"`: the button's number and what follows it;
    None for a line that does not start with a number (said to the bot)."""
    first, _space, rest = line.strip().partition(" ")
    if not first.isdigit():
        return None
    return int(first), rest.strip()


def transcript(answers: Sequence[Answer]) -> str:
    """The answers as the console prints them: each starts with `bot>`, its lines indented."""
    lines = []
    for answer in answers:
        first, *rest = answer.lines or [""]
        lines.append(BOT + first)
        lines += [INDENT + line for line in rest]
    return "\n".join(lines) if lines else f"{BOT}(no answer)"


async def read_terminal_line(prompt: str) -> str | None:
    """`input()` on a daemon thread: the event loop (and an app started on it) runs while the
    user types, and leaving never waits for a line that will not come."""
    typed: concurrent.futures.Future[str | None] = concurrent.futures.Future()

    def read() -> None:
        try:
            typed.set_result(input(prompt))
        except (EOFError, OSError):  # Ctrl-D, or no terminal to read: nothing more is typed
            typed.set_result(None)
        except BaseException as exc:
            typed.set_exception(exc)

    threading.Thread(target=read, name="chat-input", daemon=True).start()
    return await asyncio.wrap_future(typed)


def _write(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()
