"""The `settings` card: the channel's notification rules, each with its switch, and a form with
its noise settings (due-soon window, digest window and threshold, quiet hours)."""

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from bot.directory.schemas import ChannelSettingsOut
from bot.events.schemas import NotificationRule
from cards.layout import (
    NO_INPUTS,
    Card,
    Element,
    envelope,
    execute,
    heading,
    largest_fitting,
    rich_text,
    shorten,
    subtle,
    text_block,
    text_run,
)
from cards.rules import NAME_MAX, REASON_MAX
from cards.verbs import (
    DIGEST_THRESHOLD,
    DIGEST_WINDOW,
    DUE_SOON,
    QUIET_END,
    QUIET_HOURS,
    QUIET_START,
    QUIET_TIME_ZONE,
    SaveSettings,
    SwitchRule,
    Verb,
)

NO_NOTIFICATION_RULES = (
    "No notification rules in this channel. A Notification rule posts a card in an item's "
    "thread; rules are made through the API (POST /odata/eventDefinitions)."
)
RULES_NOTE = "Each rule posts a card in the item's thread when it fires."
FORM_NOTE = "Leave a field empty to follow the installation's setting; quiet hours empty: none."
SAVE = "Save"
ERROR_MAX = 300
TYPED_MAX = 100  # what the form shows again of a value it refused


@dataclass(frozen=True)
class Note:
    """One line at the top: what the last click changed, or why it changed nothing."""

    text: str
    refused: bool = False


@dataclass(frozen=True)
class Typed:
    """The form as the user left it: the inputs' values as typed and, beside them, what is
    wrong with each (both by input id)."""

    values: Mapping[str, str]
    errors: Mapping[str, str] = field(default_factory=dict)


def settings_card(
    *,
    channel_id: str,
    rules: Sequence[NotificationRule],
    total: int,
    current: ChannelSettingsOut,
    note: Note | None = None,
    typed: Typed | None = None,
) -> Card:
    """The rules with their switches (as many as Teams allows) and the form, filled with the
    channel's own settings (empty where it follows the installation), or as `typed`."""
    shown = typed or Typed(_own_values(current))
    form = _form(current, shown)
    save = SaveSettings(verb=Verb.SAVE_SETTINGS, channel_id=channel_id)

    def build(count: int) -> Card:
        body: list[Element] = [heading("Settings")]
        if note:
            color = "attention" if note.refused else "good"
            body.append(rich_text(text_run(shorten(note.text, ERROR_MAX), color=color)))
        body.append(text_block("Notification rules", weight="bolder", separator=True))
        if rules:
            body.append(subtle(_count(count, total) + RULES_NOTE, wrap=True, spacing="none"))
        else:
            body.append(text_block(NO_NOTIFICATION_RULES, wrap=True))
        body.extend(_rule(rule, channel_id) for rule in rules[:count])
        body.extend(form)
        return envelope(body, [execute(SAVE, save)])

    return largest_fitting(build, len(rules))


def _count(shown: int, total: int) -> str:
    if shown < total:
        return f"{shown} of {total} rules shown. "
    return ""


def _rule(rule: NotificationRule, channel_id: str) -> Element:
    state = "On" if rule.enabled else "Off"
    if not rule.enabled and rule.disabled_reason:
        state = f"Off: {shorten(rule.disabled_reason, REASON_MAX)}"
    switch = SwitchRule(
        verb=Verb.SWITCH_RULE,
        channel_id=channel_id,
        definition_id=rule.id,
        enable=not rule.enabled,
    )
    title = "Switch off" if rule.enabled else "Switch on"
    return {
        "type": "ColumnSet",
        "separator": True,
        "columns": [
            {
                "type": "Column",
                "width": "stretch",
                "verticalContentAlignment": "center",
                "items": [
                    # A TextRun shows the name as typed: no markdown from a user's text.
                    rich_text(text_run(shorten(rule.name, NAME_MAX), weight="bolder")),
                    subtle(state, wrap=True, spacing="none"),
                ],
            },
            {
                "type": "Column",
                "width": "auto",
                "verticalContentAlignment": "center",
                "items": [
                    {
                        "type": "ActionSet",
                        # The form's inputs are not the switch's business.
                        "actions": [execute(title, switch, associatedInputs=NO_INPUTS)],
                    }
                ],
            },
        ],
    }


def _own_values(current: ChannelSettingsOut) -> dict[str, str]:
    """The channel's own settings as the form's inputs read them; none where it follows the
    installation."""
    values: dict[str, str] = {}
    if not current.due_soon_is_default:
        values[DUE_SOON] = str(current.due_soon_minutes)
    if not current.digest_window_is_default:
        values[DIGEST_WINDOW] = str(current.digest_window_seconds)
    if not current.digest_threshold_is_default:
        values[DIGEST_THRESHOLD] = str(current.digest_threshold)
    if current.quiet_hours:
        values[QUIET_START] = current.quiet_hours.start
        values[QUIET_END] = current.quiet_hours.end
        values[QUIET_TIME_ZONE] = current.quiet_hours.time_zone
    return values


def _form(current: ChannelSettingsOut, typed: Typed) -> list[Element]:
    def installation(value: int, is_default: bool) -> str:
        return f"The installation's: {value}" if is_default else "Empty: the installation's"

    elements: list[Element] = [
        text_block("Noise", weight="bolder", separator=True),
        subtle(FORM_NOTE, wrap=True, spacing="none"),
    ]
    numbers = (
        (
            DUE_SOON,
            "Due soon: minutes before the due date",
            installation(current.due_soon_minutes, current.due_soon_is_default),
        ),
        (
            DIGEST_WINDOW,
            "Digest window: seconds (0: no digests)",
            installation(current.digest_window_seconds, current.digest_window_is_default),
        ),
        (
            DIGEST_THRESHOLD,
            "Digest threshold: items told one by one within the window",
            installation(current.digest_threshold, current.digest_threshold_is_default),
        ),
    )
    # No min or max: the service judges each value, and says so beside its input.
    for input_id, label, placeholder in numbers:
        number: Element = {
            "type": "Input.Number",
            "id": input_id,
            "label": label,
            "placeholder": placeholder,
        }
        value = _number(typed.values.get(input_id))
        if value is not None:
            number["value"] = value
        elements.extend(_with_error(number, typed.errors))
    quiet = (
        (QUIET_START, {"type": "Input.Time", "label": "Quiet hours from"}),
        (QUIET_END, {"type": "Input.Time", "label": "Quiet hours until (the next day if earlier)"}),
        (
            QUIET_TIME_ZONE,
            {"type": "Input.Text", "label": "Time zone", "placeholder": "e.g. Europe/Paris"},
        ),
    )
    for input_id, element in quiet:
        element = {**element, "id": input_id}
        if input_id in typed.values:
            element["value"] = shorten(typed.values[input_id], TYPED_MAX)
        elements.extend(_with_error(element, typed.errors))
    if QUIET_HOURS in typed.errors:
        elements.append(_error(QUIET_HOURS, typed.errors[QUIET_HOURS]))
    return elements


def _number(typed: str | None) -> int | float | None:
    """A typed number as the input's value (which must be a number): anything else is left
    out, so the input starts empty."""
    if typed is None:
        return None
    try:
        value = float(typed)
    except ValueError:
        return None
    if not math.isfinite(value):
        return None
    return int(value) if value.is_integer() else value


def error_id(input_id: str) -> str:
    """The id of the line saying what is wrong with an input (or with the quiet hours)."""
    return f"{input_id}.error"


def _with_error(element: Element, errors: Mapping[str, str]) -> list[Element]:
    error = errors.get(element["id"])
    return [element] if error is None else [element, _error(element["id"], error)]


def _error(input_id: str, message: str) -> Element:
    # A TextRun: an error may quote what the user typed.
    run = text_run(shorten(message, ERROR_MAX), color="attention", size="small")
    return rich_text(run, id=error_id(input_id), spacing="none")
