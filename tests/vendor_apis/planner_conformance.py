"""Checks an exchange with the local Planner against Microsoft Graph's published v1.0 metadata
(`microsoft-graph/v1.0.csdl`, OData CSDL): the path is walked from the `planner` singleton through
the navigation properties it names (so an unknown segment fails), the method is one OData allows
there (GET everywhere; POST on a collection; PATCH and DELETE on an entity), and every body's
properties are declared on the entity or complex type with the declared type (`@odata.*`
annotations apart; open types take more). Collections are `{value, @odata.nextLink?}`.

What the metadata leaves implicit, from Graph's documentation: PATCH and DELETE of a Planner
resource carry `If-Match`; `plannerAssignments` is open, each key an Entra object id whose value
is a `plannerAssignment` (or null, to remove it); errors are `{"error": {code, message}}`; the
token endpoint (`/{tenant}/oauth2/v2.0/token`) is Entra's OAuth 2.0 client-credentials grant.
JSON batching (`POST /v1.0/$batch`) is Graph's, not an entity of the metadata: its envelope is
checked as Graph documents it (`{requests: [{id, method, url, headers?, body?}]}`, 1 to 20,
ids unique; answered `{responses: [{id, status, headers?, body?}]}`, one per request), and each
request inside it, with its answer, is checked as one sent alone.
"""

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from tests.vendor_apis.conformance import Exchange

CSDL = Path(__file__).parent / "microsoft-graph" / "v1.0.csdl"
_EDM = "{http://docs.oasis-open.org/odata/ns/edm}"
_NAMESPACES = ("microsoft.graph.", "graph.")
_TOKEN_PATH = re.compile(r"^/[^/]+/oauth2/v2\.0/token$")
_QUERY = {"$skiptoken", "$top", "$select"}
_COLLECTION_KEYS = {"@odata.context", "@odata.nextLink", "@odata.count", "value"}
_OPEN_VALUES = {"plannerAssignments": "plannerAssignment"}  # documented, not in the CSDL
_SUCCESS = {"GET": {200}, "POST": {201}, "PATCH": {200, 204}, "DELETE": {204}}
_BATCH = "/v1.0/$batch"
_BATCH_MOST = 20


@dataclass
class Inner:
    """A request inside a JSON batch with its answer, as if it had been sent alone."""

    method: str
    path: str
    query: dict[str, str]
    request_headers: dict[str, str]
    request_body: Any
    status: int
    response_body: Any


@dataclass
class Type:
    name: str
    properties: dict[str, tuple[str, bool]] = field(default_factory=dict)  # name → (type, nullable)
    navigation: dict[str, str] = field(default_factory=dict)
    open: bool = False
    members: set[str] | None = None  # an enum's


class Metadata:
    def __init__(self, path: Path = CSDL) -> None:
        self.types: dict[str, Type] = {}
        self.singletons: dict[str, str] = {}
        self.entity_sets: dict[str, str] = {}  # `users`, ...: collections at the root
        schema = next(
            s
            for s in ET.parse(path).getroot().iter(f"{_EDM}Schema")
            if s.get("Namespace") == "microsoft.graph"
        )
        bases: dict[str, str] = {}
        for node in schema:
            tag = node.tag.removeprefix(_EDM)
            name = node.get("Name", "")
            if tag in ("EntityType", "ComplexType"):
                found = Type(name, open=node.get("OpenType") == "true")
                for prop in node.findall(f"{_EDM}Property"):
                    nullable = prop.get("Nullable") != "false"
                    found.properties[prop.get("Name", "")] = (_bare(prop.get("Type", "")), nullable)
                for nav in node.findall(f"{_EDM}NavigationProperty"):
                    found.navigation[nav.get("Name", "")] = _bare(nav.get("Type", ""))
                self.types[name] = found
                if node.get("BaseType"):
                    bases[name] = _bare(node.get("BaseType", ""))
            elif tag == "EnumType":
                members = {m.get("Name", "") for m in node.findall(f"{_EDM}Member")}
                self.types[name] = Type(name, members=members)
            elif tag == "EntityContainer":
                for single in node.findall(f"{_EDM}Singleton"):
                    self.singletons[single.get("Name", "")] = _bare(single.get("Type", ""))
                for entity_set in node.findall(f"{_EDM}EntitySet"):
                    name = entity_set.get("Name", "")
                    self.entity_sets[name] = _bare(entity_set.get("EntityType", ""))
        for name in self.types:
            base = bases.get(name)
            while base is not None:  # inherited properties, nearest base last to lose
                inherited = self.types[base]
                self.types[name].properties = {
                    **inherited.properties,
                    **self.types[name].properties,
                }
                self.types[name].navigation = {
                    **inherited.navigation,
                    **self.types[name].navigation,
                }
                base = bases.get(base)

    def resolve(self, path: str) -> tuple[str, bool] | str:
        """The path's type and whether it is a collection, or what is wrong with it."""
        segments = [s for s in path.removeprefix("/v1.0/").split("/") if s]
        if segments and segments[0] in self.entity_sets:
            current, collection = self.entity_sets[segments[0]], True
        elif segments and segments[0] in self.singletons:
            current, collection = self.singletons[segments[0]], False
        else:
            return f"{path}: not under a singleton or entity set of the metadata"
        for segment in segments[1:]:
            if collection:  # a key into the collection
                collection = False
                continue
            target = self.types[current].navigation.get(segment)
            if target is None:
                return f"{path}: {current} has no navigation property {segment!r}"
            collection = target.startswith("Collection(")
            current = target.removeprefix("Collection(").removesuffix(")")
        return current, collection

    def check_value(self, where: str, type_name: str, value: Any, nullable: bool) -> list[str]:
        if value is None:
            return [] if nullable else [f"{where}: null where {type_name} may not be"]
        if type_name.startswith("Collection("):
            if not isinstance(value, list):
                return [f"{where}: not a list"]
            inner = type_name.removeprefix("Collection(").removesuffix(")")
            return [
                p
                for i, v in enumerate(value)
                for p in self.check_value(f"{where}[{i}]", inner, v, True)
            ]
        primitive = _PRIMITIVES.get(type_name)
        if primitive is not None:
            return [] if primitive(value) else [f"{where}: {value!r} is not {type_name}"]
        declared = self.types.get(type_name)
        if declared is None:
            return [f"{where}: unknown type {type_name}"]
        if declared.members is not None:
            ok = isinstance(value, str) and value in declared.members
            return [] if ok else [f"{where}: {value!r} is not a member of {type_name}"]
        return self.check_object(where, declared, value)

    def check_object(self, where: str, declared: Type, value: Any) -> list[str]:
        if not isinstance(value, dict):
            return [f"{where}: not an object ({declared.name})"]
        problems = []
        for key, item in value.items():
            if key.startswith("@odata."):
                continue
            prop = declared.properties.get(key)
            if prop is not None:
                problems += self.check_value(f"{where}.{key}", prop[0], item, prop[1])
            elif declared.name in _OPEN_VALUES:
                problems += self.check_value(
                    f"{where}.{key}", _OPEN_VALUES[declared.name], item, True
                )
            elif not declared.open:
                problems.append(f"{where}: {declared.name} has no property {key!r}")
        return problems


def _bare(type_name: str) -> str:
    collection = type_name.startswith("Collection(")
    inner = type_name.removeprefix("Collection(").removesuffix(")")
    for prefix in _NAMESPACES:
        inner = inner.removeprefix(prefix)
    return f"Collection({inner})" if collection else inner


def _is_time(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


_PRIMITIVES = {
    "Edm.String": lambda v: isinstance(v, str),
    "Edm.Int32": lambda v: isinstance(v, int) and not isinstance(v, bool) and -(2**31) <= v < 2**31,
    "Edm.Boolean": lambda v: isinstance(v, bool),
    "Edm.DateTimeOffset": _is_time,
}


def check(metadata: Metadata, exchange: Exchange) -> list[str]:
    """Every way one exchange departs from the metadata (and Graph's documented rules)."""
    said = f"{exchange.method} {exchange.path} → {exchange.status}"
    if _TOKEN_PATH.match(exchange.path):
        return [f"{said}: {p}" for p in _check_token(exchange)]
    if exchange.path == _BATCH:
        return [f"{said}: {p}" for p in _check_batch(metadata, exchange)]
    resolved = metadata.resolve(exchange.path)
    if isinstance(resolved, str):
        return [resolved]
    type_name, collection = resolved
    problems = []
    allowed = {"GET", "POST"} if collection else {"GET", "PATCH", "DELETE"}
    if exchange.method not in allowed:
        problems.append(f"{said}: {exchange.method} is not allowed on {type_name}")
    unknown = set(exchange.query) - _QUERY
    if unknown:
        problems.append(f"{said}: undeclared query parameters {sorted(unknown)}")
    headers = {k.lower(): v for k, v in exchange.request_headers.items()}
    if exchange.method in ("PATCH", "DELETE") and not headers.get("if-match"):
        problems.append(f"{said}: no If-Match")
    if exchange.request_body is not None:
        problems += metadata.check_value(f"{said} request", type_name, exchange.request_body, False)
    body = exchange.response_body
    if exchange.status >= 400:
        error = body.get("error") if isinstance(body, dict) else None
        if not isinstance(error, dict) or not isinstance(error.get("message"), str):
            problems.append(f"{said}: the error is not Graph's {{error: {{code, message}}}}")
        return problems
    if exchange.status not in _SUCCESS.get(exchange.method, set()):
        problems.append(f"{said}: {exchange.status} is not {exchange.method}'s answer")
    if body is None:
        return problems
    if collection and exchange.method == "GET":
        if not isinstance(body, dict) or not isinstance(body.get("value"), list):
            return [*problems, f"{said}: a collection without value"]
        if set(body) - _COLLECTION_KEYS:
            problems.append(f"{said}: a collection with {sorted(set(body) - _COLLECTION_KEYS)}")
        next_link = body.get("@odata.nextLink")
        if next_link is not None and exchange.path not in str(next_link):
            problems.append(f"{said}: @odata.nextLink leaves the collection: {next_link}")
        for i, entity in enumerate(body["value"]):
            problems += metadata.check_value(f"{said} value[{i}]", type_name, entity, False)
        return problems
    problems += metadata.check_value(f"{said} response", type_name, body, False)
    return problems


def _check_batch(metadata: Metadata, exchange: Exchange) -> list[str]:
    if exchange.method != "POST":
        return ["$batch takes POST"]
    body = exchange.request_body
    asked = body.get("requests") if isinstance(body, dict) else None
    if not isinstance(asked, list) or not 1 <= len(asked) <= _BATCH_MOST:
        return [f"requests must be a list of 1 to {_BATCH_MOST}"]
    problems = []
    for n, request in enumerate(asked):
        if not isinstance(request, dict) or set(request) - {
            "id",
            "method",
            "url",
            "headers",
            "body",
            "dependsOn",
        }:
            problems.append(f"requests[{n}] is not {{id, method, url, headers?, body?}}")
        elif not all(isinstance(request.get(k), str) for k in ("id", "method", "url")):
            problems.append(f"requests[{n}]: id, method and url must be strings")
        elif not request["url"].startswith("/") or request["url"].startswith("/v1.0/"):
            problems.append(f"requests[{n}]: url must be relative to the version")
    if problems:
        return problems
    ids = [request["id"] for request in asked]
    if len(set(ids)) < len(ids):
        problems.append("request ids are not unique")
    answer = exchange.response_body
    if exchange.status != 200:
        error = answer.get("error") if isinstance(answer, dict) else None
        if exchange.status < 400 or not isinstance(error, dict):
            problems.append(f"{exchange.status} is not a batch's answer or Graph's error")
        return problems
    listed = answer.get("responses") if isinstance(answer, dict) else None
    if not isinstance(listed, list) or not all(isinstance(r, dict) for r in listed):
        return [*problems, "the answer has no responses list"]
    by_id = {r.get("id"): r for r in listed}
    if sorted(by_id, key=str) != sorted(ids) or len(listed) != len(ids):
        return [*problems, "the responses do not answer each request once"]
    for request in asked:
        found = by_id[request["id"]]
        if not isinstance(found.get("status"), int) or set(found) - {
            "id",
            "status",
            "headers",
            "body",
        }:
            problems.append(f"response {request['id']} is not {{id, status, headers?, body?}}")
            continue
        path, _, query = request["url"].partition("?")
        inner = Inner(
            request["method"],
            "/v1.0" + path,
            dict(p.split("=", 1) for p in query.split("&") if "=" in p),
            dict(request.get("headers") or {}),
            request.get("body"),
            found["status"],
            found.get("body"),
        )
        problems += check(metadata, inner)
    return problems


def _check_token(exchange: Exchange) -> list[str]:
    problems = []
    form = dict(p.split("=", 1) for p in str(exchange.request_body or "").split("&") if "=" in p)
    for name in ("grant_type", "client_id", "client_secret", "scope"):
        if name not in form:
            problems.append(f"the form lacks {name}")
    if exchange.method != "POST":
        problems.append("the token endpoint takes POST")
    body = exchange.response_body if isinstance(exchange.response_body, dict) else {}
    wanted = ("access_token", "expires_in", "token_type") if exchange.status == 200 else ("error",)
    problems += [f"the answer lacks {name}" for name in wanted if name not in body]
    return problems


_METADATA: Metadata | None = None


def graph() -> Metadata:
    """Graph's metadata, read once per test process."""
    global _METADATA
    if _METADATA is None:
        _METADATA = Metadata()
    return _METADATA


def problems_of(exchanges: list[Exchange]) -> list[str]:
    metadata = graph()
    return [problem for exchange in exchanges for problem in check(metadata, exchange)]
