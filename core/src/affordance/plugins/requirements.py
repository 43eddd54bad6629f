"""Requirement strings (``"openai>=1.66,<4"``) checked against installed distributions, with
``packaging`` (pip's) imported on first use: discovering plugins costs nothing until one is read."""

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
    """``Affordance_Acme`` -> ``affordance-acme`` (PEP 503): ``packaging.utils.canonicalize_name``'s
    rule, kept here so that reading settings and entry points never imports ``packaging``."""
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
    """The clauses ``installed`` breaks, as facts (``openai 1.2 < 1.66``). Pre-releases count as
    versions (a plugin developer runs them); an unreadable version breaks every clause."""
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
    """Why ``requirement`` is not met by what is installed (``openai 1.2 < 1.66``, or ``openai is
    not installed (needs openai>=1.66,<4)``), or None when it is."""
    parsed = parse_requirement(requirement)
    installed = installed_version(parsed.name)
    if installed is None:
        return f"{parsed.name} is not installed (needs {parsed})"
    return "; ".join(unmet_clauses(parsed, installed)) or None
