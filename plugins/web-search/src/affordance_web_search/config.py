"""How a web search should run: which domains, where the user is, how much it may search.

Every value validates at construction (:class:`~affordance.PromptValidationError` naming the
field). Whether a provider can honour a setting is decided later, by that provider's codec, when
a request is built: a setting it cannot honour is an error there, never silently dropped.
"""

from __future__ import annotations

import re
import zoneinfo
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from affordance.errors import PromptValidationError
from affordance_web_search._countries import ISO_3166_ALPHA_2

__all__ = ["CONFIG_FIELDS", "ContextSize", "DomainFilter", "GeoHint", "WebSearchConfig"]

ContextSize = Literal["low", "medium", "high"]

CONFIG_FIELDS: tuple[str, ...] = (
    "domain_filter.allowed",
    "domain_filter.blocked",
    "geo_hint",
    "max_uses",
    "allow_live_access",
    "context_size",
)
"""Everything a :class:`WebSearchConfig` can ask of a provider, as codecs name it."""

_CONTEXT_SIZES = ("low", "medium", "high")
_HOST_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_DOMAIN = re.compile(rf"(?:{_HOST_LABEL}\.)+{_HOST_LABEL}(?:/[^\s/][^\s]*)?")
_ZONE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_+-]*(?:/[A-Za-z0-9_+-]+)*")


def _domains(given: Iterable[str], field: str) -> tuple[str, ...]:
    value: object = given
    if isinstance(value, str):
        raise PromptValidationError(
            f"DomainFilter.{field} must be a tuple of domains, not one string: "
            f"write {field}=({value!r},)"
        )
    domains: tuple[object, ...] = tuple(given)
    for domain in domains:
        if not isinstance(domain, str) or _DOMAIN.fullmatch(domain) is None:
            hint = " (leave out the scheme)" if isinstance(domain, str) and "://" in domain else ""
            raise PromptValidationError(
                f"DomainFilter.{field}: {domain!r} is not a domain such as 'cdc.gov' or "
                f"'docs.python.org'{hint}"
            )
    return tuple(given)


@dataclass(frozen=True, slots=True)
class DomainFilter:
    """Search only ``allowed`` domains (their subdomains too), or everything but ``blocked``.

    Domains are written without a scheme (``"cdc.gov"``, not ``"https://cdc.gov"``). Providers
    differ: OpenAI takes only an allowed list, Anthropic either list but not both, Gemini none.
    """

    allowed: tuple[str, ...] = ()
    blocked: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        allowed = _domains(self.allowed, "allowed")
        blocked = _domains(self.blocked, "blocked")
        both = sorted(set(allowed) & set(blocked))
        if both:
            raise PromptValidationError(
                f"DomainFilter: {', '.join(both)} is both allowed and blocked"
            )
        object.__setattr__(self, "allowed", allowed)
        object.__setattr__(self, "blocked", blocked)


def _optional_text(value: object, field: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise PromptValidationError(f"GeoHint.{field} must be a non-empty string, got {value!r}")
    return value.strip()


def _check_timezone(name: str) -> None:
    if _ZONE_NAME.fullmatch(name) is not None:
        try:
            zoneinfo.ZoneInfo(name)
        except zoneinfo.ZoneInfoNotFoundError:
            if not zoneinfo.available_timezones():
                raise PromptValidationError(
                    f"GeoHint.timezone {name!r} cannot be checked: no IANA time zone database "
                    "is installed (pip install tzdata)"
                ) from None
        except ValueError:
            pass
        else:
            return
    raise PromptValidationError(
        f"GeoHint.timezone {name!r} is not an IANA time zone such as 'Europe/London'"
    )


@dataclass(frozen=True, slots=True)
class GeoHint:
    """Where the user roughly is, so results can be local.

    ``country_code`` is an ISO 3166-1 alpha-2 code (``"GB"``; lower case is accepted and
    upper-cased), ``timezone`` an IANA time zone (``"Europe/London"``).
    """

    country_code: str | None = None
    city: str | None = None
    region: str | None = None
    timezone: str | None = None

    def __post_init__(self) -> None:
        code: object = self.country_code
        if code is not None:
            if not isinstance(code, str) or code.upper() not in ISO_3166_ALPHA_2:
                raise PromptValidationError(
                    f"GeoHint.country_code {code!r} is not an ISO 3166-1 alpha-2 code such as "
                    "'GB' or 'FR'"
                )
            object.__setattr__(self, "country_code", code.upper())
        object.__setattr__(self, "city", _optional_text(self.city, "city"))
        object.__setattr__(self, "region", _optional_text(self.region, "region"))
        zone = _optional_text(self.timezone, "timezone")
        if zone is not None:
            _check_timezone(zone)
        object.__setattr__(self, "timezone", zone)

    def fields(self) -> dict[str, str]:
        """The fields that are set, by name (``country_code``, ``city``, ``region``,
        ``timezone``)."""
        values = {
            "country_code": self.country_code,
            "city": self.city,
            "region": self.region,
            "timezone": self.timezone,
        }
        return {name: value for name, value in values.items() if value is not None}


@dataclass(frozen=True, slots=True)
class WebSearchConfig:
    """The configuration of a ``web_search`` hosted tool.

    - ``domain_filter``: restrict the domains searched (:class:`DomainFilter`);
    - ``geo_hint``: the user's approximate location (:class:`GeoHint`);
    - ``allow_live_access=False``: answer from the provider's cached index only (OpenAI);
    - ``max_uses``: the most searches one response may run (Anthropic);
    - ``context_size``: how much retrieved text the model sees, ``"low"``, ``"medium"`` or
      ``"high"`` (OpenAI).

    The defaults ask for nothing, so a default config works on every provider.
    """

    domain_filter: DomainFilter | None = None
    geo_hint: GeoHint | None = None
    allow_live_access: bool = True
    max_uses: int | None = None
    context_size: ContextSize | None = None

    def __post_init__(self) -> None:
        if self.domain_filter is not None and not isinstance(self.domain_filter, DomainFilter):
            raise PromptValidationError(
                "WebSearchConfig.domain_filter must be a DomainFilter, got "
                f"{type(self.domain_filter).__qualname__}"
            )
        if self.geo_hint is not None and not isinstance(self.geo_hint, GeoHint):
            raise PromptValidationError(
                "WebSearchConfig.geo_hint must be a GeoHint, got "
                f"{type(self.geo_hint).__qualname__}"
            )
        live: object = self.allow_live_access
        if not isinstance(live, bool):
            raise PromptValidationError(
                f"WebSearchConfig.allow_live_access must be a bool, got {self.allow_live_access!r}"
            )
        uses: object = self.max_uses
        if uses is not None and (isinstance(uses, bool) or not isinstance(uses, int) or uses < 1):
            raise PromptValidationError(
                f"WebSearchConfig.max_uses must be a positive int, got {uses!r}"
            )
        if self.context_size is not None and self.context_size not in _CONTEXT_SIZES:
            raise PromptValidationError(
                "WebSearchConfig.context_size must be 'low', 'medium' or 'high', got "
                f"{self.context_size!r}"
            )

    def requested(self) -> tuple[str, ...]:
        """The entries of :data:`CONFIG_FIELDS` this config asks for, in that order: what a
        provider's codec must honour or refuse."""
        domains = self.domain_filter
        asked = {
            "domain_filter.allowed": domains is not None and bool(domains.allowed),
            "domain_filter.blocked": domains is not None and bool(domains.blocked),
            "geo_hint": self.geo_hint is not None,
            "max_uses": self.max_uses is not None,
            "allow_live_access": not self.allow_live_access,
            "context_size": self.context_size is not None,
        }
        return tuple(field for field in CONFIG_FIELDS if asked[field])
