"""`$filter` text → odata-query's syntax tree, its limits (docs/api.md) checked before parsing."""

import logging
import re
from itertools import islice

from odata_query import ast, exceptions
from odata_query.grammar import ODATA_FUNCTIONS, ODataLexer, ODataParser
from sly.lex import Token

from bot.errors import BadRequest
from bot.odata.errors import invalid

MAX_LENGTH = 2048
MAX_DEPTH = 10

# odata-query's parser refuses function names missing from its table of arities; OData v2's
# substringof is one. Which functions a filter may call is decided in translate.py.
ODATA_FUNCTIONS.setdefault("substringof", 2)

# Tokens that open a level until their operand ends: `not`, unary minus, and path steps (`a/b`).
_PREFIXES = frozenset({"NOT", "UMINUS", "/"})
# Tokens that neither open a level nor end an operand (a name may go on as a call or a path).
_NEUTRAL = frozenset({"WS", "ODATA_IDENTIFIER", "ANY", "ALL"})
# Tokens that make a one-item list in `x in (<literal>)`.
_LITERALS = frozenset(
    {"NULL", "STRING", "INTEGER", "DECIMAL", "BOOLEAN", "GUID", "DATE", "TIME", "DATETIME"}
)
# What a syntax error message quotes: the word where parsing stopped (whitespace skipped).
_WORD = re.compile(r"[^\s(),]{1,20}|[(),]")

log = logging.getLogger(__name__)


def parse_filter(text: str) -> ast._Node:
    """The syntax tree of a `$filter`; anything malformed, too long or too deep is a 400."""
    text = text.strip()
    if not text:
        raise _invalid("it is empty")
    if len(text) > MAX_LENGTH:
        raise _invalid(f"it is longer than {MAX_LENGTH} characters")
    check_characters(text)
    tokens = _tokenize(text)
    if _depth(tokens) > MAX_DEPTH:
        raise _invalid(f"it is nested deeper than {MAX_DEPTH} levels")
    try:
        return ODataParser().parse(iter(_with_single_item_lists(tokens)))
    except exceptions.ParsingException as exc:
        word = None if exc.eof or exc.token is None else _WORD.search(text, exc.token.index)
        if word is None:
            detail = "it ends too early (an operand or a closing parenthesis is missing)"
            raise _invalid(detail) from None
        raise _invalid(f"unexpected {word.group()!r} at character {word.start() + 1}") from None
    except exceptions.UnknownFunctionException as exc:
        raise _invalid(f"unknown function '{exc.function_name}'") from None
    except exceptions.ArgumentCountException as exc:
        raise _invalid(
            f"{exc.function_name}() takes {_arity(exc)}, not {exc.n_args_given}"
        ) from None
    except Exception:
        # The parser is a third-party LALR machine; whatever else it raises on odd input is the
        # input's fault as far as the caller is concerned, and worth a look in the log.
        log.warning("odata-query failed on a $filter", exc_info=True)
        raise _invalid("it cannot be parsed") from None


def check_characters(text: str) -> None:
    """Refuse, as a `$filter` holding it, text no database column holds (U+0000, lone
    surrogates): a filter built from user text checks each value so."""
    if "\x00" in text or not _encodable(text):
        raise _invalid("it contains characters that are not valid text")


def _invalid(detail: str) -> BadRequest:
    return invalid("$filter", detail)


def _encodable(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:  # lone surrogates from a broken percent-encoding
        return False
    return True


def _tokenize(text: str) -> list[Token]:
    try:
        return list(ODataLexer().tokenize(text))
    except exceptions.TokenizingException as exc:
        index = exc.token.index
        if text[index] == "'":
            raise _invalid(f"the string at character {index + 1} is not closed") from None
        raise _invalid(f"unexpected {text[index]!r} at character {index + 1}") from None


def _depth(tokens: list[Token]) -> int:
    """How deeply the tokens nest: open parentheses plus prefixes still waiting for an operand."""
    pending = [0]  # per open parenthesis, the prefixes whose operand has not ended yet
    depth = deepest = 0
    for token in tokens:
        if token.type == "(":
            pending.append(0)
            depth += 1
        elif token.type == ")" and len(pending) > 1:
            depth -= pending.pop() + 1
            depth -= pending[-1]  # the parenthesis closed the operand of the prefixes before it
            pending[-1] = 0
        elif token.type in _PREFIXES:
            pending[-1] += 1
            depth += 1
        elif token.type not in _NEUTRAL:
            depth -= pending[-1]
            pending[-1] = 0
        deepest = max(deepest, depth)
    return deepest


def _with_single_item_lists(tokens: list[Token]) -> list[Token]:
    """`x in ('a')` as `x in ('a',)`: OData allows a one-item list, odata-query wants the comma."""
    result = list(tokens)
    for at in reversed(range(len(tokens))):
        if tokens[at].type != "IN":
            continue
        following = (token.type for token in islice(tokens, at + 1, None) if token.type != "WS")
        types = list(islice(following, 3))
        if types[:1] == ["("] and types[1:2] and types[1] in _LITERALS and types[2:] == [")"]:
            closing = next(i for i in range(at + 1, len(tokens)) if tokens[i].type == ")")
            result.insert(closing, _comma(tokens[closing]))
    return result


def _comma(before: Token) -> Token:
    comma = Token()
    comma.type = comma.value = ","
    comma.lineno, comma.index = before.lineno, before.index
    return comma


def _arity(exc: exceptions.ArgumentCountException) -> str:
    if exc.exp_min_args == exc.exp_max_args:
        return f"{exc.exp_min_args} argument{'s' if exc.exp_min_args != 1 else ''}"
    return f"{exc.exp_min_args} to {exc.exp_max_args} arguments"
