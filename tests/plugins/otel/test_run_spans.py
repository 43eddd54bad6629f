"""``Runs`` (``affordance_otel/run_spans.py``): the runs in flight by id; events of a run not
started yet are held, handed back in order when it starts, and bounded, so runs that never start
(begun before instrumenting) cannot grow it without end."""

from __future__ import annotations

from opentelemetry.sdk.trace import TracerProvider

from affordance_otel.run_spans import Runs, RunSpans


def new_run() -> RunSpans:
    return RunSpans(TracerProvider().get_tracer("test").start_span("run"))


def test_events_before_the_start_are_held_and_handed_back_in_order():
    runs = Runs()
    assert runs.get_or_hold("r1", "first") is None
    assert runs.get_or_hold("r1", "second") is None
    run = new_run()
    earlier, held = runs.start("r1", run)
    assert (earlier, held) == (None, ["first", "second"])
    assert runs.get_or_hold("r1", "third") is run
    assert runs.start("r1", new_run()) == (run, [])  # a restart hands back the one it replaces


def test_ending_a_run_forgets_it_and_ends_its_open_children():
    runs = Runs()
    run = new_run()
    runs.start("r1", run)
    child = TracerProvider().get_tracer("test").start_span("tool")
    run.tools["c1"] = child
    assert runs.end("r1") is run
    assert child.end_time is not None  # type: ignore[attr-defined]
    assert run.tools == {}
    assert runs.get("r1") is None
    assert runs.end("r1") is None


def test_what_is_held_is_bounded_per_run_and_in_runs():
    runs = Runs()
    for index in range(300):
        runs.get_or_hold("busy", index)
    assert len(runs.start("busy", new_run())[1]) == 256
    for index in range(1024):
        runs.get_or_hold(f"never-{index}", index)
    runs.get_or_hold("one-more", "x")  # past the bound: the others are dropped
    assert runs.start("never-0", new_run())[1] == []
    assert runs.start("one-more", new_run())[1] == ["x"]
