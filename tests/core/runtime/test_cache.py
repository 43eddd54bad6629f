"""``ResultCache``: expiry at exactly the expiry time, and the LRU bound, entry for entry."""

from __future__ import annotations

from affordance import ToolResult
from affordance.runtime.calls.cache import ResultCache, cache_key


def test_an_entry_is_served_until_just_before_its_expiry_and_not_at_it():
    cache = ResultCache()
    result = ToolResult.ok(1)
    cache.put("k", result, expires_at=100.0)
    assert cache.get("k", now=99.999) is result
    assert cache.get("k", now=100.0) is None  # expired at exactly its expiry time
    assert len(cache) == 0  # and dropped


def test_the_bound_keeps_exactly_max_entries():
    cache = ResultCache(max_entries=3)
    for key in "abc":
        cache.put(key, ToolResult.ok(key), expires_at=1e9)
    assert len(cache) == 3
    assert all(cache.get(key, now=0) is not None for key in "abc")
    cache.put("d", ToolResult.ok("d"), expires_at=1e9)
    assert len(cache) == 3
    assert cache.get("a", now=0) is None  # the least recently used went
    assert [cache.get(key, now=0) is not None for key in "bcd"] == [True, True, True]


def test_a_read_makes_an_entry_the_most_recently_used():
    cache = ResultCache(max_entries=2)
    cache.put("a", ToolResult.ok("a"), expires_at=1e9)
    cache.put("b", ToolResult.ok("b"), expires_at=1e9)
    assert cache.get("a", now=0) is not None
    cache.put("c", ToolResult.ok("c"), expires_at=1e9)
    assert cache.get("b", now=0) is None
    assert cache.get("a", now=0) is not None


def test_the_default_bound_is_1024_entries():
    cache = ResultCache()
    for index in range(1025):
        cache.put(str(index), ToolResult.ok(index), expires_at=1e9)
    assert len(cache) == 1024
    assert cache.get("0", now=0) is None
    assert cache.get("1", now=0) is not None


def test_keys_are_canonical_json_of_the_validated_params():
    assert cache_key("t", {"b": 1, "a": [2]}) == 't:{"a":[2],"b":1}'
    assert cache_key("t", None) == "t:null"
