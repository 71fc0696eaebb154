"""The pull cursor of a Planner project: which task ETags the last poll saw, and how many polls
there have been (the rolling sweep of details). Planner has no change query in v1.0: a poll lists
the plan's tasks and reads the details of those whose ETag moved since, plus a tenth of the
others in turn, so a description edit (which moves only the details' ETag) is found within ten
polls. Kept by the engine as an opaque string (`project_syncs.cursor`, TEXT): a task costs about
40 characters (its id and a short digest of its ETag), 10,000 tasks about 400 kB."""

import hashlib
from dataclasses import dataclass, field

import orjson

SWEEP = 10  # every task's details are read at least once every this many polls
_DIGEST = 8  # hex characters of an ETag's digest: enough to tell its changes apart


@dataclass
class Cursor:
    poll: int = 0
    seen: dict[str, str] = field(default_factory=dict)  # task id → its ETag's digest

    def moved(self, task_id: str, etag: str) -> bool:
        return self.seen.get(task_id) != digest(etag)

    def swept(self, task_id: str) -> bool:
        """Whether this poll's turn of the sweep reads the task's details."""
        return int(hashlib.blake2b(task_id.encode(), digest_size=4).hexdigest(), 16) % SWEEP == (
            self.poll % SWEEP
        )

    def dumps(self) -> str:
        return orjson.dumps({"poll": self.poll, "seen": self.seen}).decode()


def digest(etag: str) -> str:
    return hashlib.blake2b(etag.encode(), digest_size=_DIGEST // 2).hexdigest()


def loads(text: str | None) -> Cursor:
    """The cursor stored (none, or one not of this form: every task counts as moved)."""
    if not text:
        return Cursor()
    try:
        parsed = orjson.loads(text)
        return Cursor(int(parsed["poll"]), {str(k): str(v) for k, v in parsed["seen"].items()})
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
        return Cursor()
