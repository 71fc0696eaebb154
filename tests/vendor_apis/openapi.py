"""Checks an HTTP exchange against a vendor's published OpenAPI 3.0 description (Jira Cloud's
REST v3): the path matches one of its templates, the method exists there, the query parameters
are declared (typed as declared), and the request body (by its content type) and a successful
response's body validate against the declared schemas (`$ref`s into `components` resolved,
`nullable` read as JSON Schema's `null` type, `readOnly` not enforced on requests).

Where Jira's service differs from its description in ways Atlassian documents, the check follows
the service, and says so here:
- `IssueBean.fields` is declared as a free object: the fields' own shapes (`status`,
  `priority`, `assignee`, ADF `description`) are those of the field's resource and are checked
  by the tests that read them, not here;
- failed answers (400, 401, 404, 429, 5xx) carry an `ErrorCollection` (or, for 401, a text)
  whatever the operation declares, so only 2xx answers are checked against their schema;
- times (`created`, `updated` of comments, issues' date fields) are written
  `2026-12-07T06:00:00.000+0000`, the offset without a colon, which the description's
  `date-time` (RFC 3339) does not allow: that form is taken as a `date-time` too;
- `GET /rest/api/3/project/{projectIdOrKey}/statuses` and `GET /rest/api/3/user/search` answer
  bare arrays, as declared (unlike Azure DevOps, nothing is wrapped).
"""

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema import Draft4Validator, FormatChecker

from tests.vendor_apis.conformance import Exchange, _header, _pattern, checked

JIRA = Path(__file__).parent / "jira" / "swagger-v3.v3.json"
_DROPPED = {"description", "example", "examples", "readOnly", "writeOnly", "discriminator",
            "xml", "externalDocs", "title", "deprecated", "nullable"}  # fmt: skip


@dataclass(frozen=True)
class Operation:
    template: str
    method: str
    pattern: re.Pattern[str]
    parameters: tuple[dict[str, Any], ...]
    request: dict[str, Any]  # content type → schema
    body_required: bool
    responses: dict[str, Any]  # status → {content type → schema}

    @property
    def literal(self) -> int:
        return len(re.sub(r"\{[^}]+\}", "", self.template))


class OpenApiDescription:
    def __init__(self, file: Path = JIRA) -> None:
        spec = json.loads(file.read_text(encoding="utf-8-sig"))
        self.components = {"schemas": _converted(spec["components"]["schemas"], names=True)}
        self.operations: list[Operation] = []
        for template, methods in spec["paths"].items():
            shared = methods.get("parameters", [])
            for method, op in methods.items():
                if method not in ("get", "put", "post", "delete", "patch"):
                    continue
                body = op.get("requestBody") or {}
                self.operations.append(
                    Operation(
                        template,
                        method.upper(),
                        _pattern(template),
                        tuple(_ref(spec, p) for p in [*shared, *op.get("parameters", [])]),
                        {t: c.get("schema") for t, c in body.get("content", {}).items()},
                        bool(body.get("required")),
                        {
                            code: {t: c.get("schema") for t, c in answer.get("content", {}).items()}
                            for code, answer in op.get("responses", {}).items()
                        },
                    )
                )

    def check(self, exchange: Exchange) -> list[str]:
        """What in the exchange the description does not allow; empty when it conforms."""
        return checked(self.operations, exchange, lambda op: self._check(op, exchange))

    def _check(self, op: Operation, exchange: Exchange) -> list[str]:
        where = f"{exchange.method} {op.template}"
        return [
            *_query_problems(where, op, exchange),
            *self._request_problems(where, op, exchange),
            *(self._response_problems(where, op, exchange) if 200 <= exchange.status < 300 else []),
        ]

    def _request_problems(self, where: str, op: Operation, exchange: Exchange) -> list[str]:
        if exchange.request_body is None:
            return [f"{where}: the request has no body"] if op.body_required else []
        if not op.request:
            return [f"{where}: the description declares no request body"]
        content_type = _header(exchange.request_headers, "Content-Type").split(";")[0].strip()
        if content_type not in op.request:
            return [f"{where}: Content-Type {content_type!r}, it takes {sorted(op.request)}"]
        schema = op.request[content_type] or {}
        return [f"{where}: request body {p}" for p in self.invalid(exchange.request_body, schema)]

    def _response_problems(self, where: str, op: Operation, exchange: Exchange) -> list[str]:
        declared = op.responses.get(str(exchange.status), op.responses.get("default"))
        if declared is None:
            return [f"{where}: status {exchange.status} is not among {sorted(op.responses)}"]
        schema = declared.get("application/json") or None
        if schema is None:
            body = exchange.response_body
            return [] if body is None else [f"{where}: the description declares no response body"]
        return [f"{where}: response body {p}" for p in self.invalid(exchange.response_body, schema)]

    def invalid(self, instance: Any, schema: Mapping[str, Any]) -> list[str]:
        root = {**_converted(dict(schema)), "components": self.components}
        validator = Draft4Validator(root, format_checker=_FORMATS)
        return [
            f"at {'/'.join(map(str, error.absolute_path)) or '(top)'}: {error.message}"
            for error in validator.iter_errors(instance)
        ]


_FORMATS = FormatChecker()
_JIRA_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?[+-]\d{4}$")


@_FORMATS.checks("date-time")
def _date_time(value: object) -> bool:
    """RFC 3339, or Jira's own form of it (the offset without a colon)."""
    if not isinstance(value, str):
        return True
    rfc = Draft4Validator.FORMAT_CHECKER.conforms(value, "date-time")
    return rfc or _JIRA_TIME.match(value) is not None


def _query_problems(where: str, op: Operation, exchange: Exchange) -> list[str]:
    declared = {p["name"]: p for p in op.parameters if p.get("in") == "query"}
    problems = []
    for name, value in exchange.query.items():
        parameter = declared.get(name)
        if parameter is None:
            problems.append(f"{where}: query parameter {name} is not in the description")
            continue
        kind = (parameter.get("schema") or {}).get("type")
        if kind == "integer" and not value.lstrip("-").isdigit():
            problems.append(f"{where}: {name}={value!r} is not an integer")
        elif kind == "boolean" and value not in ("true", "false"):
            problems.append(f"{where}: {name}={value!r} is not a boolean")
    problems += [
        f"{where}: required query parameter {name} is missing"
        for name, parameter in declared.items()
        if parameter.get("required") and name not in exchange.query
    ]
    return problems


def _converted(schema: Any, *, names: bool = False) -> Any:
    """An OpenAPI 3.0 schema as JSON Schema draft 4 (`names`: a mapping of names to schemas)."""
    if names:
        return {name: _converted(value) for name, value in schema.items()}
    if isinstance(schema, list):
        return [_converted(x) for x in schema]
    if not isinstance(schema, dict):
        return schema
    converted = {
        key: _converted(value)
        for key, value in schema.items()
        if key not in _DROPPED and not key.startswith("x-") and key != "properties"
    }
    if "properties" in schema:
        converted["properties"] = _converted(schema["properties"], names=True)
    if schema.get("nullable"):
        if "type" in converted:
            converted["type"] = [converted["type"], "null"]
        else:
            converted = {"anyOf": [converted, {"type": "null"}]}
    return converted


def _ref(spec: dict[str, Any], parameter: dict[str, Any]) -> dict[str, Any]:
    ref = parameter.get("$ref")
    if ref is None:
        return parameter
    return spec["components"]["parameters"][ref.rsplit("/", 1)[1]]  # type: ignore[no-any-return]


def problems_of(exchanges: Iterable[Exchange]) -> list[str]:
    """Every way the exchanges depart from Jira's description."""
    description = jira()
    return [problem for exchange in exchanges for problem in description.check(exchange)]


_JIRA: OpenApiDescription | None = None


def jira() -> OpenApiDescription:
    """Jira's description, read once per test process."""
    global _JIRA
    if _JIRA is None:
        _JIRA = OpenApiDescription()
    return _JIRA
