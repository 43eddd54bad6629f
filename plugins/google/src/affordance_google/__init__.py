"""affordance-google: the Google Gemini provider (Developer API and Vertex AI) for affordance;
``GoogleAdapter`` is resolved on first access (PEP 562): ``google-genai`` is imported only then."""

from __future__ import annotations

from typing import TYPE_CHECKING

from affordance.adapters import NO_REQUEST_RETRIES, RequestRetryPolicy
from affordance.plugins import lazy_exports

__version__ = "0.1.0"
__all__ = ["NO_REQUEST_RETRIES", "GoogleAdapter", "RequestRetryPolicy", "__version__"]

__getattr__, __dir__ = lazy_exports(
    __name__, {"GoogleAdapter": "affordance_google.adapter"}, __all__
)

if TYPE_CHECKING:
    from affordance_google.adapter import GoogleAdapter
