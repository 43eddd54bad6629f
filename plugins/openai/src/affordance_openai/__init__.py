"""affordance-openai: the OpenAI provider for affordance (Responses and Chat Completions);
``OpenAIAdapter`` is resolved on first access, so importing the package does not import the SDK."""

from __future__ import annotations

from typing import TYPE_CHECKING

from affordance.plugins import lazy_exports

__version__ = "0.1.0"
__all__ = ["OpenAIAdapter", "__version__"]


__getattr__, __dir__ = lazy_exports(
    __name__, {"OpenAIAdapter": "affordance_openai.adapter"}, __all__
)

if TYPE_CHECKING:
    from affordance_openai.adapter import OpenAIAdapter
