"""Argument parsing and output: one JSON object on stdout per command, logs on stderr; the
interactive `chat` console writes its own."""

import argparse
import asyncio
import logging
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, NoReturn

import orjson
from pydantic_core import to_jsonable_python
from sqlalchemy.exc import DBAPIError

from bot.cli import backup, commands, demo_sources, export, imports, package
from bot.cli.chat import command as chat
from bot.cli.failure import CommandFailed
from bot.errors import DomainError
from bot.schemas import ItemKind
from bot.settings import SettingsError, ensure_secret_key, load_settings

Command = Callable[[Any, argparse.Namespace], Awaitable[object]]
logger = logging.getLogger(__name__)


class UsageError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error becomes the CLI's JSON error instead of text."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def build_parser() -> Parser:
    parser = Parser(prog="python -m bot", description=__doc__)
    parser.set_defaults(needs_settings=True, prints_json=True)
    top = parser.add_subparsers(dest="group", required=True, parser_class=Parser)
    top.add_parser("migrate", help="apply database migrations").set_defaults(run=commands.migrate)

    manifest = top.add_parser("manifest", help="build the Teams app package (no database)")
    manifest.set_defaults(run=commands.manifest, needs_settings=False)
    manifest.add_argument("--app-id", required=True, type=package.app_id, help="bot's Entra app id")
    manifest.add_argument("--domain", required=True, type=package.domain, help="public host name")
    manifest.add_argument("--out", required=True, type=package.zip_path, help="the .zip to write")

    console = top.add_parser("chat", help="talk to the bot as the Emulator does (interactive)")
    console.set_defaults(run=chat.chat, needs_settings=False, prints_json=False)
    where = console.add_mutually_exclusive_group()
    where.add_argument(
        "--url", default=chat.DEFAULT_URL, help=f"the running app (default {chat.DEFAULT_URL})"
    )
    where.add_argument(
        "--start", action="store_true", help="start an app on a temporary SQLite, with the demo"
    )

    admin = top.add_parser("admin", help="manage the directory, sessions and tokens")
    things = admin.add_subparsers(dest="thing", required=True, parser_class=Parser)

    team = _verb(things, "team", "add", commands.team_add)
    team.add_argument("--team-id", required=True)
    team.add_argument("--name", required=True)
    team.add_argument("--tenant-id")
    team.add_argument("--group-id")

    channel = _verb(things, "channel", "add", commands.channel_add)
    channel.add_argument("--team-id", required=True)
    channel.add_argument("--channel-id", required=True)
    channel.add_argument("--name", required=True)
    channel.add_argument("--private", action="store_true")

    user = _verb(things, "user", "add", commands.user_add)
    user.add_argument("--id", required=True, dest="object_id", help="Entra object id")
    user.add_argument("--upn", required=True)
    user.add_argument("--name", required=True)
    user.add_argument("--email")

    member = things.add_parser("member").add_subparsers(
        dest="verb", required=True, parser_class=Parser
    )
    for verb, run in (("add", commands.member_add), ("remove", commands.member_remove)):
        sub = member.add_parser(verb)
        sub.set_defaults(run=run)
        sub.add_argument("--team-id", required=True)
        sub.add_argument("--user", required=True, help="UPN, email, object id or _id")

    session = _verb(things, "session", "create", commands.session_create)
    session.add_argument("--user", required=True)

    token = _verb(things, "token", "create", commands.token_create)
    token.add_argument("--user", required=True)
    token.add_argument("--ttl-days", type=_positive_days)

    demo = things.add_parser("demo", help="seed the demo team once")
    demo.set_defaults(run=commands.demo)
    served = demo.add_mutually_exclusive_group()
    for source in demo_sources.SOURCES.values():
        served.add_argument(
            f"--with-{source.option}",
            action="store_true",
            help=f"serve the demo (as make run does) with a local {source.name} linked to it, "
            "until Ctrl-C",
        )
    for source in demo_sources.SOURCES.values():
        demo.add_argument(
            f"--{source.option}-port",
            type=int,
            default=source.default_port,
            help=f"the local {source.name}'s port (default {source.default_port}; 0: any free one)",
        )

    exported = things.add_parser("export", help="a channel's items and configuration as JSON")
    exported.set_defaults(run=export.export_channel)
    _channel_arguments(exported)
    exported.add_argument("--out", required=True, type=_new_file, help="the .json to write (new)")

    imported = things.add_parser(
        "import", help="items from a CSV, or an export's JSON with its configuration"
    )
    imported.set_defaults(run=imports.import_items)
    _channel_arguments(imported)
    imported.add_argument("file", type=Path, help="a .csv (ours, Jira's, Azure DevOps') or .json")
    imported.add_argument("--dry-run", action="store_true", help="check everything, write nothing")
    imported.add_argument(
        "--events", action="store_true", help="let rules fire and notify for the new items"
    )
    imported.add_argument(
        "--kind",
        type=ItemKind,
        choices=list(ItemKind),
        default=ItemKind.BUG,
        help="what a CSV's rows are when it has no type column (default: bug)",
    )

    saved = things.add_parser("backup", help="SQLite: the database and attachments, in one tar")
    saved.set_defaults(run=backup.backup)
    saved.add_argument("--out", required=True, type=_new_file, help="the .tar.gz to write (new)")
    restored = things.add_parser("restore", help="put a backup's database and attachments back")
    restored.set_defaults(run=backup.restore)
    restored.add_argument("archive", type=Path, help="a .tar.gz written by `admin backup`")
    restored.add_argument(
        "--force", action="store_true", help="replace a database that holds rows already"
    )
    return parser


def _channel_arguments(parser: argparse.ArgumentParser) -> None:
    """The channel, by the Teams ids the API's x-svc-teamid and x-svc-channelId headers take."""
    parser.add_argument("--team-id", required=True)
    parser.add_argument("--channel-id", required=True)


def _positive_days(value: str) -> int:
    days = int(value) if value.isdigit() else 0
    if not 1 <= days <= 3650:
        raise argparse.ArgumentTypeError("must be a whole number of days from 1 to 3650")
    return days


def _new_file(value: str) -> Path:
    """A file to write in a folder that exists: a mistyped or unmounted folder is named as such,
    not met mid-write as an error about a temporary file in it."""
    path = Path(value)
    if not path.parent.is_dir():
        raise argparse.ArgumentTypeError(
            f"the folder of '{value}' does not exist: create it, or name one that does"
        )
    return path


def _verb(things: Any, thing: str, verb: str, run: Command) -> argparse.ArgumentParser:
    sub = things.add_parser(thing).add_subparsers(dest="verb", required=True, parser_class=Parser)
    parser: argparse.ArgumentParser = sub.add_parser(verb)
    parser.set_defaults(run=run)
    return parser


def main(argv: list[str]) -> int:
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    try:
        args = build_parser().parse_args(argv)
        settings = ensure_secret_key(load_settings()) if args.needs_settings else None
        result = asyncio.run(args.run(settings, args))
    except KeyboardInterrupt:
        return 130  # Ctrl-C: the shell's code for it, and no trace
    except (UsageError, SettingsError) as exc:
        return _fail(str(exc), code=2)
    except CommandFailed as exc:
        return _fail(exc.message, code=1, **exc.details)
    except DomainError as exc:
        return _fail(exc.message, code=1)
    except (OSError, DBAPIError) as exc:
        # Stdout keeps its one-JSON-object contract on any failure; the trace goes to stderr.
        logger.warning("Database error", exc_info=True)
        return _fail(f"Database error: {_first_line(exc)}", code=1)
    except Exception as exc:
        logger.exception("Unexpected error")
        return _fail(f"Unexpected error: {_first_line(exc)}", code=1)
    if not args.prints_json:  # the chat console, which wrote its own output
        return int(result)
    _print(result)
    return 0


def _fail(message: str, *, code: int, **details: object) -> int:
    _print({"error": message, **details})
    return code


def _first_line(exc: BaseException) -> str:
    """The exception's message without SQLAlchemy's background link, or its type's name."""
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def _print(payload: object) -> None:
    sys.stdout.write(orjson.dumps(to_jsonable_python(payload, by_alias=True)).decode() + "\n")
