"""``affordance._json.loads`` is ``json.loads``: the same value or the same error, faster."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from affordance._json import loads

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
SPACE = st.text(alphabet=" \t\n\r\x0b\xa0\u2028", max_size=3)


def _outcome(function: Any, text: str | bytes) -> tuple[str, Any]:
    try:
        return "value", function(text)
    except (ValueError, RecursionError) as error:
        return type(error).__name__, str(error)


@settings(max_examples=300, deadline=None)
@given(value=JSON, before=SPACE, after=SPACE)
def test_documents_read_as_json_loads_reads_them(value: Any, before: str, after: str) -> None:
    text = before + json.dumps(value) + after

    assert _outcome(loads, text) == _outcome(json.loads, text)
    for encoded in (text.encode(), text.encode("utf-16"), text.encode("utf-8-sig")):
        assert _outcome(loads, encoded) == _outcome(json.loads, encoded)


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=40))
def test_any_text_gives_the_same_value_or_the_same_error(text: str) -> None:
    assert _outcome(loads, text) == _outcome(json.loads, text)


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1} x',
        '{"a": 1}{"b": 2}',
        '{"a": 1',
        "[1, 2,]",
        '\ufeff{"a": 1}',
        '{"a": NaN}',
        '{"a": 1}\x0b',
        b'{"a": "\xff"}',
        b"",
        "",
        "[" * 100_000,
    ],
)
def test_broken_documents_fail_as_json_loads_fails(text: str | bytes) -> None:
    assert _outcome(loads, text) == _outcome(json.loads, text)
