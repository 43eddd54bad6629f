"""Requirement strings (``"openai>=1.66,<4"``) checked against installed distributions.

Core depends only on pluggy, so this is a small PEP 440-ish reader rather than ``packaging``:
versions compare by epoch, release segments (``1.66`` == ``1.66.0``), pre/post/dev tags;
specifiers are ``>= > <= < == != ~= ===`` with ``==1.2.*`` prefix matches. Environment markers
are kept as text; the only one acted upon is ``extra == ...`` (see :attr:`Requirement.extra`).
"""

from __future__ import annotations

import importlib.metadata
import re
from dataclasses import dataclass
from functools import total_ordering

from affordance.plugins.errors import PluginConfigError

__all__ = ["Requirement", "Version", "canonical_name", "installed_version", "unmet_reason"]

_NAME_SEPARATORS = re.compile(r"[-_.]+")


def canonical_name(name: str) -> str:
    """A distribution name as PEP 503 compares them: ``Affordance_Acme`` -> ``affordance-acme``."""
    return _NAME_SEPARATORS.sub("-", name).lower().strip()


_VERSION = re.compile(
    r"""
    v?(?:(?P<epoch>\d+)!)?
    (?P<release>\d+(?:\.\d+)*)
    (?:[-_.]?(?P<pre_tag>a|alpha|b|beta|c|rc|pre|preview)[-_.]?(?P<pre_n>\d*))?
    (?:-(?P<post_implicit>\d+)|[-_.]?(?P<post_tag>post|rev|r)[-_.]?(?P<post_n>\d*))?
    (?:[-_.]?(?P<dev_tag>dev)[-_.]?(?P<dev_n>\d*))?
    (?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?
    """,
    re.VERBOSE | re.IGNORECASE,
)
_PRE_ORDER = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}
_INFINITY = float("inf")


@total_ordering
@dataclass(frozen=True, slots=True, eq=False)
class Version:
    """A parsed version; equality and order follow PEP 440 (local labels are ignored)."""

    text: str
    epoch: int
    release: tuple[int, ...]
    pre: tuple[int, int] | None
    post: int | None
    dev: int | None

    @classmethod
    def parse(cls, text: str) -> Version:
        match = _VERSION.fullmatch(text.strip())
        if match is None:
            raise PluginConfigError(f"{text!r} is not a version")
        pre = None
        if match["pre_tag"]:
            pre = (_PRE_ORDER[match["pre_tag"].lower()], int(match["pre_n"] or 0))
        post = None
        if match["post_implicit"]:
            post = int(match["post_implicit"])
        elif match["post_tag"]:
            post = int(match["post_n"] or 0)
        dev = int(match["dev_n"] or 0) if match["dev_tag"] else None
        return cls(
            text=text.strip(),
            epoch=int(match["epoch"] or 0),
            release=tuple(int(part) for part in match["release"].split(".")),
            pre=pre,
            post=post,
            dev=dev,
        )

    @property
    def is_prerelease(self) -> bool:
        return self.pre is not None or self.dev is not None

    @property
    def base(self) -> tuple[int, tuple[int, ...]]:
        """Epoch and release without trailing zeros: what ``1.0rc1`` and ``1`` share."""
        release = list(self.release)
        while len(release) > 1 and release[-1] == 0:
            release.pop()
        return (self.epoch, tuple(release))

    def _key(self) -> tuple[object, ...]:
        if self.pre is not None:
            pre: tuple[float, float] = self.pre
        elif self.post is None and self.dev is not None:
            pre = (-1, 0)  # 1.0.dev1 sorts before 1.0a1
        else:
            pre = (_INFINITY, 0)
        post = -1 if self.post is None else self.post
        dev = _INFINITY if self.dev is None else self.dev
        return (*self.base, pre, post, dev)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Version) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __lt__(self, other: Version) -> bool:
        return self._key() < other._key()

    def __str__(self) -> str:
        return self.text


_SPECIFIER = re.compile(r"\s*(?P<op>===|~=|==|!=|<=|>=|<|>)\s*(?P<version>[^\s,;]+)\s*")
_REQUIREMENT = re.compile(
    r"""
    \s*(?P<name>[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*
    (?:\[(?P<extras>[^\]]*)\])?\s*
    (?P<specifiers>\(?[^;]*?\)?)\s*
    (?:;\s*(?P<marker>.*))?
    """,
    re.VERBOSE,
)
_EXTRA_MARKER = re.compile(r"""extra\s*==\s*['"](?P<extra>[^'"]+)['"]""")
_NEGATION = {">=": "<", ">": "<=", "<=": ">", "<": ">=", "==": "!=", "!=": "==", "===": "!=="}


@dataclass(frozen=True, slots=True)
class Specifier:
    """One clause of a requirement, e.g. ``>=1.66``."""

    op: str
    version: str

    def contains(self, candidate: Version) -> bool:
        op, text = self.op, self.version
        if op == "===":
            return candidate.text == text
        if op in ("==", "!=") and text.endswith(".*"):
            prefix = Version.parse(text[:-2])
            same = (
                candidate.epoch == prefix.epoch
                and candidate.release[: len(prefix.release)]
                + (0,) * max(0, len(prefix.release) - len(candidate.release))
                == prefix.release
            )
            return same if op == "==" else not same
        wanted = Version.parse(text)
        if op == "==":
            return candidate == wanted
        if op == "!=":
            return candidate != wanted
        if op == ">=":
            return candidate >= wanted
        if op == "<=":
            return candidate <= wanted
        if op == ">":
            return candidate > wanted
        if op == "<":
            # "<4" excludes 4.0rc1 unless the bound is itself a pre-release (PEP 440).
            same_release = candidate.base == wanted.base
            if candidate.is_prerelease and not wanted.is_prerelease and same_release:
                return False
            return candidate < wanted
        # "~=1.4.5" means ">=1.4.5, ==1.4.*"
        if len(wanted.release) < 2:
            raise PluginConfigError(f"~={text} needs at least two release segments")
        stem = ".".join(str(part) for part in wanted.release[:-1])
        return candidate >= wanted and Specifier("==", f"{stem}.*").contains(candidate)

    def __str__(self) -> str:
        return f"{self.op}{self.version}"


@dataclass(frozen=True, slots=True)
class Requirement:
    """A dependency on a distribution: name, version clauses, and the marker text if any."""

    name: str
    specifiers: tuple[Specifier, ...] = ()
    marker: str | None = None

    @classmethod
    def parse(cls, text: str) -> Requirement:
        match = _REQUIREMENT.fullmatch(text)
        if match is None:
            raise PluginConfigError(f"{text!r} is not a requirement like 'openai>=1.66,<4'")
        clauses = match["specifiers"].strip()
        if clauses.startswith("(") and clauses.endswith(")"):
            clauses = clauses[1:-1]
        specifiers: list[Specifier] = []
        for clause in filter(None, (part.strip() for part in clauses.split(","))):
            spec = _SPECIFIER.fullmatch(clause)
            if spec is None:
                raise PluginConfigError(f"{text!r}: cannot read the version clause {clause!r}")
            if spec["op"] != "===" and not spec["version"].endswith(".*"):
                Version.parse(spec["version"])  # fail now, not when checked
            specifiers.append(Specifier(spec["op"], spec["version"]))
        marker = match["marker"].strip() if match["marker"] else None
        return cls(name=match["name"], specifiers=tuple(specifiers), marker=marker)

    @property
    def extra(self) -> str | None:
        """The extra this requirement belongs to (``extra == "openai"`` in its marker), if any."""
        if self.marker is None:
            return None
        found = _EXTRA_MARKER.search(self.marker)
        return found["extra"] if found else None

    def failures(self, installed: str) -> list[str]:
        """The clauses ``installed`` breaks, phrased as facts: ``openai 1.2 < 1.66``."""
        version = Version.parse(installed)
        return [
            f"{self.name} {installed} {_NEGATION.get(spec.op, 'is not ' + spec.op)} {spec.version}"
            for spec in self.specifiers
            if not spec.contains(version)
        ]

    def __str__(self) -> str:
        return self.name + ",".join(str(spec) for spec in self.specifiers)


def installed_version(name: str) -> str | None:
    """The installed version of distribution ``name``, or None when it is not installed."""
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def unmet_reason(requirement: str) -> str | None:
    """Why ``requirement`` is not met by what is installed (None when it is).

    ``"openai>=1.66,<4"`` with openai 1.2 installed gives ``"openai 1.2 < 1.66"``; without
    openai, ``"openai is not installed (needs openai>=1.66,<4)"``.
    """
    parsed = Requirement.parse(requirement)
    installed = installed_version(parsed.name)
    if installed is None:
        return f"{parsed.name} is not installed (needs {parsed})"
    try:
        failures = parsed.failures(installed)
    except PluginConfigError:
        return f"{parsed.name} {installed} has a version this check cannot read (needs {parsed})"
    return "; ".join(failures) or None
