"""The GenAI client metrics: ``gen_ai.client.token.usage`` and
``gen_ai.client.operation.duration``, one record each per model request.

Both are histograms with the bucket boundaries the conventions advise; their names come from
``opentelemetry-semantic-conventions``.
"""

from __future__ import annotations

from opentelemetry.metrics import Meter
from opentelemetry.semconv._incubating.metrics import gen_ai_metrics
from opentelemetry.util.types import Attributes

from affordance_otel.naming import ERROR_TYPE, gen_ai

__all__ = ["RequestMetrics"]

_DURATION_BUCKETS = (
    0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
)  # fmt: skip
_TOKEN_BUCKETS = tuple(float(4**power) for power in range(14))  # 1, 4, 16 ... 67,108,864
_INPUT = gen_ai.GenAiTokenTypeValues.INPUT.value
_OUTPUT = gen_ai.GenAiTokenTypeValues.OUTPUT.value


class RequestMetrics:
    """The two histograms, and what one request records in them."""

    __slots__ = ("_duration", "_tokens")

    def __init__(self, meter: Meter) -> None:
        self._tokens = meter.create_histogram(
            gen_ai_metrics.GEN_AI_CLIENT_TOKEN_USAGE,
            unit="{token}",
            description="Number of input and output tokens used.",
            explicit_bucket_boundaries_advisory=_TOKEN_BUCKETS,
        )
        self._duration = meter.create_histogram(
            gen_ai_metrics.GEN_AI_CLIENT_OPERATION_DURATION,
            unit="s",
            description="GenAI operation duration.",
            explicit_bucket_boundaries_advisory=_DURATION_BUCKETS,
        )

    def answered(
        self,
        attributes: dict[str, str | int],
        duration: float,
        input_tokens: int,
        output_tokens: int,
    ) -> None:
        """A request answered after ``duration`` seconds, having used these tokens."""
        self._duration.record(duration, attributes)
        self._tokens.record(input_tokens, _with(attributes, gen_ai.GEN_AI_TOKEN_TYPE, _INPUT))
        self._tokens.record(output_tokens, _with(attributes, gen_ai.GEN_AI_TOKEN_TYPE, _OUTPUT))

    def failed(self, attributes: dict[str, str | int], duration: float, error_type: str) -> None:
        """A request failed after ``duration`` seconds (``error.type``: ``error_type``)."""
        self._duration.record(duration, _with(attributes, ERROR_TYPE, error_type))


def _with(attributes: dict[str, str | int], key: str, value: str) -> Attributes:
    return {**attributes, key: value}
