"""OpenTelemetry for affordance: every run as GenAI spans and metrics.

    from affordance_otel import AffordanceInstrumentor

    AffordanceInstrumentor().instrument(tracer_provider=provider, meter_provider=meters)

Each run is an ``invoke_agent {prompt}`` span, each model request a ``chat {model}`` span
(``generate_content`` for Google) and each tool call an ``execute_tool {tool}`` span under it,
with the ``gen_ai.client.token.usage`` and ``gen_ai.client.operation.duration`` histograms.
Metadata only unless ``capture_content=True``. ``specs/OBSERVABILITY.md`` lists all of it.

- ``instrumentor``: :class:`AffordanceInstrumentor` (the ``opentelemetry_instrumentor`` entry
  point ``affordance``);
- ``tracer``: :class:`RunTracer`, the events of every run as spans, with ``tool_spans`` (its
  tool calls) and ``run_spans`` (the runs in flight and their open spans); ``metrics``: the two
  histograms;
- ``naming``: the semantic-convention names and values; ``tool_types``: ``gen_ai.tool.type``;
  ``content``: the JSON shapes of captured content.
"""

from affordance_otel.instrumentor import CAPTURE_CONTENT_ENV, AffordanceInstrumentor
from affordance_otel.tracer import RunTracer

__all__ = ["CAPTURE_CONTENT_ENV", "AffordanceInstrumentor", "RunTracer"]
