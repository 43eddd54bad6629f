"""affordance-google: the Google Gemini provider (Developer API and Vertex AI) for affordance.

``GoogleAdapter`` is resolved on first access (PEP 562), so ``import affordance_google`` does
not import the ``google-genai`` SDK (about a second to import); only using the adapter does.
``RequestRetryPolicy`` (the adapter's retry budget) imports no SDK either.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from affordance.adapters import NO_REQUEST_RETRIES, RequestRetryPolicy

__version__ = "0.1.0"
__all__ = ["NO_REQUEST_RETRIES", "GoogleAdapter", "RequestRetryPolicy", "__version__"]


def __getattr__(name: str) -> Any:
    if name == "GoogleAdapter":
        from affordance_google.adapter import GoogleAdapter

        globals()[name] = GoogleAdapter  # later lookups skip this function
        return GoogleAdapter
    raise AttributeError(f"module 'affordance_google' has no attribute {name!r}")


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:
    from affordance_google.adapter import GoogleAdapter
