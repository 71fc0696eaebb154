"""The WIQL a pull sends: exactly the documented shape, values quoted by doubling quotes."""

from datetime import UTC, datetime, timedelta, timezone

import pytest

from bot.sync.azure_devops.wiql import changed_query, quoted


def test_every_item_of_the_types() -> None:
    assert changed_query("Fabrikam", ["Bug", "Task"]) == (
        "SELECT [System.Id] FROM WorkItems WHERE [System.TeamProject] = 'Fabrikam' "
        "AND [System.WorkItemType] IN ('Bug', 'Task') "
        "ORDER BY [System.ChangedDate] ASC, [System.Id] ASC"
    )


def test_changed_after_a_time_under_an_area() -> None:
    after = datetime(2026, 12, 7, 6, 30, 1, 250000, tzinfo=timezone(timedelta(hours=2)))
    assert changed_query("Fabrikam", ["Bug"], changed_after=after, area="Fabrikam\\Web") == (
        "SELECT [System.Id] FROM WorkItems WHERE [System.TeamProject] = 'Fabrikam' "
        "AND [System.WorkItemType] IN ('Bug') "
        "AND [System.ChangedDate] > '2026-12-07T04:30:01.250000Z' "
        "AND [System.AreaPath] UNDER 'Fabrikam\\Web' "
        "ORDER BY [System.ChangedDate] ASC, [System.Id] ASC"
    )


def test_quotes_are_doubled_everywhere() -> None:
    assert quoted("O'Brien's") == "'O''Brien''s'"
    query = changed_query("It's", ["Won't fix"], area="A'B")
    assert "= 'It''s'" in query and "('Won''t fix')" in query and "UNDER 'A''B'" in query


def test_no_types_is_refused() -> None:
    with pytest.raises(ValueError):
        changed_query("Fabrikam", [], changed_after=datetime.now(UTC))
