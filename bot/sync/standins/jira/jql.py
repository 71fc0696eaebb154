"""The JQL the stand-in understands: clauses joined by AND (`project = KEY`, `issuetype in
(…)`, `updated >= "yyyy-MM-dd HH:mm"` in the caller's time zone, minute-precise as Jira's is,
`key in (…)`) and `ORDER BY updated ASC|DESC, key ASC|DESC`. Anything else is refused, as Jira
refuses JQL it cannot parse."""

import re
from collections.abc import Callable, Sequence
from datetime import datetime
from zoneinfo import ZoneInfo

from bot.sync.standins.jira.store import Issue

Test = Callable[[Issue], bool]

_ORDER = re.compile(r"\s+ORDER\s+BY\s+(.+)$", re.IGNORECASE)
_CLAUSE = re.compile(
    r"^\s*(?P<field>\w+)\s*(?P<op>=|>=|>|<=|<|in)\s*(?P<value>\(.*\)|\"[^\"]*\"|[\w-]+)\s*$",
    re.IGNORECASE,
)
_QUOTED = re.compile(r"\"([^\"]*)\"|([\w-]+)")


class JqlError(ValueError):
    pass


def parse(jql: str, *, zone: ZoneInfo) -> tuple[list[Test], list[tuple[str, bool]]]:
    """The tests an issue must pass and the order (field, descending)."""
    order: list[tuple[str, bool]] = []
    found = _ORDER.search(jql)
    if found:
        jql = jql[: found.start()]
        for part in found[1].split(","):
            name, _, direction = part.strip().partition(" ")
            if name.lower() not in ("updated", "key"):
                raise JqlError(f"Field '{name}' cannot be used to order by here.")
            order.append((name.lower(), direction.strip().upper() == "DESC"))
    tests = [_clause(clause, zone) for clause in re.split(r"\s+AND\s+", jql.strip(), flags=re.I)]
    return tests, order


def sort(issues: Sequence[Issue], order: list[tuple[str, bool]]) -> list[Issue]:
    ordered = sorted(issues, key=lambda i: i.id)
    for name, descending in reversed(order or [("key", True)]):
        if name == "updated":
            ordered.sort(key=lambda i: i.updated, reverse=descending)
        else:
            ordered.sort(key=lambda i: i.id, reverse=descending)
    return ordered


def _clause(text: str, zone: ZoneInfo) -> Test:
    found = _CLAUSE.match(text)
    if not found:
        raise JqlError(f"Error in the JQL Query: cannot read '{text.strip()}'.")
    name, op, value = found["field"].lower(), found["op"].lower(), found["value"]
    values = [a or b for a, b in _QUOTED.findall(value)]
    if name == "project" and op == "=":
        return lambda i: i.key.rsplit("-", 1)[0] == values[0]
    if name == "issuetype" and op in ("=", "in"):
        wanted = {v.lower() for v in values}
        return lambda i: i.issue_type.lower() in wanted
    if name in ("key", "issuekey") and op in ("=", "in"):
        keys = set(values)
        return lambda i: i.key in keys
    if name == "updated" and op in (">=", ">"):
        try:
            local = datetime.strptime(values[0].replace("/", "-"), "%Y-%m-%d %H:%M")
        except ValueError:
            raise JqlError(f"Date value '{values[0]}' for field 'updated' is invalid.") from None
        since = local.replace(tzinfo=zone)
        if op == ">=":
            return lambda i: _minute(i.updated) >= since
        return lambda i: _minute(i.updated) > since
    raise JqlError(f"The stand-in does not understand the clause '{text.strip()}'.")


def _minute(moment: datetime) -> datetime:
    """Jira compares dates in JQL to the minute."""
    return moment.replace(second=0, microsecond=0)
