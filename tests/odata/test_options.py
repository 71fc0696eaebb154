"""$orderby, $top, $skip and $count on both databases, and what a page says about the next."""

from tests.odata.probe import ALL, Lister


async def test_the_default_order_is_the_entity_sets_own(lister: Lister) -> None:
    rows, more, count = await lister({})
    assert rows == sorted(ALL)
    assert (more, count) == (False, 20)


async def test_several_sort_keys_with_directions(lister: Lister) -> None:
    # Names sort ignoring case, so New, NEW and new tie and the second key decides.
    rows, _, _ = await lister({"$filter": "internalId le 8", "$orderby": "status, internalId desc"})
    assert rows == [6, 2, 5, 3, 8, 7, 4, 1]


async def test_text_sorts_ignoring_case(lister: Lister) -> None:
    rows, _, _ = await lister({"$filter": "contains(name, 'release')", "$orderby": "name desc"})
    assert rows == [12, 11]  # "release plan" after "Release notes"


async def test_text_sorts_by_code_point_after_lower_casing_on_both_databases(
    lister: Lister,
) -> None:
    rows, _, _ = await lister({"$filter": "internalId in (1, 2, 11, 14)", "$orderby": "name"})
    assert rows == [14, 11, 2, 1]  # bug…, release…, ärger, ärger im büro


async def test_nulls_sort_first_ascending_and_last_descending(lister: Lister) -> None:
    ascending, _, _ = await lister({"$filter": "internalId le 6", "$orderby": "dueDate asc"})
    descending, _, _ = await lister({"$filter": "internalId le 6", "$orderby": "dueDate desc"})
    assert ascending == [4, 6, 3, 2, 1, 5]  # OData's rule: nulls before every value going up
    assert descending == [5, 1, 2, 3, 6, 4]  # and after them going down, ties the same way


async def test_top_and_skip_page_in_the_database(lister: Lister) -> None:
    rows, more, count = await lister({"$top": "5", "$skip": "3"})
    assert rows == [4, 5, 6, 7, 8]
    assert more
    assert count == 20  # the count ignores paging


async def test_the_last_page_says_no_more_rows_follow(lister: Lister) -> None:
    assert (await lister({"$top": "5", "$skip": "14"}))[:2] == ([15, 16, 17, 18, 19], True)
    assert (await lister({"$top": "5", "$skip": "15"}))[:2] == ([16, 17, 18, 19, 20], False)
    assert (await lister({"$skip": "40"}))[:2] == ([], False)


async def test_top_zero_gives_the_count_alone(lister: Lister) -> None:
    assert await lister({"$top": "0", "$filter": "status eq 'New'"}) == ([], False, 6)


async def test_a_top_over_the_limit_is_clamped(lister: Lister) -> None:
    rows, more, _ = await lister({"$top": "5000"})
    assert len(rows) == 20
    assert not more


async def test_the_count_is_exact_under_a_filter(lister: Lister) -> None:
    rows, more, count = await lister({"$filter": "status eq 'New'", "$top": "2", "$skip": "1"})
    assert (rows, more, count) == ([4, 11], True, 6)
