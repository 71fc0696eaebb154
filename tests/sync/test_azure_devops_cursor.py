"""Where a pull resumes after a page: never past an item still unread, even when an item of the
page changed at the source between the query and the read."""

from datetime import UTC, datetime, timedelta

from bot.sync.azure_devops.source import TIE, _resume_at
from bot.sync.source import SourceFields, SourceItem

T0 = datetime(2026, 12, 7, 6, 0, tzinfo=UTC)


def items(*seconds: float) -> list[SourceItem]:
    return [
        SourceItem(str(n), "Task", SourceFields(title="t"), "1", T0 + timedelta(seconds=s))
        for n, s in enumerate(seconds)
    ]


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def test_after_the_last_page_the_latest_time_read() -> None:
    assert _resume_at(items(1, 2, 9, 3), final=True) == at(9)


def test_inside_an_answer_just_before_the_last_time_judged_in_order() -> None:
    # The page's last item is not judged: the next page may hold items of its time.
    assert _resume_at(items(1, 2, 3, 4), final=False) == at(3) - TIE


def test_an_item_changed_while_being_read_is_passed_over() -> None:
    # The second item changed after the query: it now reads later than those after it.
    assert _resume_at(items(1, 50, 3, 4, 5), final=False) == at(4) - TIE


def test_nothing_judged_keeps_the_cursor() -> None:
    assert _resume_at(items(7), final=False) is None
    assert _resume_at([], final=True) is None
