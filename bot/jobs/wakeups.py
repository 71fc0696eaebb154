"""The in-process bell: a commit that wrote work (pending events, jobs) rings it, and every
worker of this process listening looks for that work at once instead of at its next poll."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager

_listeners: set[Callable[[], None]] = set()


def ring() -> None:
    """Wake every listener (after a commit: `uow.on_commit(wakeups.ring)`)."""
    for listener in list(_listeners):
        listener()


@contextmanager
def listening(listener: Callable[[], None]) -> Iterator[None]:
    """Have `listener` called at every ring while the block runs."""
    _listeners.add(listener)
    try:
        yield
    finally:
        _listeners.discard(listener)
