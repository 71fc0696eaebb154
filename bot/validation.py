"""Pydantic's validation errors and refused characters in the API's words, for whoever parses
a body: the web frame, the domain services, the command line."""

from pydantic import ValidationError

MAX_REPORTED_ERRORS = 3
NUL_REFUSED = "must not contain the NUL character (U+0000)"


def describe_validation_error(exc: ValidationError) -> str:
    """`field: what is wrong` for the first few problems, in the request's own field names."""
    parts = []
    for error in exc.errors(include_url=False)[:MAX_REPORTED_ERRORS]:
        where = ".".join(str(part) for part in error["loc"]) or "body"
        parts.append(f"{where}: {error['msg']}")
    return "; ".join(parts)


def nul_character_at(value: object, where: str) -> str | None:
    """The dotted path of the first string (value or key) holding U+0000, else None."""
    if isinstance(value, str):
        return where if "\x00" in value else None
    if isinstance(value, dict):
        items: list[tuple[object, object]] = list(value.items())
    elif isinstance(value, list | tuple):
        items = list(enumerate(value))
    else:
        return None
    for key, item in items:
        path = f"{where}.{key}" if where else str(key)
        if isinstance(key, str) and "\x00" in key:
            return path
        found = nul_character_at(item, path)
        if found is not None:
            return found
    return None
