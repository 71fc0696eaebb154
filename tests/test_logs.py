"""Log lines: the request's or job's ids on each, as one JSON object per line or readable text."""

import asyncio
import logging

from bot import logs
from tests.logged import captured

log = logging.getLogger("tests.logs")


async def test_a_json_line_carries_the_scope_and_the_fields() -> None:
    with captured(logging.INFO) as out, logs.scoped(logs.Scope("req-1")):
        logs.note(user_id="user-1", channel_id="channel-1")
        log.info("answered %s", "GET", extra={"fields": {"status": 200, "route": "/x/{id}"}})
    [line] = out.of("tests.logs")
    assert line.pop("time").endswith("+00:00")
    assert line == {
        "level": "INFO",
        "logger": "tests.logs",
        "message": "answered GET",
        "request_id": "req-1",
        "user_id": "user-1",
        "channel_id": "channel-1",
        "status": 200,
        "route": "/x/{id}",
    }
    [text] = out.text.getvalue().splitlines()
    assert text.endswith(
        " INFO tests.logs request_id=req-1 user_id=user-1 channel_id=channel-1 answered GET"
    )


async def test_a_traceback_stays_inside_its_one_json_line() -> None:
    with captured() as out:
        try:
            raise ValueError("the reason\non two lines")
        except ValueError:
            log.exception("failed")
    [line] = out.of("tests.logs")
    assert out.json.getvalue().count("\n") == 1
    assert line["message"] == "failed"
    assert "ValueError: the reason\non two lines" in line["exception"]


async def test_outside_any_request_lines_carry_no_ids_and_notes_go_nowhere() -> None:
    with captured() as out:
        logs.note(user_id="nobody", channel_id="nowhere")
        log.warning("starting")
    [line] = out.of("tests.logs")
    assert (line["request_id"], "user_id" in line, "channel_id" in line) == ("-", False, False)
    assert " WARNING tests.logs request_id=- starting" in out.text.getvalue()
    assert logs.request_id() == "-"


async def test_what_a_request_learns_later_reaches_the_tasks_it_started() -> None:
    with captured() as out, logs.scoped(logs.Scope("req-2")):
        started = asyncio.Event()

        async def later() -> None:
            await started.wait()
            log.info("from a task")

        task = asyncio.create_task(later())
        logs.note(user_id="user-2", channel_id=None)
        started.set()
        await task
    [line] = out.of("tests.logs")
    assert (line["request_id"], line["user_id"]) == ("req-2", "user-2")
