"""A conversation with the bot of a running app, held as the Bot Framework Emulator holds one:
typed lines go to `/api/messages` as message activities from an anonymous Emulator user (the
app, with no app id, answers as the demo's first user in its Bugs channel), and the answers come
back through the console's own connector, or in an invoke's response for a pressed card button.
"""

import itertools
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import aiohttp

from bot.cli.chat.cardtext import Button, card_text
from bot.cli.chat.connector import LocalConnector, Received

ADAPTIVE = "application/vnd.microsoft.card.adaptive"
MESSAGE = "application/vnd.microsoft.activity.message"
CHANNEL = "emulator"
USER = {"id": "console-user", "name": "You", "role": "user"}
BOT = {"id": "console-bot", "name": "Tracker", "role": "bot"}
TIMEOUT = aiohttp.ClientTimeout(total=60)
UPDATED = "(changed an earlier message)"

VERIFIES_SENDERS = (
    "The app at {url} verifies the Bot Framework's signature (it has a MicrosoftAppId), so it "
    "answers only Teams. The console talks to an app without one, as the Emulator does: "
    "`make run` locally, or `python -m bot chat --start`."
)
NO_APP = (
    "No app answers at {url}: start one with `make run` in another terminal, or let the "
    "console start its own with `python -m bot chat --start`."
)


# What the bot said, before its buttons are numbered: lines and cards, in order.
Said = Sequence[str | Mapping[str, Any]]


class ConsoleError(Exception):
    """What the console says instead of an answer: no app, an app it may not talk to, a button
    or an input that is not there."""


@dataclass
class Answer:
    """One message of the bot (or a card it replaced), as lines; its buttons numbered in turn."""

    lines: list[str]
    buttons: list[Button] = field(default_factory=list)


@dataclass
class Console:
    """One conversation; `buttons` are the numbered choices of the last answers that had any."""

    http: aiohttp.ClientSession
    app_url: str
    service_url: str  # where the console's connector listens
    connector: LocalConnector
    conversation_id: str = field(default_factory=lambda: f"console-{uuid.uuid4()}")
    buttons: dict[int, Button] = field(default_factory=dict)
    _ids: Any = field(default_factory=lambda: itertools.count(1))

    async def say(self, text: str) -> list[Answer]:
        """Send a typed line; the bot's answers."""
        await self._post(self._activity("message", text=text, textFormat="plain"))
        return self._numbered([])

    async def press(self, number: int, typed: Mapping[str, str] | None = None) -> list[Answer]:
        """Press the button numbered `number`, after typing `typed` into the card's inputs
        (by id or label), as Teams sends a click: Action.Execute as an `adaptiveCard/action`
        invoke, whose answer replaces the card; Action.Submit as a message carrying the values;
        Action.OpenUrl only says where it leads; Action.ShowCard shows its card."""
        button = self.button(number)
        try:
            values = button.values(typed or {})
        except ValueError as exc:
            raise ConsoleError(str(exc)) from None
        action = button.action
        kind = action.get("type")
        if kind == "Action.OpenUrl":
            return [Answer([f"Open {action.get('url')}"])]
        if kind == "Action.ShowCard":
            return self._numbered([[action.get("card") or {}]])
        data = action.get("data")
        if kind == "Action.Submit":
            if isinstance(data, str):  # Teams sends a string's data as the message's text
                await self._post(self._activity("message", text=data))
            else:
                await self._post(self._activity("message", value={**(data or {}), **values}))
            return self._numbered([])
        verb = action.get("verb")
        value = {"action": {"type": kind, "verb": verb, "data": {**(data or {}), **values}}}
        body = await self._post(
            self._activity(
                "invoke", name="adaptiveCard/action", value={**value, "trigger": "manual"}
            )
        )
        return self._numbered([_invoke_answer(body)])

    def button(self, number: int) -> Button:
        """The button numbered `number` now, or a ConsoleError saying which numbers there are."""
        button = self.buttons.get(number)
        if button is not None:
            return button
        if not self.buttons:
            raise ConsoleError(
                f"Button {number} does not exist: no card with buttons yet (try `help` or `bugs`)."
            )
        first, last = min(self.buttons), max(self.buttons)
        raise ConsoleError(f"Button {number} does not exist; this card has {first}–{last}.")

    def _numbered(self, first: Sequence[Said]) -> list[Answer]:
        """`first`, then what the bot sent meanwhile, as answers whose buttons are numbered from
        1 across them; these become the buttons to press, unless none came (the last ones stay
        on screen, as in Teams)."""
        said = [*first, *map(_received, self.connector.take())]
        answers: list[Answer] = []
        buttons: dict[int, Button] = {}
        for parts in said:
            answer = _answer(parts, first_number=len(buttons) + 1)
            for button in answer.buttons:
                buttons[len(buttons) + 1] = button
            answers.append(answer)
        if buttons:
            self.buttons = buttons
        return answers

    def _activity(self, kind: str, **fields: Any) -> dict[str, Any]:
        """An activity as the Emulator sends one: no tenant, team, channel or Entra id."""
        now = datetime.now(UTC).isoformat().replace("+00:00", "Z")
        return {
            "type": kind,
            "id": f"{self.conversation_id}|{next(self._ids):07d}",
            "channelId": CHANNEL,
            "serviceUrl": self.service_url,
            "timestamp": now,
            "from": USER,
            "recipient": BOT,
            "conversation": {"id": self.conversation_id},
            "locale": "en-US",
            **fields,
        }

    async def _post(self, activity: dict[str, Any]) -> Any:
        """Post to the app's bot endpoint; an invoke's answer, None for a message."""
        url = f"{self.app_url}/api/messages"
        try:
            async with self.http.post(url, json=activity, timeout=TIMEOUT) as response:
                if response.status == 401:
                    raise ConsoleError(VERIFIES_SENDERS.format(url=self.app_url))
                if response.status >= 400:
                    said = (await response.text())[:300]
                    raise ConsoleError(f"The app answered {response.status}: {said}")
                if response.content_type == "application/json":
                    return await response.json()
                return None
        except aiohttp.ClientConnectionError:
            raise ConsoleError(NO_APP.format(url=self.app_url)) from None


def _answer(parts: Said, *, first_number: int) -> Answer:
    """Lines and cards as one answer's lines, its cards' buttons numbered from `first_number`."""
    answer = Answer([])
    for part in parts:
        if isinstance(part, str):
            answer.lines.append(part)
            continue
        shown = card_text(part, first_number=first_number + len(answer.buttons))
        answer.lines += shown.lines
        answer.buttons += shown.buttons
    return answer


def _invoke_answer(body: Any) -> Said:
    """A card button's answer: the card that replaces the pressed one, or a line."""
    if not isinstance(body, Mapping):
        return ["(no answer)"]
    value = body.get("value")
    if int(body.get("statusCode") or 200) >= 400:
        return [f"Refused: {value}"]
    if body.get("type") == ADAPTIVE and isinstance(value, Mapping):
        return [value]
    return [str(value)] if value else ["(no answer)"]


def _received(received: Received) -> Said:
    """A message the bot posted: its text, then each attachment."""
    activity = received.activity
    parts: list[str | Mapping[str, Any]] = [UPDATED] if received.updated else []
    parts += [line for line in str(activity.get("text") or "").splitlines() if line.strip()]
    for attachment in activity.get("attachments") or ():
        content = attachment.get("content")
        if attachment.get("contentType") == ADAPTIVE and isinstance(content, Mapping):
            parts.append(content)
        elif isinstance(content, Mapping):  # another kind of card: its words
            parts += [str(content[key]) for key in ("title", "summary", "text") if content.get(key)]
        else:
            parts.append(f"({attachment.get('contentType')})")
    return parts or ["(an empty message)"]
