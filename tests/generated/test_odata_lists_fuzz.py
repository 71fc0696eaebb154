"""OData query options fuzzed against the real lists, over HTTP, on both databases.

Whatever `$filter`, `$orderby` and `$select` say, grammatical or not, the answer is a 200 with
rows of the caller's channel only, or a 400 `{"error": ...}` naming the option at fault, never a
5xx; Team B's rows, made alongside, must never show. The `$orderby`, `$select` and paging
strategies live here, since only these tests send them.
"""

import re
from dataclasses import dataclass
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from bot.db.tables import Channel, FieldValue, Item
from bot.odata.model import EntitySet
from tests.factories import CHANNEL, TEAM, Factory, Member
from tests.generated.odata_strategies import (
    BOUNDED,
    LISTS,
    UNKNOWN_NAMES,
    any_filter,
    valid_filters,
)

TEAM_B = "19:team-b@thread.tacv2"
CHANNEL_B = "19:channel-b@thread.tacv2"
# The field value lists and the field each shows.
FIELD_LISTS = {"/odata/status": "status", "/api/priority": "priority", "/api/severity": "severity"}

FUZZ = settings(
    BOUNDED,
    # The app, its database and the rows are built once per test and shared by its examples.
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


# --- $orderby and $select --------------------------------------------------------------------


def valid_orderings(entity: EntitySet) -> st.SearchStrategy[str]:
    """Keys the list sorts by, each once, in any direction."""
    sortable = sorted(name for name, prop in entity.properties.items() if prop.sortable)
    direction = st.sampled_from(["", " asc", " desc", " DESC", "  asc"])

    def directed(names: list[str]) -> st.SearchStrategy[list[str]]:
        return st.lists(direction, min_size=len(names), max_size=len(names)).map(
            lambda ways: [name + way for name, way in zip(names, ways, strict=True)]
        )

    keys = st.lists(st.sampled_from(sortable), min_size=1, max_size=3, unique=True).flatmap(
        directed
    )
    return st.one_of(keys.map(",".join), keys.map(", ".join))


def orderings(entity: EntitySet) -> st.SearchStrategy[str]:
    """Mostly keys the list sorts by; sometimes names it does not, bad directions or junk."""
    key = st.tuples(
        st.sampled_from(sorted(entity.selectable) + UNKNOWN_NAMES),
        st.sampled_from(["", " asc", " desc", " up", " asc desc"]),
    ).map("".join)
    return st.one_of(
        valid_orderings(entity),
        valid_orderings(entity),
        st.lists(key, min_size=1, max_size=4).map(",".join),
        st.text(max_size=30),
    )


def valid_selections(entity: EntitySet) -> st.SearchStrategy[str]:
    names = st.lists(st.sampled_from(sorted(entity.selectable)), min_size=1, max_size=6)
    return st.one_of(names.map(",".join), names.map(", ".join), st.just("*"))


def selections(entity: EntitySet) -> st.SearchStrategy[str]:
    """Mostly names the list selects; sometimes unknown names, blanks or junk."""
    wrong = [*sorted(entity.selectable), *UNKNOWN_NAMES, "", " name"]
    return st.one_of(
        valid_selections(entity),
        valid_selections(entity),
        st.lists(st.sampled_from(wrong), min_size=1, max_size=6).map(",".join),
        st.text(max_size=30),
    )


PAGING = {"$top": ["0", "1", "5", "1000", "5000"], "$skip": ["0", "1", "5"], "$count": ["true"]}
BAD_PAGING = ["-1", "x", "1.5", "", "9" * 40, "TRUE"]


@st.composite
def list_requests(draw: st.DrawFn, *, filtered: bool) -> tuple[str, dict[str, str]]:
    """A list path and its query options. `filtered`: any `$filter`, the other options now and
    then and valid. Otherwise: any `$orderby` and `$select`, a valid `$filter` now and then."""
    path = draw(st.sampled_from(sorted(LISTS)))
    entity = LISTS[path]
    params: dict[str, str] = {}
    sometimes = st.integers(0, 3).map(lambda n: n == 0)
    if filtered:
        params["$filter"] = draw(any_filter(entity))
        if draw(sometimes):
            params["$orderby"] = draw(valid_orderings(entity))
        if draw(sometimes):
            params["$select"] = draw(valid_selections(entity))
    else:
        params["$orderby"] = draw(orderings(entity))
        params["$select"] = draw(selections(entity))
        if draw(sometimes):
            params["$filter"] = draw(valid_filters(entity))
    for option, values in PAGING.items():
        if draw(sometimes):
            wrong = not filtered and draw(sometimes)
            params[option] = draw(st.sampled_from(BAD_PAGING if wrong else values))
    return path, params


# --- the real lists, on both databases -------------------------------------------------------


@dataclass
class Caller:
    member: Member
    ids: dict[str, set[str]]  # per list path: the `_id`s of the caller's channel


async def _create(client: TestClient, headers: dict[str, str], path: str, **body: Any) -> None:
    response = await client.post(path, json=body, headers=headers)
    assert response.status == 201, await response.text()


@pytest.fixture
async def caller(client: TestClient, factory: Factory) -> Caller:
    """Ada in Team A with varied bugs and tasks; Team B with its own, which must never show."""
    ada = await factory.member("Ada Ärger")
    grace = await factory.member("Grace O'Hara")
    await factory.team(TEAM_B, name="Team B")
    await factory.channel(CHANNEL_B, team_id=TEAM_B)
    eve = await factory.member("Eve", team_id=TEAM_B)
    names = ["Ärger im Büro", "100% done", "snake_case", "it's quoted", "ΟΔΟΣ", "back\\slash"]
    for number, name in enumerate(names):
        fields: dict[str, Any] = {
            "name": name,
            "body": f"{name} " * 3,
            "dueDate": f"2026-12-{number + 1:02d}",
            "assignedTo": [ada.user.id] if number % 2 else [grace.user.id, ada.user.id],
        }
        if number % 3 == 0:
            fields["status"] = "In Progress"
        for path in ("/odata/bugs", "/odata/tasks"):
            await _create(client, ada.in_channel(), path, **fields)
            await _create(client, eve.in_channel(TEAM_B, CHANNEL_B), path, name=name)
    await _create(
        client, ada.in_channel(), "/odata/status", name="Ärger", type="Bug", category="New"
    )
    async with factory.work() as uow:
        session = uow.session
        own = await session.scalar(select(Channel.id).where(Channel.teams_id == CHANNEL))
        mine = (Item.channel_id == own,)
        ids = {
            "/odata/bugs": set(
                await session.scalars(select(Item.id).where(*mine, Item.kind == "bug"))
            ),
            "/odata/tasks": set(
                await session.scalars(select(Item.id).where(*mine, Item.kind == "task"))
            ),
        }
        for path, field in FIELD_LISTS.items():
            ids[path] = set(
                await session.scalars(
                    select(FieldValue.id).where(
                        FieldValue.channel_id == own, FieldValue.field == field
                    )
                )
            )
    assert all(ids.values())
    return Caller(ada, ids)


OPTION_ERROR = re.compile(r"Invalid \$(filter|orderby|select|top|skip|count): .")


async def _ask(client: TestClient, caller: Caller, path: str, params: dict[str, str]) -> None:
    response = await client.get(path, params=params, headers=caller.member.in_channel())
    payload = await response.json()
    what = f"GET {path} {params!r}: {response.status} {payload!r}"[:3000]
    assert response.status in (200, 400), what
    if response.status == 400:
        event("400")
        assert list(payload) == ["error"] and isinstance(payload["error"], str), what
        assert OPTION_ERROR.match(payload["error"]), what  # names the option at fault
        return
    event("200 with rows" if payload["value"] else "200, no rows")
    for row in payload["value"]:
        assert row["_id"] in caller.ids[path], what
        assert row.get("teamId", TEAM) == TEAM and row.get("channelId", CHANNEL) == CHANNEL, what


@FUZZ
@given(request=list_requests(filtered=True))
async def test_any_filter_answers_200_with_own_rows_or_400(
    client: TestClient, caller: Caller, request: tuple[str, dict[str, str]]
) -> None:
    await _ask(client, caller, *request)


@FUZZ
@given(request=list_requests(filtered=False))
async def test_any_orderby_and_select_answer_200_with_own_rows_or_400(
    client: TestClient, caller: Caller, request: tuple[str, dict[str, str]]
) -> None:
    await _ask(client, caller, *request)
