"""Reading a server-sent event stream as a browser's EventSource does: frame by frame."""

import json
from dataclasses import dataclass, field
from typing import Any

from aiohttp import ClientResponse

from tests.waiting import finished


@dataclass
class Frame:
    event: str | None = None
    id: str | None = None
    data: Any = None
    comments: list[str] = field(default_factory=list)


async def next_frame(response: ClientResponse) -> Frame:
    """The next frame (lines up to a blank one); a frame of comments only is returned too."""
    frame, lines = Frame(), 0
    while True:
        line = (await finished(response.content.readline(), "a line of the stream")).decode()
        if line == "":
            raise EOFError("the stream ended")
        line = line.rstrip("\n")
        if line == "":
            if lines:
                return frame
            continue
        lines += 1
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "":
            frame.comments.append(value)
        elif name == "event":
            frame.event = value
        elif name == "id":
            frame.id = value
        elif name == "data":
            frame.data = json.loads(value)


async def next_event(response: ClientResponse, *names: str) -> Frame:
    """The next frame that is an event named one of `names` (keep-alives and others skipped)."""
    while True:
        frame = await next_frame(response)
        if frame.event in names:
            return frame
