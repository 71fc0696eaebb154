"""Checks an HTTP exchange against a vendor's published Swagger 2.0 description: the path
matches one of its templates, the method exists there, the query parameters are declared and the
required ones present (with the api-version the description names), and the request and
response bodies validate against the declared schemas (`$ref`s resolved).

Where the service differs from its own description in ways the vendor documents, the check
follows the service, and says so here:
- lists come wrapped as `{count, value}` although the description declares bare arrays;
- `GET .../workItems/{id}/comments` is also the service's comment list (`$top`,
  `continuationToken`, `order`; `ids` then absent): Swagger allows one operation per path and
  method, so the description keeps only the batch read;
- `workitemsbatch` with `errorPolicy: omit` answers `null` for an id it cannot read.
"""

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar
from urllib.parse import unquote

from jsonschema import Draft4Validator

HERE = Path(__file__).parent
AZURE_DEVOPS = tuple(
    HERE / "azure-devops" / name
    for name in ("core.json", "workItemTracking.json", "serviceHooks.json")
)
_DROPPED = {"description", "example", "readOnly", "discriminator", "xml", "externalDocs", "title"}
_VERSION = re.compile(r"set to '([^']+)'")
_COMMENT_LIST = {"$top", "continuationToken", "order"}


class Exchange(Protocol):
    method: str
    path: str
    query: dict[str, str]
    request_headers: dict[str, str]
    request_body: Any
    status: int
    response_body: Any


@dataclass(frozen=True)
class Operation:
    template: str
    method: str
    pattern: re.Pattern[str]
    parameters: tuple[dict[str, Any], ...]
    consumes: tuple[str, ...]
    responses: dict[str, Any]
    definitions: dict[str, Any]

    @property
    def literal(self) -> int:
        """How much of the template is fixed text: the more, the more specific."""
        return len(re.sub(r"\{[^}]+\}", "", self.template))

    def parameter(self, where: str) -> list[dict[str, Any]]:
        return [p for p in self.parameters if p["in"] == where]


class Description:
    def __init__(self, files: Iterable[Path] = AZURE_DEVOPS) -> None:
        self.operations: list[Operation] = []
        self.definitions: dict[str, dict[str, Any]] = {}
        for file in files:
            spec = json.loads(file.read_text(encoding="utf-8-sig"))
            definitions = {name: _converted(x) for name, x in spec["definitions"].items()}
            self.definitions[file.stem] = definitions
            for template, methods in spec["paths"].items():
                shared = methods.get("parameters", [])
                for method, op in methods.items():
                    if method == "parameters":
                        continue
                    parameters = [_resolved(spec, p) for p in [*shared, *op.get("parameters", [])]]
                    self.operations.append(
                        Operation(
                            template,
                            method.upper(),
                            _pattern(template),
                            tuple(parameters),
                            tuple(op.get("consumes", [])),
                            op.get("responses", {}),
                            definitions,
                        )
                    )

    def check(self, exchange: Exchange) -> list[str]:
        """What in the exchange the description does not allow; empty when it conforms."""
        path = unquote(exchange.path)
        return checked(
            self.operations, exchange, lambda op: self._check_operation(op, path, exchange)
        )

    def check_event(self, payload: Any) -> list[str]:
        """A service hook's call body against the description's `Event`."""
        return _invalid(payload, {"$ref": "#/definitions/Event"}, self.definitions["serviceHooks"])

    def _check_operation(self, op: Operation, path: str, exchange: Exchange) -> list[str]:
        where = f"{exchange.method} {op.template}"
        problems = []
        found = op.pattern.match(path)
        assert found is not None
        for parameter in op.parameter("path"):
            value = found[_group(parameter["name"])]
            if parameter.get("type") == "integer" and not value.isdigit():
                problems.append(f"{where}: path parameter {parameter['name']}={value!r}: not int")
        problems += _query_problems(where, op, exchange)
        problems += _request_problems(where, op, exchange)
        if 200 <= exchange.status < 300:
            problems += _response_problems(where, op, exchange)
        return problems


Op = TypeVar("Op", bound="Matched")


class Matched(Protocol):
    method: str
    pattern: re.Pattern[str]

    @property
    def literal(self) -> int: ...


def checked(
    operations: Iterable[Op], exchange: Exchange, check: Callable[[Op], list[str]]
) -> list[str]:
    """The exchange against the operations its path and method match, the most specific path
    first: empty when one allows it, else what the last one found wrong."""
    path = unquote(exchange.path)
    matching = [op for op in operations if op.pattern.match(path)]
    if not matching:
        return [f"{exchange.method} {path}: no path template of the description matches"]
    allowed = [op for op in matching if op.method == exchange.method]
    if not allowed:
        methods = sorted({op.method for op in matching})
        return [f"{exchange.method} {path}: the description allows only {methods} there"]
    problems: list[str] = []
    for op in sorted(allowed, key=lambda op: op.literal, reverse=True):
        problems = check(op)
        if not problems:
            return []
    return problems


def _query_problems(where: str, op: Operation, exchange: Exchange) -> list[str]:
    problems = []
    declared = {p["name"]: p for p in op.parameter("query")}
    comment_list = op.template.endswith("/comments") and exchange.method == "GET"
    if comment_list and "ids" not in exchange.query:
        declared.pop("ids", None)
        declared.update({name: {"name": name, "type": "string"} for name in _COMMENT_LIST})
    for name, parameter in declared.items():
        value = exchange.query.get(name)
        if value is None:
            if parameter.get("required"):
                problems.append(f"{where}: required query parameter {name} is missing")
            continue
        if name == "api-version":
            wanted = _VERSION.search(parameter.get("description", ""))
            if wanted and value != wanted[1]:
                problems.append(
                    f"{where}: api-version {value!r}, the description says {wanted[1]!r}"
                )
        elif parameter.get("type") == "boolean" and value not in ("true", "false"):
            problems.append(f"{where}: {name}={value!r} is not a boolean")
        elif parameter.get("type") == "integer" and not value.lstrip("-").isdigit():
            problems.append(f"{where}: {name}={value!r} is not an integer")
        elif "enum" in parameter and value not in parameter["enum"]:
            problems.append(f"{where}: {name}={value!r} is not one of {parameter['enum']}")
    for name in exchange.query:
        if name not in declared:
            problems.append(f"{where}: query parameter {name} is not in the description")
    return problems


def _request_problems(where: str, op: Operation, exchange: Exchange) -> list[str]:
    body = op.parameter("body")
    if not body:
        if exchange.request_body is not None:
            return [f"{where}: the description declares no request body"]
        return []
    if exchange.request_body is None:
        return [f"{where}: the request has no body"] if body[0].get("required") else []
    problems = []
    content_type = _header(exchange.request_headers, "Content-Type").split(";")[0].strip()
    if op.consumes and content_type not in op.consumes:
        problems.append(
            f"{where}: Content-Type {content_type!r}, the description takes {op.consumes}"
        )
    problems += [
        f"{where}: request body {problem}"
        for problem in _invalid(exchange.request_body, body[0]["schema"], op.definitions)
    ]
    return problems


def _response_problems(where: str, op: Operation, exchange: Exchange) -> list[str]:
    declared = op.responses.get(str(exchange.status))
    if declared is None:
        return [f"{where}: status {exchange.status} is not among {sorted(op.responses)}"]
    schema = declared.get("schema")
    body = exchange.response_body
    if schema is None:
        return [] if body is None else [f"{where}: the description declares no response body"]
    if schema.get("type") == "array":
        if not isinstance(body, dict) or set(body) != {"count", "value"}:
            return [f"{where}: a list answer must be wrapped as {{count, value}}"]
        if body["count"] != len(body["value"]):
            return [f"{where}: count {body['count']} but {len(body['value'])} values"]
        body = body["value"]
        if op.template.endswith("/workitemsbatch") and _omits(exchange.request_body):
            body = [x for x in body if x is not None]
    return [f"{where}: response body {p}" for p in _invalid(body, schema, op.definitions)]


def _omits(request_body: Any) -> bool:
    return isinstance(request_body, dict) and request_body.get("errorPolicy") == "omit"


def _invalid(instance: Any, schema: Mapping[str, Any], definitions: dict[str, Any]) -> list[str]:
    root = {**_converted(dict(schema)), "definitions": definitions}
    validator = Draft4Validator(root, format_checker=Draft4Validator.FORMAT_CHECKER)
    return [
        f"at {'/'.join(map(str, error.absolute_path)) or '(top)'}: {error.message}"
        for error in validator.iter_errors(instance)
    ]


def _converted(schema: Any) -> Any:
    """A Swagger schema as JSON Schema draft 4: vendor extensions dropped; an `object` with no
    properties is the .NET `object` (any value); a type beside `allOf` is the generator's
    inheritance marker, not a constraint (JsonPatchDocument is an array)."""
    if isinstance(schema, list):
        return [_converted(x) for x in schema]
    if not isinstance(schema, dict):
        return schema
    converted = {
        key: _converted(value)
        for key, value in schema.items()
        if key not in _DROPPED and not key.startswith("x-") and key != "properties"
    }
    if "properties" in schema:  # property names are names, never keywords to drop
        converted["properties"] = {k: _converted(v) for k, v in schema["properties"].items()}
    if "allOf" in converted:
        converted.pop("type", None)
    elif converted.get("type") == "object" and not (
        {"properties", "additionalProperties"} & set(converted)
    ):
        converted.pop("type")
    return converted


def _resolved(spec: dict[str, Any], parameter: dict[str, Any]) -> dict[str, Any]:
    ref = parameter.get("$ref")
    if ref is None:
        return parameter
    return spec["parameters"][ref.removeprefix("#/parameters/")]  # type: ignore[no-any-return]


def _group(name: str) -> str:
    return re.sub(r"\W", "_", name)


def _pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"(\{[^}]+\})", template)
    regex = "".join(
        f"(?P<{_group(part[1:-1])}>[^/]+)" if part.startswith("{") else re.escape(part)
        for part in parts
    )
    return re.compile(f"^{regex}/?$")


def _header(headers: Mapping[str, str], name: str) -> str:
    return next((v for k, v in headers.items() if k.lower() == name.lower()), "")


def problems_of(exchanges: Iterable[Exchange], hook_payloads: Iterable[Any] = ()) -> list[str]:
    """Every way the exchanges and the service-hook calls depart from the description."""
    description = azure_devops()
    found = [problem for exchange in exchanges for problem in description.check(exchange)]
    found += [f"hook call: {p}" for body in hook_payloads for p in description.check_event(body)]
    return found


_DESCRIPTION: Description | None = None


def azure_devops() -> Description:
    """The Azure DevOps description, read once per test process."""
    global _DESCRIPTION
    if _DESCRIPTION is None:
        _DESCRIPTION = Description()
    return _DESCRIPTION
