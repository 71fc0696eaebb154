"""The chat console against the real app: typed lines and pressed buttons reach the bot as the
Emulator sends them, and the answers read as text with numbered buttons."""

from typing import Any

import aiohttp
import pytest
from pytest_aiohttp import AiohttpServer

from bot.app import create_app
from bot.cli.chat.command import converse, pressed, transcript
from bot.cli.chat.console import Answer, Console, ConsoleError
from bot.demo import CHANNEL_ID, TEAM_ID, DemoOut
from cards.verbs import Verb
from tests.teams.activities import APP_ID


def button(console: Console, *, titled: str = "", verb: str = "") -> int:
    """The number of the one button to press now whose title has the words, or of this verb."""
    [number] = [
        number
        for number, pressable in console.buttons.items()
        if titled.lower() in pressable.title.lower() and verb in (pressable.action.get("verb"), "")
    ]
    return number


def lines(answers: list[Answer]) -> list[str]:
    return [line for answer in answers for line in answer.lines]


async def bugs(console: Console, demo: DemoOut) -> dict[str, dict[str, Any]]:
    """The demo channel's bugs through the REST API, by title."""
    response = await console.http.get(
        f"{console.app_url}/odata/bugs",
        headers={
            "Cookie": f"graphNodeCookie={demo.cookie}",
            "x-svc-teamid": TEAM_ID,
            "x-svc-channelId": CHANNEL_ID,
        },
    )
    assert response.status == 200
    return {bug["name"]: bug for bug in (await response.json())["value"]}


async def test_help_bugs_a_pressed_button_and_a_new_bug(console: Console, demo: DemoOut) -> None:
    helped = await console.say("help")
    [answer] = helped
    assert answer.lines[0] == "What I can do"
    assert any(line.startswith("bugs") for line in answer.lines)
    assert answer.buttons and console.buttons == dict(enumerate(answer.buttons, start=1))

    listed = await console.say("bugs")
    row = button(console, titled="Login button does nothing on Safari", verb=Verb.SHOW_ITEM)
    assert any(line.startswith(f"[{row}] ") and "#1" in line for line in lines(listed))

    shown = await console.press(row)  # Action.Execute: the item card replaces the list
    assert "Login button does nothing on Safari" in lines(shown)
    changed = await console.press(
        button(console, titled="Set status", verb=Verb.SET_STATUS), {"status": "completed"}
    )
    assert any("Completed" in line for line in lines(changed))

    created = await console.say("new bug Login fails")
    assert "Login fails" in lines(created)
    stored = await bugs(console, demo)
    assert stored["Login button does nothing on Safari"]["status"] == "Completed"
    assert stored["Login fails"]["internalId"] == 6


async def test_the_loop_reads_lines_presses_numbers_and_says_what_went_wrong(
    console: Console, demo: DemoOut
) -> None:
    def set_status(typed: str) -> str:
        return f"{button(console, titled='Set status', verb=Verb.SET_STATUS)} {typed}"

    typed = iter(
        [
            lambda: "help",
            lambda: "",
            lambda: "99",
            lambda: "bug 1",
            lambda: set_status("colour=red"),
            lambda: set_status("status=Completed"),
            lambda: "exit",
            lambda: "never read",
        ]
    )
    written: list[str] = []

    async def read(prompt: str) -> str | None:
        assert prompt == "you> "
        return next(typed)()

    await converse(console, read, written.append)
    welcome, helped, missing, shown, refused, changed = written
    assert welcome.startswith(f"Talking to the bot at {console.app_url}")
    assert helped.startswith("bot> What I can do\n") and "\n     [1] " in helped
    assert missing.startswith("bot> Button 99 does not exist; this card has 1–")
    assert shown.startswith("bot> ") and "\n     Login button does nothing on Safari" in shown
    assert refused == "bot> No input named 'colour' on this card; inputs are: status."
    assert "Completed" in changed
    assert next(typed)() == "never read"


@pytest.mark.parametrize(
    ("line", "press"),
    [
        ("3", (3, "")),
        ('3 status=In Review title="Two words"', (3, 'status=In Review title="Two words"')),
        ("new bug Login fails", None),
        ("#3 status=Done", None),
    ],
)
def test_a_number_presses_a_button_and_other_lines_are_said(
    line: str, press: tuple[int, str] | None
) -> None:
    assert pressed(line) == press


def test_the_transcript_starts_each_answer_with_bot() -> None:
    said = transcript([Answer(["Bugs", "[1] More"]), Answer(["Done"])])
    assert said == "bot> Bugs\n     [1] More\nbot> Done"


async def test_an_app_that_verifies_senders_is_refused_with_a_reason(
    console: Console,
    aiohttp_server: AiohttpServer,
    make_settings,  # noqa: ANN001
    db: str,
) -> None:
    settings = make_settings(
        db, JOBS_POLL_SECONDS=0, MicrosoftAppId=APP_ID, MicrosoftAppPassword="test-app-secret"
    )
    server = await aiohttp_server(create_app(settings))
    console.app_url = str(server.make_url("")).rstrip("/")
    with pytest.raises(ConsoleError, match="verifies the Bot Framework's signature"):
        await console.say("help")


async def test_no_app_at_the_url_says_how_to_start_one(console: Console) -> None:
    async with aiohttp.ClientSession() as http:
        gone = Console(http, "http://127.0.0.1:9", console.service_url, console.connector)
        with pytest.raises(ConsoleError, match="make run"):
            await gone.say("help")
