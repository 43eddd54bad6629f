"""affordance-openai: the OpenAI provider (Responses and Chat Completions) for affordance.

``OpenAIAdapter`` is resolved on first access (PEP 562), so ``import affordance_openai`` does
not import the ``openai`` SDK (about a second to import); only using the adapter does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["OpenAIAdapter", "__version__"]


def __getattr__(name: str) -> Any:
    if name == "OpenAIAdapter":
        from affordance_openai.adapter import OpenAIAdapter

        globals()[name] = OpenAIAdapter  # later lookups skip this function
        return OpenAIAdapter
    raise AttributeError(f"module 'affordance_openai' has no attribute {name!r}")


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:
    from affordance_openai.adapter import OpenAIAdapter
