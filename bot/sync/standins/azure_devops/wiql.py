"""The one WIQL shape the stand-in answers, the connector's pull:

    SELECT [System.Id] FROM WorkItems
    WHERE [System.TeamProject] = '<project>' AND [System.WorkItemType] IN ('Bug', 'Task')
      [AND [System.ChangedDate] > '<ISO 8601 UTC>'] [AND [System.AreaPath] UNDER '<area>']
    ORDER BY [System.ChangedDate] ASC, [System.Id] ASC

Anything else is refused with 400, as a query the service cannot run is."""

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from bot.sync.standins.azure_devops.errors import AdoError, bad_request

_TEXT = r"'((?:[^']|'')*)'"
_SHAPE = re.compile(
    r"^\s*SELECT\s+\[System\.Id\]\s+FROM\s+WorkItems\s+"
    rf"WHERE\s+\[System\.TeamProject\]\s*=\s*{_TEXT}\s+"
    rf"AND\s+\[System\.WorkItemType\]\s+IN\s*\(\s*(?P<types>{_TEXT}(?:\s*,\s*{_TEXT})*)\s*\)\s+"
    rf"(?:AND\s+\[System\.ChangedDate\]\s*>\s*(?P<since>{_TEXT})\s+)?"
    rf"(?:AND\s+\[System\.AreaPath\]\s+UNDER\s+(?P<area>{_TEXT})\s+)?"
    r"ORDER\s+BY\s+\[System\.ChangedDate\]\s+ASC\s*,\s*\[System\.Id\]\s+ASC\s*$",
    re.IGNORECASE,
)
_QUOTED = re.compile(_TEXT)


@dataclass(frozen=True, slots=True)
class Pull:
    project: str
    types: tuple[str, ...]
    since: datetime | None
    area: str | None


def parse(query: object, *, time_precision: bool) -> Pull:
    if not isinstance(query, str):
        raise bad_request("The query is missing.", "QueryException")
    shape = _SHAPE.match(query)
    if shape is None:
        raise AdoError(
            400,
            f"TF51006: The query statement is not one this server answers: {query[:200]!r}.",
            "QueryException",
        )
    since = None
    if shape["since"]:
        since = _moment(_unquote(shape["since"]), time_precision=time_precision)
    return Pull(
        project=_unquote(f"'{shape[1]}'"),
        types=tuple(_unquote(f"'{t}'") for t in _QUOTED.findall(shape["types"])),
        since=since,
        area=_unquote(shape["area"]) if shape["area"] else None,
    )


def _unquote(text: str) -> str:
    return text[1:-1].replace("''", "'")


def _moment(text: str, *, time_precision: bool) -> datetime:
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise bad_request(f"TF51005: '{text}' is not a date.", "QueryException") from None
    if moment.tzinfo is None:
        raise bad_request(f"TF51005: '{text}' names no time zone; give UTC.", "QueryException")
    if not time_precision and moment.timetz().replace(tzinfo=None) != datetime.min.time():
        raise bad_request(
            "VS402352: You cannot supply a time with the date when running a query using date "
            "precision. Set timePrecision=true to compare times.",
            "QueryException",
        )
    moment = moment.astimezone(UTC)
    # At date precision `>` compares days: changed on a later day than this one.
    return moment if time_precision else moment + timedelta(days=1, microseconds=-1)
