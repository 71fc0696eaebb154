"""Whether a SQLite statement only reads, told from its SQL: `sqlite_inline` may stop a read
and run it again elsewhere, and must not a write.

Its text is all there is to go by: SQLAlchemy's adapter hands the driver SQL, and Python's
sqlite3 does not expose SQLite's own answer (`sqlite3_stmt_readonly`). A statement that starts
with SELECT reads; one that starts with WITH does what the statement after its common table
expressions does (`WITH … SELECT` reads, `WITH … INSERT/UPDATE/DELETE` writes). Anything else
counts as a write, which is always safe to run as one.
"""

import re

# The tokens that matter: quoted text and names (their brackets are not the statement's),
# comments, brackets, commas and words; the rest (spaces, numbers, operators) is skipped.
_TOKENS = re.compile(
    r"""'(?:[^']|'')*'|"(?:[^"]|"")*"|`(?:[^`]|``)*`|\[[^\]]*\]"""
    r"""|--[^\n]*|/\*.*?(?:\*/|\Z)|[(),]|[A-Za-z_][A-Za-z_0-9$]*""",
    re.DOTALL,
)
_STARTS_WITH_WITH = re.compile(r"\s*WITH\b", re.IGNORECASE)


def only_reads(sql: str) -> bool:
    """Whether `sql` is a SELECT, plain or after a WITH clause."""
    if sql.lstrip()[:6].upper() == "SELECT":
        return True
    return _STARTS_WITH_WITH.match(sql) is not None and _after_with(sql) == "SELECT"


def _after_with(sql: str) -> str:
    """The first word of the statement a WITH clause leads to: the first word outside brackets
    right after a closing one, other than the `AS` after a column list (`n(x) AS (…)`)."""
    depth = 0
    closed = False  # the token before closed a bracket back to the top level
    for token in _TOKENS.findall(sql):
        if token.startswith(("--", "/*")):
            continue
        if token == "(":
            depth += 1
        elif token == ")":
            depth -= 1
            closed = depth == 0
            continue
        elif closed and (token[0].isalpha() or token[0] == "_") and token.upper() != "AS":
            return token.upper()
        closed = False
    return ""
