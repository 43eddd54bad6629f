"""Requirement strings (``"openai>=1.66,<4"``) checked against installed distributions.

Parsing and version comparison are ``packaging``'s — the library pip and pytest use — imported on
first use, so discovering plugins costs nothing until a requirement is read.
"""

from __future__ import annotations

import importlib.metadata
import re
from typing import TYPE_CHECKING

from affordance.plugins._base_errors import PluginConfigError

if TYPE_CHECKING:
    from packaging.requirements import Requirement

__all__ = [
    "canonical_name",
    "installed_version",
    "parse_requirement",
    "unmet_clauses",
    "unmet_reason",
]

_NAME_SEPARATORS = re.compile(r"[-_.]+")
_NEGATION = {">=": "<", ">": "<=", "<=": ">", "<": ">=", "==": "!=", "!=": "==", "~=": "is not ~="}


def canonical_name(name: str) -> str:
    """A distribution name as PEP 503 compares them: ``Affordance_Acme`` -> ``affordance-acme``.

    The same rule as ``packaging.utils.canonicalize_name``, kept here so reading settings and
    entry points never imports ``packaging``.
    """
    return _NAME_SEPARATORS.sub("-", name).lower().strip()


def parse_requirement(text: str) -> Requirement:
    """``text`` as a PEP 508 requirement, or :class:`PluginConfigError` saying why not."""
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        return Requirement(text)
    except InvalidRequirement as exc:
        raise PluginConfigError(
            f"{text!r} is not a requirement like 'openai>=1.66,<4': {exc}"
        ) from None


def installed_version(name: str) -> str | None:
    """The installed version of distribution ``name``, or None when it is not installed."""
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def unmet_clauses(requirement: Requirement, installed: str) -> list[str]:
    """The clauses ``installed`` breaks, phrased as facts: ``openai 1.2 < 1.66``.

    Pre-releases count as versions (a plugin developer runs them); an unreadable installed
    version breaks every clause.
    """
    from packaging.version import InvalidVersion, Version

    try:
        version = Version(installed)
    except InvalidVersion:
        return [f"{requirement.name} {installed} is not a version this check can read"]
    return [
        f"{requirement.name} {installed} {_NEGATION.get(spec.operator, 'is not ' + spec.operator)}"
        f" {spec.version}"
        for spec in sorted(requirement.specifier, key=str)
        if not spec.contains(version, prereleases=True)
    ]


def unmet_reason(requirement: str) -> str | None:
    """Why ``requirement`` is not met by what is installed (None when it is).

    ``"openai>=1.66,<4"`` with openai 1.2 installed gives ``"openai 1.2 < 1.66"``; without
    openai, ``"openai is not installed (needs openai>=1.66,<4)"``.
    """
    parsed = parse_requirement(requirement)
    installed = installed_version(parsed.name)
    if installed is None:
        return f"{parsed.name} is not installed (needs {parsed})"
    return "; ".join(unmet_clauses(parsed, installed)) or None
