"""``ItemReader``: a codec's lists read item by item, a malformed item skipped with a
metadata-only warning, a bounded number of records per response."""

from __future__ import annotations

import logging
from dataclasses import dataclass

import pytest

from affordance.tools import HostedTool
from affordance.tools.hosted_items import MAX_WARNINGS, ItemReader


@dataclass(frozen=True)
class _Config:
    pass


TOOL = HostedTool(kind="web_search", name="search", description="Search.", config=_Config())
SECRET = "https://secret.example/private"


def test_a_malformed_element_is_skipped_with_its_position_and_the_rest_kept(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, "affordance.hosted"), ItemReader(TOOL, "p") as read:
        kept = list(read.objects([{"url": "a"}, SECRET, {"url": "b"}], ("output", 2)))

    assert kept == [(0, {"url": "a"}), (2, {"url": "b"})]
    (record,) = caplog.records
    assert record.getMessage() == (
        "hosted tool search: its web_search codec (p) skipped output[2][1]: not an object"
    )
    assert (record.affordance_item, record.affordance_problem) == ("output[2][1]", "not an object")
    assert SECRET not in repr(record.__dict__)


@pytest.mark.parametrize("value", [7, "text", {"a": 1}])
def test_a_list_that_is_no_list_is_skipped_and_null_is_empty(
    value: object, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, "affordance.hosted"), ItemReader(TOOL, "p") as read:
        assert read.elements(value, ("citations",)) == ()
        assert read.elements(None, ("sources",)) == ()

    assert [r.affordance_problem for r in caplog.records] == ["not a list"]


def test_past_the_bound_one_record_counts_the_rest(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, "affordance.hosted"), ItemReader(TOOL, "p") as read:
        assert list(read.strings([1] * (MAX_WARNINGS + 5), ("queries",))) == []

    assert len(caplog.records) == MAX_WARNINGS + 1
    assert caplog.records[-1].affordance_more == 5
