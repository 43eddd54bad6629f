"""``AffordanceInstrumentor`` keeps the OpenTelemetry instrumentation contract: registered under
the ``opentelemetry_instrumentor`` entry point ``affordance`` and enabled the way
``opentelemetry-instrument`` enables it; ``uninstrument()`` stops the recording, and then runs
build nothing for it; ``import affordance`` imports no OpenTelemetry."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from importlib.metadata import entry_points

from opentelemetry.instrumentation.dependencies import get_dist_dependency_conflicts
from otel_support import Telemetry, canary_prompt

from affordance import EventBus
from affordance.runtime.record.events import REQUEST_EVENTS, ToolAttemptFailed, ToolHandlerStarted
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls
from affordance_otel import AffordanceInstrumentor


def test_the_entry_point_names_the_instrumentor_and_its_dependencies_are_met():
    (found,) = [
        ep for ep in entry_points(group="opentelemetry_instrumentor") if ep.name == "affordance"
    ]
    assert found.value == "affordance_otel.instrumentor:AffordanceInstrumentor"
    assert found.load() is AffordanceInstrumentor
    assert found.dist is not None
    assert found.dist.name == "affordance-otel"
    assert get_dist_dependency_conflicts(found.dist) is None  # what opentelemetry-instrument checks


def script() -> ScriptedAdapter:
    return ScriptedAdapter([tool_calls(tool_call("echo", {"text": "a"})), text("ok")])


def test_uninstrument_stops_the_recording_and_runs_build_nothing_for_it_again():
    telemetry = Telemetry()
    script().evaluate(canary_prompt())
    assert len(telemetry.spans()) == 4
    assert EventBus().watches_requests
    telemetry.instrumentor.uninstrument()
    bus = EventBus()
    assert not bus.watches_requests
    assert not any(
        bus.wants(kind) for kind in (*REQUEST_EVENTS, ToolHandlerStarted, ToolAttemptFailed)
    )
    script().evaluate(canary_prompt())
    assert len(telemetry.spans()) == 4  # nothing new
    assert telemetry.points("gen_ai.client.operation.duration")[0].count == 2
    # and again: instrumenting twice over one instance works as the first time
    telemetry.instrumentor.instrument(tracer_provider=telemetry.provider)
    script().evaluate(canary_prompt())
    assert len(telemetry.spans()) == 8
    telemetry.close()


def test_the_instrumentor_is_one_object_as_opentelemetry_wants():
    assert AffordanceInstrumentor() is AffordanceInstrumentor()


def run_python(code: str, **env: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={"PATH": "/usr/bin:/bin", **env},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_importing_affordance_and_running_imports_no_opentelemetry():
    out = run_python(
        """
        import sys
        import affordance
        from affordance.testing import ScriptedAdapter, text
        from affordance import MarkdownSection, PromptTemplate
        prompt = PromptTemplate(name="p", sections=[MarkdownSection(title="T", template="x")])
        ScriptedAdapter([text("ok")]).evaluate(prompt)
        print(sorted(m for m in sys.modules if m.startswith(("opentelemetry", "affordance_otel"))))
        """
    )
    assert out.strip() == "[]"


AUTO_INSTRUMENTED = """
    from importlib.metadata import entry_points
    from opentelemetry import trace
    from opentelemetry.instrumentation.distro import DefaultDistro
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    # what opentelemetry-instrument does with each entry point of the group
    (entry_point,) = [
        ep for ep in entry_points(group="opentelemetry_instrumentor") if ep.name == "affordance"
    ]
    DefaultDistro().load_instrumentor(entry_point, skip_dep_check=True)

    from affordance import MarkdownSection, PromptTemplate
    from affordance.testing import ScriptedAdapter, text
    prompt = PromptTemplate(name="auto", sections=[MarkdownSection(title="T", template="SECRET")])
    ScriptedAdapter([text("ok")]).evaluate(prompt)
    for span in exporter.get_finished_spans():
        print(span.name, "SECRET" in repr(dict(span.attributes)))
"""


def test_opentelemetry_instrument_enables_it_with_the_global_provider_and_no_content():
    out = run_python(AUTO_INSTRUMENTED)
    assert out.splitlines() == ["chat False", "invoke_agent auto False"]


def test_the_genai_capture_variable_turns_content_on_for_opentelemetry_instrument():
    out = run_python(AUTO_INSTRUMENTED, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="true")
    assert out.splitlines() == ["chat False", "invoke_agent auto True"]
