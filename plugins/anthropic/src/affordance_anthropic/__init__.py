"""affordance-anthropic: the Anthropic provider (the Messages API) for affordance.

``AnthropicAdapter`` is resolved on first access (PEP 562), so ``import affordance_anthropic``
does not import the ``anthropic`` SDK (over a second to import); only using the adapter does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from affordance.plugins import lazy_exports

__version__ = "0.1.0"
__all__ = ["DEFAULT_MAX_TOKENS", "AnthropicAdapter", "__version__"]

DEFAULT_MAX_TOKENS = 8192
"""``max_tokens`` when the adapter is given none (the API requires one): every current Claude
model accepts it, and it is within the SDK's limits for a non-streamed request."""


__getattr__, __dir__ = lazy_exports(
    __name__, {"AnthropicAdapter": "affordance_anthropic.adapter"}, __all__
)

if TYPE_CHECKING:
    from affordance_anthropic.adapter import AnthropicAdapter
