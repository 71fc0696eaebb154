"""Schemathesis over `/openapi.json` against the real app on a loopback port, on both databases:
no 5xx, and every status, content type and body as the document describes it."""

import asyncio
import base64
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import Enum
from typing import Any

import aiohttp
import hypothesis.core
import hypothesis.vendor.pretty
import pytest
import requests
import schemathesis
from aiohttp import web
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from schemathesis import APIOperation, Case, GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.errors import FailureGroup
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from bot.web.routing import CHANNEL_HEADER, COOKIE, TEAM_HEADER
from tests.factories import CHANNEL, TEAM, Factory

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
# Per operation and generation mode; about 24 operations x 2 modes x this per database.
MAX_EXAMPLES = 20
SEEDED_ITEMS = 3
# Paths with these parameters name an entity; about half the cases name one that exists.
KEY_PARAMETERS = ("id", "key")
REAL_KEYS = st.none() | st.integers(min_value=0, max_value=15)
SIGN_OUT = ("DELETE", "/api/auth/session")
OPERATORS = ["eq", "ne", "gt", "ge", "lt", "le"]
FUNCTIONS = ["contains", "startswith", "endswith"]


class Caller(Enum):
    MEMBER = "a member of the team, with a session cookie"
    SCRIPT = "the same member, with an API token"
    ANONYMOUS = "no credentials"
    OUTSIDER = "signed in, not a member of the team"
    STRAY_CONTEXT = "the member, with the generated context headers"


# Mostly the member in the channel, so that bodies, paths and query strings reach the handlers.
CALLERS = st.sampled_from([Caller.MEMBER] * 4 + [c for c in Caller if c is not Caller.MEMBER])
# Now and then a body that is not JSON: 415.
MEDIA_TYPES = st.sampled_from([None] * 9 + ["text/plain"])


@dataclass
class Rig:
    """What the generated calls need: the server, who calls, and ids that exist."""

    base_url: str
    credentials: dict[Caller, dict[str, str]]  # the caller's Cookie or Authorization header
    renew: Callable[[Caller], dict[str, str]]  # new credentials: signing out revokes its own
    keys: dict[str, list[str]]  # entity set in a path → ids that exist in the channel

    def keys_for(self, path: str) -> list[str]:
        for entity_set, ids in self.keys.items():
            if re.search(rf"/{entity_set}\b", path):
                return ids
        return []


@pytest.fixture(autouse=True)
def _hypothesis_printer_put_back() -> Iterator[None]:
    """Schemathesis swaps Hypothesis' printer, process-wide, for one that prints nothing (it
    speeds up its own runs): every later property test would report its failing example blank.
    Its pytest plugin, which would do so in every run, is off (`-p no:schemathesis`)."""
    yield
    hypothesis.core.RepresentationPrinter = hypothesis.vendor.pretty.RepresentationPrinter  # type: ignore[misc]


async def test_every_operation_conforms_to_the_openapi_document(
    app: web.Application, factory: Factory
) -> None:
    member = await factory.member("Schema Fuzzer")
    outsider = await factory.user("Outsider")

    async def sign_in(caller: Caller) -> dict[str, str]:
        if caller is Caller.ANONYMOUS:
            return {}
        if caller is Caller.SCRIPT:
            return {"Authorization": f"Bearer {await factory.api_token(member.user)}"}
        user = outsider if caller is Caller.OUTSIDER else member.user
        return {"Cookie": f"{COOKIE}={await factory.session(user)}"}

    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        base_url = f"http://127.0.0.1:{runner.addresses[0][1]}"
        loop = asyncio.get_running_loop()

        def renew(caller: Caller) -> dict[str, str]:
            return asyncio.run_coroutine_threadsafe(sign_in(caller), loop).result(30)

        rig = Rig(
            base_url=base_url,
            credentials={caller: await sign_in(caller) for caller in Caller},
            renew=renew,
            keys=await _seed(base_url, member.in_channel()),
        )
        # requests blocks: the generated calls run in a thread while this loop serves them.
        failures = await asyncio.to_thread(_explore, rig)
    finally:
        await runner.cleanup()
    assert not failures, "\n\n".join(failures)


async def _seed(base_url: str, headers: dict[str, str]) -> dict[str, list[str]]:
    """A few bugs and tasks made through the API, and the channel's field values."""
    keys: dict[str, list[str]] = {"bugs": [], "tasks": []}
    async with aiohttp.ClientSession(base_url, headers=headers) as http:
        for plural, ids in keys.items():
            for number in range(SEEDED_ITEMS):
                async with http.post(f"/odata/{plural}", json={"name": f"Seed {number}"}) as made:
                    assert made.status == 201, await made.text()
                    ids.append((await made.json())["_id"])
        for entity_set, path in (
            ("status", "/odata/status"),
            ("priority", "/api/priority"),
            ("severity", "/api/severity"),
        ):
            async with http.get(path) as listed:
                assert listed.status == 200, await listed.text()
                keys[entity_set] = [value["_id"] for value in (await listed.json())["value"]]
    return keys


def _explore(rig: Rig) -> list[str]:
    """Every operation in both generation modes; one entry per operation and mode that failed."""
    schema = schemathesis.openapi.from_url(f"{rig.base_url}/openapi.json")
    failures = []
    with requests.Session() as http:
        for result in schema.get_all_operations():
            operation = result.ok()
            raw = operation.definition.raw
            if "text/event-stream" in json.dumps(raw.get("responses", {}).get("200", {})):
                continue  # a stream never ends; tests/tabs_api/test_change_stream.py has it
            # Negative cases break parameters or a body; an operation with neither has none.
            negatable = "parameters" in raw or "requestBody" in raw
            for mode in [GenerationMode.POSITIVE] + [GenerationMode.NEGATIVE] * negatable:
                try:
                    _explore_operation(rig, http, operation, mode)
                # FailureGroup is a BaseExceptionGroup: the checks that failed, with a curl line.
                except (Exception, FailureGroup) as exc:
                    failures.append(f"{operation.label} ({mode.value}):\n{exc}")
    return failures


def _explore_operation(
    rig: Rig, http: requests.Session, operation: APIOperation, mode: GenerationMode
) -> None:
    # Well-formed options in negative mode would overwrite the parameter it broke.
    queries = _odata_queries(operation) if mode is GenerationMode.POSITIVE else st.none()

    @settings(
        max_examples=MAX_EXAMPLES,
        derandomize=True,
        database=None,
        # Each example is an HTTP round trip to a real database: no per-example deadline.
        deadline=None,
        # The server keeps state between examples, so a replay may not fail the same way:
        # report the first failing example as it was, without shrinking it.
        phases=[Phase.explicit, Phase.generate],
    )
    @given(
        case=operation.as_strategy(generation_mode=mode),
        caller=CALLERS,
        real_key=REAL_KEYS,
        quoted=st.booleans(),
        query=queries,
        media_type=MEDIA_TYPES if "requestBody" in operation.definition.raw else st.none(),
    )
    def explore(
        case: Case,
        caller: Caller,
        real_key: int | None,
        quoted: bool,
        query: dict[str, str] | None,
        media_type: str | None,
    ) -> None:
        _use_real_key(rig, case, real_key, quoted=quoted)
        if query is not None:
            case.query = query
        headers = _authenticate(rig, case, caller)
        if media_type is not None:
            headers["Content-Type"] = media_type
        response = case.call(base_url=rig.base_url, session=http, headers=headers)
        case.validate_response(response, checks=CHECKS, headers=headers)

    explore()


def _use_real_key(rig: Rig, case: Case, real_key: int | None, *, quoted: bool) -> None:
    """The generated id swapped for the `real_key`-th existing one (None: the generated one)."""
    keys = rig.keys_for(case.path)
    for name in KEY_PARAMETERS:
        if real_key is not None and keys and name in (case.path_parameters or {}):
            key = keys[real_key % len(keys)]
            case.path_parameters[name] = f"'{key}'" if quoted and name == "key" else key  # type: ignore[index]


def _authenticate(rig: Rig, case: Case, caller: Caller) -> dict[str, str]:
    """The caller's credentials and, but for a stray context, the member's channel."""
    case.cookies = {}
    for name in list(case.headers or {}):
        if name.lower() in ("cookie", "authorization"):
            del case.headers[name]  # type: ignore[union-attr]
    signing_out = (case.method.upper(), case.path) == SIGN_OUT
    headers = rig.renew(caller) if signing_out else dict(rig.credentials[caller])
    if caller is not Caller.STRAY_CONTEXT:
        headers |= {TEAM_HEADER: TEAM, CHANNEL_HEADER: CHANNEL}
    return headers


def _odata_queries(operation: APIOperation) -> st.SearchStrategy[dict[str, str] | None]:
    """For a list, well-formed query options over its fields, or None to keep the generated
    query: random text seldom gets past the $filter parser to the SQL behind it."""
    fields = _collection_fields(operation)
    if not fields:
        return st.none()
    scalars = {name: kind for name, kind in fields.items() if kind is not None}
    texts = sorted(name for name, kind in scalars.items() if kind == "string")
    selectable = sorted(name for name in fields if not name.startswith("@odata."))
    text = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=6)
    quoted = (text | st.sampled_from(["Not Started", "Bug", "ß", "İ"])).map(
        lambda value: "'" + value.replace("'", "''") + "'"
    )
    literals: dict[str, st.SearchStrategy[str]] = {
        "string": quoted,
        "integer": st.integers(-(2**40), 2**40).map(str),
        "boolean": st.sampled_from(["true", "false"]),
        "date-time": st.sampled_from(
            ["2026-11-21T09:30:00Z", "2026-11-21", "'$date:2026-11-21T09:30:00.000Z'"]
        ),
    }

    def compared(name: str) -> st.SearchStrategy[str]:
        value = literals[scalars[name]] | st.just("null")
        return st.builds(f"{name} {{}} {{}}".format, st.sampled_from(OPERATORS), value)

    comparison = st.sampled_from(sorted(scalars)).flatmap(compared)
    text_field = st.sampled_from(texts) | st.sampled_from(texts).map("tolower({})".format)
    call = st.builds("{}({}, {})".format, st.sampled_from(FUNCTIONS), text_field, quoted)
    found_in = st.builds("substringof({}, {})".format, quoted, text_field)
    listed = st.builds(
        "{} in ({})".format,
        st.sampled_from(texts),
        st.lists(quoted, min_size=1, max_size=3).map(", ".join),
    )
    assignee = st.builds(
        "assignedTo/{}(u: u/{} eq {})".format,
        st.sampled_from(["any", "all"]),
        st.sampled_from(["email", "displayName"]),
        quoted,
    )
    condition = st.recursive(
        comparison | call | found_in | listed | assignee,
        lambda inner: (
            st.builds("({}) and ({})".format, inner, inner)
            | st.builds("{} or {}".format, inner, inner)
            | st.builds("not ({})".format, inner)
        ),
        max_leaves=3,
    )
    token_value = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**70), 2**70),
        text,
        st.sampled_from(["2026-11-21T09:30:00+00:00", "2026-11-21T09:30:00", "x"]),
    )
    order = st.builds(
        "{}{}".format, st.sampled_from(sorted(scalars)), st.sampled_from(["", " asc", " desc"])
    )
    options = st.fixed_dictionaries(
        {},
        optional={
            "$filter": condition,
            "$orderby": st.lists(order, min_size=1, max_size=2, unique=True).map(",".join),
            "$select": st.lists(st.sampled_from(selectable), min_size=1, max_size=3).map(",".join),
            "$top": st.integers(0, 1100).map(str),
            "$skip": st.integers(0, 2).map(str),
            "$count": st.sampled_from(["true", "false"]),
            "$skiptoken": st.lists(token_value, max_size=3).map(_skiptoken),
        },
    )
    return st.none() | options


def _skiptoken(values: list[Any]) -> str:
    """A token shaped as the server makes them (base64url of a JSON list of sort values)."""
    return base64.urlsafe_b64encode(json.dumps(values).encode()).decode().rstrip("=")


def _collection_fields(operation: APIOperation) -> dict[str, str | None]:
    """A list's element fields and their scalar kinds (None: not a scalar); {} for other routes."""
    raw = operation.definition.raw
    if not any(parameter["name"] == "$filter" for parameter in raw.get("parameters", [])):
        return {}
    components = operation.schema.raw_schema["components"]["schemas"]
    page = raw["responses"]["200"]["content"]["application/json"]["schema"]
    value = _resolve(components, page)["properties"]["value"]["items"]
    properties = _resolve(components, value)["properties"]
    return {name: _scalar_kind(components, schema) for name, schema in properties.items()}


def _scalar_kind(components: dict[str, Any], schema: dict[str, Any]) -> str | None:
    """string, integer, boolean or date-time, nulls aside; None for arrays and objects."""
    options = [_resolve(components, option) for option in schema.get("anyOf", [schema])]
    kinds = {
        "date-time" if option.get("format") == "date-time" else option.get("type", "string")
        for option in options
        if option.get("type") != "null"
    }
    kind = kinds.pop() if len(kinds) == 1 else None
    return kind if kind in ("string", "integer", "boolean", "date-time") else None


def _resolve(components: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    return components[schema["$ref"].rsplit("/", 1)[1]] if "$ref" in schema else schema
