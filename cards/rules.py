"""The `rules` card: the channel's event rules, what each does, and how it last fired."""

from collections.abc import Sequence

from bot.events.schemas import ActionType, DeliveryState, RuleSummary, display_name
from cards.help import MONOSPACE
from cards.layout import (
    Card,
    Element,
    envelope,
    heading,
    largest_fitting,
    plain,
    rich_text,
    shorten,
    subtle,
    text_block,
    text_run,
)

NAME_MAX = 80
REASON_MAX = 200
NEVER_FIRED = "never fired"
NO_RULES = (
    "No rules in this channel yet. A rule calls a webhook or posts a card when a bug or task "
    "changes; rules are made through the API (POST /odata/eventDefinitions)."
)
_OUTCOMES = {
    DeliveryState.SUCCEEDED: "delivered",
    DeliveryState.FAILED: "failed",
    DeliveryState.PENDING: "pending",
}


def rules_card(rules: Sequence[RuleSummary], *, total: int) -> Card:
    """Each rule with its trigger, action, switch and last delivery; as many as Teams allows."""
    return largest_fitting(lambda count: _card(rules[:count], total), len(rules))


def last_delivery(rule: RuleSummary) -> str:
    """`never fired`, or the latest delivery's outcome, when it was tried, and what its receiver
    answered when it did not take it: `failed 2026-11-21 10:00 UTC, HTTP 410`."""
    if rule.last_state is None:
        return NEVER_FIRED
    when = f" {rule.last_at:%Y-%m-%d %H:%M} UTC" if rule.last_at else ""
    outcome = _OUTCOMES[rule.last_state]
    if rule.last_state is DeliveryState.PENDING and rule.last_tries:
        outcome = "retrying"
    answer = ""
    if rule.last_state is not DeliveryState.SUCCEEDED and rule.last_tries:
        answer = f", HTTP {rule.last_code}" if rule.last_code else ", no answer"
    return f"{outcome}{when}{answer}"


def rule_facts(rule: RuleSummary) -> list[tuple[str, str]]:
    if rule.action_type is ActionType.HTTP:
        action = f"HTTP {rule.target}"
    else:
        action = "A card in the item's thread"
    state = "On" if rule.enabled else "Off"
    if not rule.enabled and rule.disabled_reason:
        state = f"Off: {shorten(rule.disabled_reason, REASON_MAX)}"
    return [
        ("When", display_name(rule.entity_type, rule.trigger)),
        ("Action", action),
        ("State", state),
        ("Last delivery", last_delivery(rule)),
    ]


def _card(rules: Sequence[RuleSummary], total: int) -> Card:
    body: list[Element] = [heading("Rules")]
    if not rules:
        body.append(text_block(NO_RULES if total == 0 else f"{total} rules.", wrap=True))
        return envelope(body)
    shown = f"{len(rules)} of {total} rules" if total > len(rules) else _count(total)
    body.append(subtle(shown, spacing="none"))
    body.extend(_rule(rule) for rule in rules)
    return envelope(body)


def _count(total: int) -> str:
    return "1 rule" if total == 1 else f"{total} rules"


def _rule(rule: RuleSummary) -> Element:
    return {
        "type": "Container",
        "separator": True,
        "items": [
            # A TextRun shows the name as typed: no markdown from a user's text.
            rich_text(text_run(shorten(rule.name, NAME_MAX), weight="bolder")),
            {
                "type": "FactSet",
                "facts": [{"title": title, "value": value} for title, value in rule_facts(rule)],
            },
        ],
    }


def rule_switched_off_card(*, name: str, reason: str) -> Card:
    """Posted once in the channel when the service switched a rule off (a 410, failures)."""
    return envelope(
        [
            heading("A rule was switched off"),
            rich_text(text_run(shorten(name, NAME_MAX), weight="bolder")),
            plain(shorten(reason, REASON_MAX * 2)),
            subtle(
                "Fix the receiver, then switch the rule on again (PATCH its enable) and resend "
                "what failed from its delivery log.",
                wrap=True,
            ),
        ]
    )


def notifications_failing_card(*, failures: int, error: str) -> Card:
    """Posted in a channel, once a day at most, when its notifications keep failing."""
    return envelope(
        [
            heading("Notifications here are failing"),
            plain(f"{failures} notifications of this channel failed in the last day. The last:"),
            plain(shorten(error, REASON_MAX * 2)),
            # Teams' markdown has no code span: the command is a monospace run, as help shows it.
            rich_text(
                text_run(
                    "Check that the app is still installed in this team. Each rule's delivery "
                    "log lists what failed and why; type ",
                    isSubtle=True,
                ),
                text_run("rules", fontType=MONOSPACE, isSubtle=True),
                text_run(" to see the rules.", isSubtle=True),
            ),
        ]
    )
