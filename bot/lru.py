"""A bounded mapping that forgets the least recently used first."""

from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class LeastRecentlyUsed(Generic[K, V]):
    """Values by key, at most `limit` of them: the least recently used is dropped first."""

    def __init__(self, limit: int) -> None:
        self._values: OrderedDict[K, V] = OrderedDict()
        self._limit = limit

    def get(self, key: K) -> V | None:
        value = self._values.get(key)
        if value is not None:
            self._values.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> V:
        self._values[key] = value
        self._values.move_to_end(key)
        if len(self._values) > self._limit:
            self._values.popitem(last=False)
        return value
