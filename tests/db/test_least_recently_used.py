"""The bounded cache behind compiled plans, list statements and the list cache."""

from bot.items.versions import VersionedCache
from bot.lru import LeastRecentlyUsed


def test_the_least_recently_used_goes_first() -> None:
    kept: LeastRecentlyUsed[str, int] = LeastRecentlyUsed(2)
    kept.put("a", 1)
    kept.put("b", 2)
    assert kept.get("a") == 1  # "b" is now the least recently used
    kept.put("c", 3)
    assert (kept.get("a"), kept.get("b"), kept.get("c")) == (1, None, 3)


def test_putting_a_key_again_counts_as_a_use() -> None:
    kept: LeastRecentlyUsed[str, int] = LeastRecentlyUsed(2)
    kept.put("a", 1)
    kept.put("b", 2)
    kept.put("a", 10)
    kept.put("c", 3)
    assert (kept.get("a"), kept.get("b"), kept.get("c")) == (10, None, 3)


def test_a_versioned_value_is_served_only_at_its_version() -> None:
    cache = VersionedCache(max_entries=2)
    cache.put(("count", "channel"), 7, 42)
    assert cache.get(("count", "channel"), 7) == 42
    assert cache.get(("count", "channel"), 8) is None
    cache.put(("count", "channel"), 8, 43)
    assert cache.get(("count", "channel"), 7) is None
    assert cache.get(("count", "channel"), 8) == 43
