"""Prices: what a turn's usage cost, for ``Usage.cost`` and cost limits.

:class:`Prices` is what the loop asks: the cost of one turn's usage on a provider's model, or
``None`` when the price is unknown. :class:`GenaiPrices` answers from the ``genai-prices``
package (the price data pydantic-ai's users rely on; Python 3.11 or later, with pydantic), which
core does not depend on: install it with ``pip install 'affordance[prices]'``. It is imported
when a run first needs a price, never by ``import affordance``.
"""

from __future__ import annotations

from typing import Any, Protocol

from affordance.errors import PromptEvaluationError
from affordance.runtime.model.connection import Model, model_name_of
from affordance.runtime.model.turn import Usage

__all__ = ["GenaiPrices", "Prices", "PricesUnavailableError", "prices_for_cost_limit"]

_PROVIDER_IDS = {"openai": "openai", "anthropic": "anthropic", "google": "google"}
"""affordance provider names and the ids genai-prices files their prices under (the same today;
a provider not listed is looked up under its own name)."""


class PricesUnavailableError(ImportError):
    """A run needs prices and ``genai-prices`` is not installed."""


class Prices(Protocol):
    """The cost of a turn's usage in US dollars; ``None`` when the price is unknown."""

    def cost(self, usage: Usage, *, provider: str, model: str | None) -> float | None: ...


class GenaiPrices:
    """:class:`Prices` from ``genai-prices``. A model it does not know has no price (``None``),
    remembered so each unknown model is looked up once."""

    def __init__(self) -> None:
        try:
            import genai_prices
        except ImportError as error:
            raise PricesUnavailableError(
                "prices come from the genai-prices package, which is not installed: pip install "
                "'affordance[prices]' (it needs Python 3.11 or later)"
            ) from error
        self._calc: Any = genai_prices.calc_price
        self._usage: Any = genai_prices.Usage
        self._unknown: set[tuple[str, str | None]] = set()

    def cost(self, usage: Usage, *, provider: str, model: str | None) -> float | None:
        key = (provider, model)
        if model is None or key in self._unknown:
            return None
        counted = self._usage(
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cache_read_tokens=usage.cached_input_tokens,
        )
        try:
            price = self._calc(counted, model, provider_id=_PROVIDER_IDS.get(provider, provider))
        except LookupError:  # genai-prices knows no such model (or provider)
            self._unknown.add(key)
            return None
        return float(price.total_price)


def prices_for_cost_limit(prices: Prices | None, connection: Model, prompt_name: str) -> Prices:
    """The prices a run with a cost limit uses — ``prices``, else :class:`GenaiPrices` — after
    checking each of the connection's models (a fallback's every one) has a price: a run that
    could not hold its limit is refused before anything is sent (``PromptEvaluationError``,
    phase ``limits``), as is one that needs genai-prices where it is not installed."""
    if prices is None:
        try:
            prices = GenaiPrices()
        except PricesUnavailableError as error:
            raise PromptEvaluationError(
                f"UsageLimits(cost=...) needs prices: {error}",
                prompt_name=prompt_name,
                phase="limits",
            ) from error
    for model in getattr(connection, "models", (connection,)):
        name = model_name_of(model)
        if prices.cost(Usage(1, 1), provider=model.name, model=name) is None:
            raise PromptEvaluationError(
                f"the price of model {name!r} on {model.name} is unknown, so a cost limit "
                "cannot be held; pass prices= that know it, or limit tokens instead",
                prompt_name=prompt_name,
                phase="limits",
                provider=model.name,
            )
    return prices
