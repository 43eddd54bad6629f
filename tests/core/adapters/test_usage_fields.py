"""``UsageFields`` (``affordance.adapters.decoding``): a provider's usage object read into
``Usage`` from where it keeps each count — summed fields, nested ones, and counts that are
missing, null or not integers."""

from __future__ import annotations

from affordance.adapters import Usage, UsageFields

FIELDS = UsageFields(
    input=("input", "cache.written"),
    output=("output",),
    cached=("cache.read",),
    reasoning=("details.thinking",),
)


def test_each_count_is_the_sum_of_its_fields_nested_ones_included() -> None:
    usage = {
        "input": 10,
        "cache": {"written": 5, "read": 3},
        "output": 7,
        "details": {"thinking": 2},
    }

    assert FIELDS.read(usage) == Usage(15, 7, cached_input_tokens=3, reasoning_tokens=2)


def test_missing_null_and_non_integer_counts_count_zero() -> None:
    usage = {"input": None, "cache": {"written": "5", "read": 1.5}, "output": True, "details": 3}

    assert FIELDS.read(usage) == Usage()


def test_no_usage_object_is_no_usage() -> None:
    assert FIELDS.read(None) == FIELDS.read([1, 2]) == Usage()
