"""Whether a project's `sync.query` (JQL) can be ANDed into the pulls: the connector writes
`project = KEY AND … AND updated >= … AND (<query>) ORDER BY updated ASC, key ASC`, so a query
may hold neither its own ORDER BY nor a bracket or quote left open (which would carry its
clauses out of the brackets, past the project's scope)."""

import re

_ORDER_BY = re.compile(r"\border\s+by\b", re.IGNORECASE)


def refusal(query: str) -> str | None:
    """Why the pulls cannot use `query`; None when they can."""
    outside, depth, quote, escaped = [], 0, "", False
    for char in query:
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
            continue
        if char in "\"'":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                return "a ')' closes a bracket the JQL never opened"
        outside.append(char)
    if quote:
        return f"a quoted value is not closed ({quote})"
    if depth:
        return "a '(' is not closed"
    if _ORDER_BY.search("".join(outside)):
        return "JQL here narrows the issues only: drop its ORDER BY (the pulls order by updated)"
    return None
