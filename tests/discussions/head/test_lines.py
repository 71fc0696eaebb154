"""The reply's one line: who changed what, readable, every value escaped."""

from typing import Any

from bot.discussions.lines import Pending, say

NAMES = {"ada": "Ada Lovelace", "grace": "Grace Hopper", "lin": "Lin <Chen>"}


def change(actor: str | None, *changes: tuple[str, Any, Any], key: str = "k") -> Pending:
    return Pending(
        key=key,
        what="change",
        actor_id=actor,
        changes=[{"field": field, "old": old, "new": new} for field, old, new in changes],
        text=None,
        mentions=[],
    )


def line(*lines: Pending) -> str | None:
    said = say(lines, NAMES, this_year=2026)
    return said.html if said else None


def test_a_status_and_a_due_date_read_as_the_example_does() -> None:
    assert (
        line(
            change(
                "ada",
                ("dueDate", "2026-12-01T00:00:00.000Z", "2026-12-05T00:00:00.000Z"),
                ("status", "Not Started", "In Progress"),
            )
        )
        == "Ada Lovelace moved it to In Progress; due date 1 Dec → 5 Dec"
    )


def test_dates_set_cleared_and_in_another_year() -> None:
    assert line(change("ada", ("dueDate", None, "2027-01-02T00:00:00.000Z"))) == (
        "Ada Lovelace changed due date none → 2 Jan 2027"
    )
    assert line(change("ada", ("startDate", "2026-03-04T00:00:00.000Z", None))) == (
        "Ada Lovelace changed start date 4 Mar → none"
    )


def test_assignees_are_named_added_and_removed_with_names_escaped() -> None:
    assert line(change("grace", ("assignedTo", ["ada"], ["lin", "grace"]))) == (
        "Grace Hopper assigned it to Lin &lt;Chen&gt; and Grace Hopper, unassigned Ada Lovelace"
    )


def test_a_field_changed_back_is_not_told_and_each_field_once() -> None:
    assert line(
        change("ada", ("priority", "Normal", "High"), key="1"),
        change("grace", ("priority", "High", "Normal"), ("name", "a", "<b>"), key="2"),
    ) == ("Grace Hopper renamed it “&lt;b&gt;”")
    assert (
        line(
            change("ada", ("priority", "Normal", "High")),
            change("ada", ("priority", "High", "Normal")),
        )
        is None
    )


def test_an_unknown_actor_is_someone_and_a_deletion_says_only_that() -> None:
    deleted = Pending(key="d", what="deleted", actor_id="lin", changes=None, text=None, mentions=[])
    assert line(change(None, ("status", "A", "B"))) == "Someone moved it to B"
    assert line(change("ada", ("status", "A", "B")), deleted) == "Lin &lt;Chen&gt; deleted it"
