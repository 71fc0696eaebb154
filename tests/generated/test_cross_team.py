"""Cross-team isolation, generated from the route table: every route, present and future, is probed.

Team A has a channel with a bug, a task and a custom status; Eve belongs to Team B alone. For each
channel route Eve tries Team A's context (403), Team A's ids under her own context (404, or no
Team A row in what she gets), bulk edits mixing both teams' ids, list filters naming Team A, and
body fields naming Team A's rows; Team A's rows must come out exactly as they went in. The same
requests made by Team A's own member then succeed, so the refusals came from the channel check and
not from a malformed probe. A new route without an entry in MATRIX (cross_team_matrix.py) fails
here by name.
"""

import json
from collections.abc import Iterator
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestClient
from sqlalchemy import select

from bot.db.tables import Channel, EventDefinition, FieldMapping, FieldValue, Item, Project
from bot.items.schemas import BulkEdit
from bot.web.routing import Access, Endpoint
from tests.factories import CHANNEL, TEAM, Factory
from tests.generated.cross_team_matrix import (
    BODIES,
    ENDPOINTS,
    MATRIX,
    PATH_PARAMETER,
    REFERENCES,
    SERVER_OWNED,
    Kind,
    Probe,
    fill,
    form_of,
    known_good,
    missing_body,
    probe_of,
    route_of,
)
from tests.generated.cross_team_world import CHANNEL_B, TEAM_B, Side, World, make, team_rows
from tests.waiting import finished


async def send(
    client: TestClient,
    method: str,
    url: str,
    headers: dict[str, str],
    body: dict[str, Any] | None = None,
    form: aiohttp.FormData | None = None,
) -> tuple[int, Any, str]:
    """Status, JSON body (None when empty or not JSON: a file) and raw text of one request;
    `form` is sent as a multipart body instead of `body`."""
    if form is not None:
        response = await client.request(method, url, headers=headers, data=form)
    else:
        response = await client.request(method, url, headers=headers, json=body)
    if response.content_type == "text/event-stream":  # never ends: its first event, then close
        first = await finished(response.content.readuntil(b"\n\n"), "a stream's first event")
        response.close()
        return response.status, None, first.decode()
    text = await response.text()
    is_json = text and response.content_type == "application/json"
    return response.status, (json.loads(text) if is_json else None), text


def assert_no_leak(text: str, world: World, *, sent: str, what: str) -> None:
    """None of Team A's strings in `text`, except those the request itself carried."""
    leaked = sorted(secret for secret in world.secrets if secret in text and secret not in sent)
    assert not leaked, f"{what}: Team A's {leaked} in the response {text[:500]}"


def assert_error(status: int, payload: Any, expected: int, what: str) -> None:
    assert status == expected, f"{what}: {status} {payload}"
    assert isinstance(payload, dict) and isinstance(payload.get("error"), str), f"{what}: {payload}"


def channel_endpoints() -> Iterator[Any]:
    for endpoint in ENDPOINTS:
        if endpoint.access is Access.CHANNEL:
            yield pytest.param(endpoint, id=route_of(endpoint))


# --- the matrix covers the route table -------------------------------------------------------


def test_every_channel_route_has_a_matrix_entry() -> None:
    routes = {route_of(e) for e in ENDPOINTS if e.access is Access.CHANNEL}
    missing = sorted(routes - set(MATRIX))
    assert not missing, (
        f"CHANNEL routes without an entry in MATRIX of tests/generated/cross_team_matrix.py: "
        f"{missing}; add each with its Kind and Target so Team B is probed against it"
    )
    stale = sorted(set(MATRIX) - routes)
    assert not stale, f"MATRIX entries for routes that no longer exist: {stale}; remove them"


def test_every_body_model_has_a_known_good_body_and_its_references() -> None:
    for endpoint in ENDPOINTS:
        if endpoint.body is not None and endpoint.access is not Access.PUBLIC:
            assert endpoint.body in BODIES and endpoint.body in REFERENCES, missing_body(endpoint)
    for model, body in BODIES.items():
        model.model_validate(body)  # known-good means valid as written


def test_matrix_kinds_fit_their_routes() -> None:
    """A KEYED route has path parameters and the others none; LIST names its entity set."""
    for endpoint in ENDPOINTS:
        probe = MATRIX.get(route_of(endpoint))
        if probe is None:
            continue
        keyed = bool(PATH_PARAMETER.search(endpoint.path))
        assert keyed == (probe.kind is Kind.KEYED), route_of(endpoint)
        assert (probe.entity is not None) == (probe.kind is Kind.LIST), route_of(endpoint)
        assert (probe.kind is Kind.BULK) == (endpoint.body is BulkEdit), route_of(endpoint)
        if probe.kind is not Kind.READ:
            assert probe.target is not None, route_of(endpoint)


# --- every route needs credentials -----------------------------------------------------------


async def test_every_signed_in_route_answers_401_without_valid_credentials(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    bug = await make(client, ada.in_channel(), "/odata/bugs", name="Kept")
    before = await team_rows(factory, await _channel_pk(factory, CHANNEL))
    context = {"x-svc-teamid": TEAM, "x-svc-channelId": CHANNEL, "x-svc-entityId": "tab"}
    attempts = {
        "no credentials": {},
        "no credentials, no context": None,
        "an unknown Bearer token": {"Authorization": "Bearer " + "0" * 43},
        "an unknown cookie": {"Cookie": "graphNodeCookie=forged"},
        "an empty Bearer token": {"Authorization": "Bearer "},
    }
    failures = []
    checked = 0
    for endpoint in ENDPOINTS:
        if endpoint.access is Access.PUBLIC:
            continue
        body = known_good(endpoint)
        if body is not None and "ids" in body:
            body["ids"] = [bug["_id"]]
        url = fill(endpoint.path, bug["_id"])
        for label, credentials in attempts.items():
            headers = {} if credentials is None else {**context, **credentials}
            status, payload, _ = await send(client, endpoint.method, url, headers, body)
            checked += 1
            if status != 401 or not isinstance(payload, dict) or "error" not in payload:
                failures.append(f"{route_of(endpoint)} with {label}: {status} {payload}")
    assert not failures, "\n".join(failures)
    assert checked >= 5 * len(MATRIX)
    assert await team_rows(factory, await _channel_pk(factory, CHANNEL)) == before


async def _channel_pk(factory: Factory, channel: str) -> str:
    async with factory.work() as uow:
        pk = await uow.session.scalar(select(Channel.id).where(Channel.teams_id == channel))
    assert pk is not None
    return pk


# --- Team B against Team A, route by route ---------------------------------------------------


@pytest.mark.parametrize("endpoint", list(channel_endpoints()))
async def test_team_b_cannot_reach_team_a(
    client: TestClient, factory: Factory, world: World, endpoint: Endpoint
) -> None:
    probe = probe_of(endpoint)
    route = route_of(endpoint)
    before = await team_rows(factory, world.a.channel_pk)

    await _foreign_context(client, world, endpoint, probe)
    if probe.kind is Kind.KEYED:
        await _foreign_ids_in_path(client, world, endpoint)
    elif probe.kind is Kind.LIST:
        await _own_list(client, world, endpoint, probe)
        await _filters_naming_team_a(client, world, endpoint, probe, world.b, empty=True)
    elif probe.kind is Kind.READ:  # the caller's own channel (a PATCH of its settings too)
        own = world.b.headers
        status, payload, text = await send(
            client, endpoint.method, endpoint.path, own, known_good(endpoint)
        )
        assert status == endpoint.status, f"{route}: {status} {payload}"
        assert_no_leak(text, world, sent="", what=route)
    elif probe.kind is Kind.CREATE:
        await _create_with_server_owned_fields(client, factory, world, endpoint)
    elif probe.kind is Kind.BULK:
        await _mixed_bulk(client, world, endpoint, probe)
    await _references_to_team_a(client, world, endpoint, probe)

    after = await team_rows(factory, world.a.channel_pk)
    for table in before:
        assert after[table] == before[table], f"{route} changed Team A's {table}"

    await _team_a_itself_succeeds(client, world, endpoint, probe)


async def _foreign_context(
    client: TestClient, world: World, endpoint: Endpoint, probe: Probe
) -> None:
    """(a) Team A's context headers, or a mix of both teams': 403, whatever the request."""
    eve, route = world.eve, route_of(endpoint)
    target = world.a.row(probe.target)["_id"] if probe.target else world.a.bug["_id"]
    body = known_good(endpoint)
    if body is not None and "ids" in body:
        body["ids"] = [target]
    url = fill(endpoint.path, target)
    contexts = {
        "Team A's context": eve.in_channel(TEAM, CHANNEL),
        "Team B with Team A's channel": eve.in_channel(TEAM_B, CHANNEL),
        "Team A with Team B's channel": eve.in_channel(TEAM, CHANNEL_B),
        "Team A's context, headers upper-cased": {
            **eve.headers,
            "X-SVC-TEAMID": TEAM,
            "X-SVC-CHANNELID": CHANNEL,
        },
    }
    for label, headers in contexts.items():
        status, payload, text = await send(client, endpoint.method, url, headers, body)
        assert_error(status, payload, 403, f"{route} with {label}")
        assert_no_leak(text, world, sent=url + json.dumps(body) + str(headers), what=route)


async def _foreign_ids_in_path(client: TestClient, world: World, endpoint: Endpoint) -> None:
    """(b) Team B's own context, every Team A id in every path parameter, both key forms: 404."""
    route = route_of(endpoint)
    for value in world.ids_a:
        for form in (value, f"'{value}'"):
            url = fill(endpoint.path, form)
            body = known_good(endpoint)
            status, payload, text = await send(client, endpoint.method, url, world.b.headers, body)
            assert_error(status, payload, 404, f"{route} as {url}")
            assert_no_leak(text, world, sent=url, what=f"{route} as {url}")


async def _own_list(client: TestClient, world: World, endpoint: Endpoint, probe: Probe) -> None:
    """(b) Team B's list shows Team B's rows, none of Team A's."""
    route = route_of(endpoint)
    url = f"{endpoint.path}?$top=1000"
    status, payload, text = await send(client, "GET", url, world.b.headers)
    assert status == 200, f"{route}: {status} {payload}"
    ids = {row["_id"] for row in payload["value"]}
    assert probe.target is not None
    assert world.b.row(probe.target)["_id"] in ids, f"{route}: Team B's own row is missing"
    assert not ids & set(world.ids_a), f"{route}: Team A's rows listed"
    assert_no_leak(text, world, sent="", what=route)


def _filters(world: World, probe: Probe) -> Iterator[tuple[str, bool]]:
    """`$filter`s naming Team A's values, each with whether the entity set has its property."""
    assert probe.entity is not None
    properties = probe.entity.properties
    listed = ", ".join(f"'{value}'" for value in world.ids_a)
    yield f"teamId eq '{TEAM}'", "teamId" in properties
    yield f"channelId eq '{CHANNEL}'", "channelId" in properties
    yield f"_id in ({listed})", True
    assert probe.target is not None
    yield f"_id eq '{world.a.row(probe.target)['_id']}'", True
    yield f"tolower(channelId) eq '{CHANNEL.lower()}'", "channelId" in properties
    if "assignedTo" in probe.entity.collections:
        user = world.a.member.user
        yield f"assignedTo/any(u: u/_id eq '{user.id}')", True
        yield f"assignedTo/any(u: u/email eq '{user.email}')", True


async def _filters_naming_team_a(
    client: TestClient, world: World, endpoint: Endpoint, probe: Probe, side: Side, *, empty: bool
) -> None:
    """(d) Filters on Team A's values: empty for Team B (400 when the list has no such
    property); the same filters find Team A's rows for Team A's own member (`empty=False`)."""
    route = route_of(endpoint)
    for text, known in _filters(world, probe):
        response = await client.get(
            endpoint.path, params={"$filter": text, "$count": "true"}, headers=side.headers
        )
        payload = await response.json()
        what = f"{route} $filter={text}"
        if not known:
            assert_error(response.status, payload, 400, what)
            continue
        assert response.status == 200, f"{what}: {response.status} {payload}"
        if empty:
            assert payload["value"] == [] and payload["@odata.count"] == 0, f"{what}: {payload}"
        else:
            assert payload["value"], f"{what}: Team A's own member found nothing"


async def _create_with_server_owned_fields(
    client: TestClient, factory: Factory, world: World, endpoint: Endpoint
) -> None:
    """(b) A create in Team B's context naming Team A in server-owned fields makes a Team B row."""
    route = route_of(endpoint)
    body = known_good(endpoint, world.b)
    assert body is not None, route
    owned = {
        "_id": world.a.bug["_id"],
        "teamId": TEAM,
        "channelId": CHANNEL,
        "internalId": world.a.bug["internalId"],
        "createdBy": {"email": world.a.member.user.email},
    }
    assert set(owned) == set(SERVER_OWNED)
    status, payload, text = await send(
        client, endpoint.method, endpoint.path, world.b.headers, {**body, **owned}
    )
    assert status == endpoint.status, f"{route}: {status} {payload}"
    # Nothing Team A's was kept: the request's own Team A values do not come back either.
    assert_no_leak(text, world, sent="", what=route)
    async with factory.work() as uow:
        homes = [
            await uow.session.scalar(select(model.channel_id).where(model.id == payload["_id"]))
            for model in (Item, FieldValue, Project, FieldMapping, EventDefinition)
        ]
    assert [home for home in homes if home] == [world.b.channel_pk], f"{route}: made in {homes}"


async def _mixed_bulk(client: TestClient, world: World, endpoint: Endpoint, probe: Probe) -> None:
    """(c) Team A's ids among Team B's: Svc_NOTFOUND for Team A's, success for Team B's own."""
    route = route_of(endpoint)
    assert probe.target is not None
    own = world.b.row(probe.target)["_id"]
    ids = [world.a.bug["_id"], own, world.a.task["_id"], world.b.status["_id"], *world.ids_a, own]
    body = {**(known_good(endpoint) or {}), "ids": ids}
    status, payload, _ = await send(client, endpoint.method, endpoint.path, world.b.headers, body)
    assert status == 200, f"{route}: {status} {payload}"
    assert [result["_id"] for result in payload] == ids
    for result in payload:
        if result["_id"] == own:
            assert result["status"] == "success", f"{route}: {result}"
        else:
            assert result == {
                "_id": result["_id"],
                "name": None,
                "status": "error",
                "error": "Svc_NOTFOUND",
            }, f"{route}: {result}"


async def _references_to_team_a(
    client: TestClient, world: World, endpoint: Endpoint, probe: Probe
) -> None:
    """A body field naming Team A's project, status or member, sent in Team B's context: 400."""
    if endpoint.body is None:
        return
    assert endpoint.body in REFERENCES, missing_body(endpoint)
    route = route_of(endpoint)
    own = world.b.row(probe.target)["_id"] if probe.target else ""
    url = fill(endpoint.path, own)
    for field in REFERENCES[endpoint.body]:
        body = known_good(endpoint, world.b)
        assert body is not None
        if "ids" in body:
            body["ids"] = [own]
        body[field] = world.reference(field)
        status, payload, text = await send(client, endpoint.method, url, world.b.headers, body)
        assert_error(status, payload, 400, f"{route} with Team A's {field}")
        assert_no_leak(text, world, sent=json.dumps(body), what=f"{route} with Team A's {field}")


async def _team_a_itself_succeeds(
    client: TestClient, world: World, endpoint: Endpoint, probe: Probe
) -> None:
    """The probes' requests, made by Team A's member in Team A, do what the route says."""
    route = route_of(endpoint)
    target = world.a.row(probe.target)["_id"] if probe.target else ""
    url = fill(endpoint.path, *world.a.keys(probe.target))
    body = known_good(endpoint, world.a)
    if body is not None and "ids" in body:
        body["ids"] = [target]
    form = form_of(endpoint)
    status, payload, _ = await send(client, endpoint.method, url, world.a.headers, body, form)
    if probe.at_source:
        assert status in (400, 502), f"{route} for Team A itself: {status} {payload}"
        assert "Jira" in payload["error"], f"{route} for Team A itself: {payload}"
        return
    assert status == endpoint.status, f"{route} for Team A itself: {status} {payload}"
    if probe.kind is Kind.LIST:
        assert target in {row["_id"] for row in payload["value"]}, route
        await _filters_naming_team_a(client, world, endpoint, probe, world.a, empty=False)
    if probe.kind is Kind.BULK:
        assert [result["status"] for result in payload] == ["success"], f"{route}: {payload}"
