"""`settings` in a channel: the channel's notification rules, each switched on or off from the
card, and its noise settings saved from the card's form with the API's own checks; a refused
value comes back beside its field as typed; only members act."""

from datetime import timedelta
from typing import Any

from aiohttp.test_utils import TestClient

from bot import demo
from bot.teams.commands.settings_commands import (
    NEEDED_FOR_QUIET_HOURS,
    NOT_SAVED,
    SETTINGS_IN_A_CHANNEL,
)
from bot.teams.context import NOT_ON_ROSTER
from cards import verbs
from cards.layout import Card
from cards.settings import error_id
from tests.cards.samples import action, inputs, text_of
from tests.factories import Factory
from tests.teams.activities import ADA, MALLORY, emulator_message, personal_message
from tests.teams.bot import Chat, Post, api_headers, sent_cards
from tests.teams.connector import Connector
from tests.teams.test_default_rules import DEFAULTS

DEFAULT_NAMES = [name for name, _kind, _trigger in DEFAULTS]
EMPTY_FORM = dict.fromkeys(
    (
        verbs.DUE_SOON,
        verbs.DIGEST_WINDOW,
        verbs.DIGEST_THRESHOLD,
        verbs.QUIET_START,
        verbs.QUIET_END,
        verbs.QUIET_TIME_ZONE,
    ),
    "",
)  # Teams sends every input, an empty one as ""


def rules_on_card(card: Card) -> dict[str, tuple[str, dict[str, Any]]]:
    """Each rule's state and switch button, by its name."""
    shown = {}
    for node in card["body"]:
        if node.get("type") != "ColumnSet":
            continue
        about, switch = node["columns"]
        name = about["items"][0]["inlines"][0]["text"]
        shown[name] = (about["items"][1]["text"], switch["items"][0]["actions"][0])
    return shown


def note_of(card: Card) -> tuple[str, str] | None:
    """The line at the top, and its colour."""
    first = card["body"][1]
    if first.get("type") != "RichTextBlock":
        return None
    run = first["inlines"][0]
    return run["text"], run["color"]


def error_beside(card: Card, input_id: str) -> str | None:
    """The line saying what is wrong with the input, if any; it follows the input."""
    body = card["body"]
    ids = [node.get("id") for node in body]
    if error_id(input_id) not in ids:
        return None
    at = ids.index(error_id(input_id))
    if input_id != verbs.QUIET_HOURS:
        assert ids[at - 1] == input_id
    run = body[at]["inlines"][0]
    assert run["color"] == "attention"
    return str(run["text"])


async def api(client: TestClient, factory: Factory, path: str) -> Any:
    response = await client.get(path, headers=await api_headers(factory, ADA))
    assert response.status == 200, await response.text()
    return await response.json()


async def enabled(client: TestClient, factory: Factory) -> dict[str, bool]:
    rules = (await api(client, factory, "/api/events"))["value"]
    return {rule["eventName"]: rule["enable"] for rule in rules}


async def test_settings_lists_the_notification_rules_and_the_form(chat: Chat) -> None:
    card = await chat.say("settings")
    rules = rules_on_card(card)
    assert list(rules) == DEFAULT_NAMES
    assert {state for state, _ in rules.values()} == {"Off"}
    assert {button["title"] for _, button in rules.values()} == {"Switch on"}
    form = inputs(card)
    assert list(form) == list(EMPTY_FORM)
    assert [node.get("value") for node in form.values()] == [None] * 6  # all the installation's
    assert form[verbs.DUE_SOON]["placeholder"] == "The installation's: 1440"
    assert form[verbs.DIGEST_WINDOW]["placeholder"] == "The installation's: 5"
    assert note_of(card) is None


async def test_switching_a_rule_on_and_off_says_who_did_it(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    card = await chat.say("settings")
    _, switch = rules_on_card(card)["Bug assigned"]

    card = await chat.click(switch)

    assert note_of(card) == ("Ada Lovelace switched on “Bug assigned”.", "good")
    state, switch = rules_on_card(card)["Bug assigned"]
    assert (state, switch["title"]) == ("On", "Switch off")
    assert [name for name, on in (await enabled(bot, factory)).items() if on] == ["Bug assigned"]

    card = await chat.click(switch)

    assert note_of(card) == ("Ada Lovelace switched off “Bug assigned”.", "good")
    assert not any((await enabled(bot, factory)).values())


async def test_a_rule_deleted_meanwhile_answers_the_card_again_saying_so(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    card = await chat.say("settings")
    _, switch = rules_on_card(card)["Task overdue"]
    rule_id = switch["data"]["definitionId"]
    headers = await api_headers(factory, ADA)
    assert (await bot.delete(f"/odata/eventDefinitions({rule_id})", headers=headers)).status == 204

    card = await chat.click(switch)

    assert note_of(card) == (f"Event definition '{rule_id}' not found.", "attention")
    assert "Task overdue" not in rules_on_card(card)


async def test_saving_the_form_changes_the_settings_and_empty_fields_go_back(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    card = await chat.say("settings")
    typed = {
        verbs.DUE_SOON: "90",
        verbs.DIGEST_WINDOW: "0",
        verbs.DIGEST_THRESHOLD: "12",
        verbs.QUIET_START: "22:00",
        verbs.QUIET_END: "07:00",
        verbs.QUIET_TIME_ZONE: " Europe/Paris ",
    }

    card = await chat.click(action(card, "Save"), **typed)

    assert note_of(card) == ("Ada Lovelace saved the settings.", "good")
    assert await api(bot, factory, "/api/channel/settings") == {
        "dueSoonMinutes": 90,
        "dueSoonIsDefault": False,
        "digestWindowSeconds": 0,
        "digestWindowIsDefault": False,
        "digestThreshold": 12,
        "digestThresholdIsDefault": False,
        "quietHours": {"start": "22:00", "end": "07:00", "timeZone": "Europe/Paris"},
        "quietHoursIsDefault": False,
    }
    form = inputs(card)
    assert [form[key].get("value") for key in typed] == [
        90,
        0,
        12,
        "22:00",
        "07:00",
        "Europe/Paris",
    ]

    card = await chat.click(action(card, "Save"), **EMPTY_FORM)

    settings = await api(bot, factory, "/api/channel/settings")
    assert settings["dueSoonIsDefault"] and settings["quietHours"] is None
    assert [node.get("value") for node in inputs(card).values()] == [None] * 6


async def test_a_bad_value_comes_back_beside_its_field_as_typed_and_nothing_is_saved(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    card = await chat.say("settings")
    before = await api(bot, factory, "/api/channel/settings")
    typed = {
        **EMPTY_FORM,
        verbs.DUE_SOON: "120",  # fine, but saved only with the rest
        verbs.DIGEST_WINDOW: "5000",
        verbs.DIGEST_THRESHOLD: "1.5",
        verbs.QUIET_START: "22:00",
        verbs.QUIET_TIME_ZONE: "Mars/Olympus_Mons",
    }

    card = await chat.click(action(card, "Save"), **typed)

    assert note_of(card) == (NOT_SAVED, "attention")
    assert await api(bot, factory, "/api/channel/settings") == before
    assert error_beside(card, verbs.DUE_SOON) is None
    assert error_beside(card, verbs.DIGEST_WINDOW) == "Input should be less than or equal to 3600"
    assert error_beside(card, verbs.DIGEST_THRESHOLD) == "Input should be a valid integer"
    assert error_beside(card, verbs.QUIET_START) is None
    assert error_beside(card, verbs.QUIET_END) == NEEDED_FOR_QUIET_HOURS
    assert "IANA time zone" in (error_beside(card, verbs.QUIET_TIME_ZONE) or "")
    form = inputs(card)
    assert [form[key].get("value") for key in typed] == [
        120,
        5000,
        1.5,
        "22:00",
        None,
        "Mars/Olympus_Mons",
    ]

    # Corrected on the card it answered: saved, every error gone.
    fixed = {
        **typed,
        verbs.DIGEST_WINDOW: "60",
        verbs.DIGEST_THRESHOLD: "3",
        verbs.QUIET_END: "06:00",
        verbs.QUIET_TIME_ZONE: "Europe/Paris",
    }
    card = await chat.click(action(card, "Save"), **fixed)
    assert note_of(card) == ("Ada Lovelace saved the settings.", "good")
    assert "Input should" not in text_of(card)
    assert (await api(bot, factory, "/api/channel/settings"))["digestWindowSeconds"] == 60


async def test_quiet_hours_that_start_when_they_end_are_refused_beside_them(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    card = await chat.say("settings")
    same = {
        **EMPTY_FORM,
        verbs.QUIET_START: "08:00",
        verbs.QUIET_END: "08:00",
        verbs.QUIET_TIME_ZONE: "UTC",
    }
    card = await chat.click(action(card, "Save"), **same)
    assert error_beside(card, verbs.QUIET_HOURS) == "start and end must differ"
    assert (await api(bot, factory, "/api/channel/settings"))["quietHours"] is None


async def test_someone_not_on_the_roster_can_neither_switch_nor_save(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    card = await chat.say("settings")
    _, switch = rules_on_card(card)["Bug created"]
    chat.sender = MALLORY

    for button, typed in (
        (switch, {}),
        (action(card, "Save"), {**EMPTY_FORM, verbs.DUE_SOON: "5"}),
    ):
        answer = await chat.click(button, **typed)
        assert NOT_ON_ROSTER in text_of(answer)

    assert not any((await enabled(bot, factory)).values())
    assert (await api(bot, factory, "/api/channel/settings"))["dueSoonIsDefault"]


async def test_in_a_personal_chat_settings_belong_to_a_channel(
    chat: Chat, connector: Connector
) -> None:
    connector.calls.clear()
    await chat.post(personal_message(chat.service_url, "settings"))
    assert connector.texts() == [SETTINGS_IN_A_CHANNEL]


async def test_help_lists_settings(chat: Chat) -> None:
    assert "settings" in text_of(await chat.say("help all")).splitlines()


async def test_in_the_emulator_the_demo_channel_has_the_default_rules(
    post: Post, service_url: str, connector: Connector, factory: Factory
) -> None:
    async with factory.work() as uow:
        await demo.seed_demo(uow, session_ttl=timedelta(hours=1))
        await demo.seed_demo(uow, session_ttl=timedelta(hours=1))  # seeding again adds none
    assert (await post(emulator_message(service_url, "settings"))).status == 200
    [card] = sent_cards(connector)
    assert list(rules_on_card(card)) == DEFAULT_NAMES
