"""What an import file may be before any of it is parsed: JSON nested no deeper than an export
can be, and no record larger than MAX_RECORD_BYTES. The JSON parser's cost grows with the
square of the nesting and with a record's size, so both are refused from the bytes alone: a
scan that counts brackets outside strings hands the parser only whole records."""

import re
from typing import Protocol

from bot.cli.failure import CommandFailed

# An export is the root object, a section's array, then a record; a record's untyped fields
# (`bucket`, `owner`, `effort`, `phase`) hold JSON as stored, which the database's serializer
# keeps under 255 levels.
MAX_DEPTH = 256
# An item at every limit (name and text fields 255 characters, a 64 KiB body, 100 bucket
# entries, 50 assignees) takes under 1 MiB even with every character escaped; the rest is room
# for the discussion and attachment list an export writes with each item (read past, not
# imported).
MAX_RECORD_BYTES = 16 * 1024 * 1024
READ_SIZE = 64 * 1024

# Outside records (the root object): a string, whole or cut by the chunk's end, or a bracket,
# `,` or `:`, one at a time, so the section names are seen.
_STRING = rb'"(?:[^"\\]++|\\.)*+(?:(?P<close>")|(?P<cut>\\?)\Z)'
_SHALLOW = re.compile(_STRING + rb"|[\[\]{},:]", re.DOTALL)
# Inside a section: up to and including the next bracket outside strings, in one match.
_WHOLE_STRINGS = rb'(?:[^"\[\]{}]++|"(?:[^"\\]++|\\.)*+")*+'
_TO_BRACKET = re.compile(_WHOLE_STRINGS + rb"[\[\]{}]", re.DOTALL)
_NO_BRACKET = re.compile(_WHOLE_STRINGS, re.DOTALL)
_STRING_STOP = re.compile(rb'["\\]')
_KEY_BYTES = 64  # of a top-level key: enough to name a section
_OPEN, _CLOSE = b"[{", b"]}"


class Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


def record_too_large(name: str, where: str) -> CommandFailed:
    return CommandFailed(
        f"{name}: {where} is larger than {MAX_RECORD_BYTES // 2**20} MiB, the most a record may "
        "be: nothing imported."
    )


class CheckedJson:
    """A JSON file as the parser reads it: bytes are scanned as they come and held back until
    the record they belong to is complete, so a record too large or too deep is refused before
    the parser sees a byte of it."""

    def __init__(self, binary: Readable, name: str) -> None:
        self._binary, self._name = binary, name
        self._held = bytearray()  # scanned bytes not yet given to the parser
        self._given = 0  # of `_held`, given already
        self._ready = 0  # of `_held`, up to the last record boundary: may be given
        self._offset = 0  # the file offset of `_held[0]`
        self._end = False
        self._depth = 0
        self._in_string = self._escaped = False
        self._key = bytearray()  # the last string at depth 1: a section's name before its `[`
        self._section: str | None = None  # the array at depth 2, if it is one
        self._counts: dict[str, int] = {}
        self._record: str | None = None  # the object being read in a section: `bugs[3]`
        self._mark = 0  # the file offset where the record, or value, being read began

    def read(self, size: int = -1, /) -> bytes:
        while self._ready == self._given and not self._end:
            self._fill()
        stop = self._ready if size < 0 else min(self._ready, self._given + size)
        chunk = bytes(self._held[self._given : stop])
        self._given = stop
        if self._given > len(self._held) // 2:  # drop what was given, now and then
            del self._held[: self._given]
            self._offset += self._given
            self._ready -= self._given
            self._given = 0
        return chunk

    def _fill(self) -> None:
        chunk = self._binary.read(READ_SIZE)
        if not chunk:
            self._end = True
            self._ready = len(self._held)  # an unfinished record: the parser says what is wrong
            return
        start = self._offset + len(self._held)
        self._held += chunk
        self._scan(chunk, start)
        self._check_size(start + len(chunk))

    def _scan(self, chunk: bytes, start: int) -> None:
        at, size = 0, len(chunk)
        while at < size:
            if self._in_string:
                at = self._in_string_to(chunk, at)
            elif self._depth <= 1:
                at = self._shallow(chunk, at, start)
            elif self._depth >= 3:
                at = self._in_record(chunk, at, start)
            elif found := _TO_BRACKET.match(chunk, at):
                at = found.end()
                self._structure(chunk[at - 1], start + at - 1)
            else:
                at = self._past_brackets(chunk, at)

    def _in_record(self, chunk: bytes, at: int, start: int) -> int:
        """A record's brackets, counted in one tight loop until the record ends (most of the
        file is records)."""
        depth, match = self._depth, _TO_BRACKET.match
        while found := match(chunk, at):
            at = found.end()
            if chunk[at - 1] in _OPEN:
                depth += 1
                if depth > MAX_DEPTH:
                    raise self._too_deep(depth, start + at - 1)
            else:
                depth -= 1
                if depth == 2:
                    self._depth = 3
                    self._structure(chunk[at - 1], start + at - 1)
                    return at
        self._depth = depth
        return self._past_brackets(chunk, at)

    def _past_brackets(self, chunk: bytes, at: int) -> int:
        """No bracket before the chunk's end: past it, or into the string it cuts."""
        at = _NO_BRACKET.match(chunk, at).end()  # type: ignore[union-attr]
        if at < len(chunk):
            self._in_string = True
            at += 1
        return at

    def _shallow(self, chunk: bytes, at: int, start: int) -> int:
        found = _SHALLOW.search(chunk, at)
        if found is None:
            return len(chunk)
        if chunk[found.start()] != ord('"'):
            self._structure(chunk[found.start()], start + found.start())
        elif found["close"] is None:  # the string goes on in the next chunk
            self._key = bytearray(chunk[found.start() + 1 :][:_KEY_BYTES])
            self._in_string = True
            self._escaped = found["cut"] == b"\\"
        elif self._depth == 1:
            self._key = bytearray(chunk[found.start() + 1 : found.end() - 1][:_KEY_BYTES])
        return found.end()

    def _in_string_to(self, chunk: bytes, at: int) -> int:
        """Past the string's end, its next escape, or the chunk's end."""
        if self._escaped:
            self._escaped = False
            return at + 1
        found = _STRING_STOP.search(chunk, at)
        stop = len(chunk) if found is None else found.start()
        if self._depth == 1:
            self._key += chunk[at:stop][: _KEY_BYTES - len(self._key)]
        if found is None:
            return stop
        if chunk[stop] == ord("\\"):
            self._escaped = True
        else:
            self._in_string = False
        return stop + 1

    def _structure(self, byte: int, offset: int) -> None:
        if byte in _OPEN:
            if self._depth == 2:  # a record begins: what came before may go to the parser
                self._boundary(offset)
            self._depth += 1
            if self._depth > MAX_DEPTH:
                raise self._too_deep(self._depth, offset)
            if self._depth == 2:
                self._section = self._key.decode(errors="replace") if byte == ord("[") else None
            elif self._depth == 3 and byte == ord("{") and self._section is not None:
                index = self._counts[self._section] = self._counts.get(self._section, -1) + 1
                self._record = f"{self._section}[{index}]"
            if self._depth > 2:
                return
        elif byte in _CLOSE:
            self._depth = max(self._depth - 1, 0)
            if self._depth > 2:
                return
        self._boundary(offset + 1)

    def _too_deep(self, depth: int, offset: int) -> CommandFailed:
        return CommandFailed(
            f"{self._name}: JSON nested {depth} levels deep at byte {offset}; "
            f"an import file nests at most {MAX_DEPTH}."
        )

    def _boundary(self, offset: int) -> None:
        """Between records: the bytes before `offset` may go to the parser."""
        self._check_size(offset)
        self._mark = offset
        self._record = None
        self._ready = offset - self._offset

    def _check_size(self, offset: int) -> None:
        if offset - self._mark > MAX_RECORD_BYTES:
            where = self._record or f"the value at byte {self._mark}"
            raise record_too_large(self._name, where)
