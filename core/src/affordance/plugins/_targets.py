"""The code a contribution names (``"module:attribute"``), imported or built on first use and
checked. Plugin code runs here: what it raises but ``KeyboardInterrupt`` (``sys.exit()`` too),
like a value of the wrong kind, is a :class:`PluginUnavailableError` naming the contribution
(``specs/PLUGINS.md``, "Availability")."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from affordance.plugins._collect import describe, safe_repr
from affordance.plugins.errors import PluginUnavailableError
from affordance.plugins.specs import HostedToolKindSpec

if TYPE_CHECKING:
    from affordance.plugins._contributions import Contribution
    from affordance.runtime.loop.evaluator import Evaluator
    from affordance.tools.hosted import HostedToolCodec

__all__ = ["build_codec", "build_serializer", "import_adapter", "import_config", "import_output"]

T = TypeVar("T")

_ROLE_METHODS = {"tool": "declare", "tool_result": "serialize", "output": "output_format"}


def _isolated(contribution: Contribution, failed: str, call: Callable[[], T]) -> T:
    """``call()``; what it raises (but ``KeyboardInterrupt``) as unavailability: ``failed``
    says what went wrong, before the exception's type and text."""
    try:
        return call()
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # plugin code: even sys.exit() makes it unavailable
        raise PluginUnavailableError(
            f"{contribution.key} from {contribution.origin}{failed} {describe(exc)}"
        ) from exc


def _unavailable(contribution: Contribution, problem: str) -> PluginUnavailableError:
    return PluginUnavailableError(f"{contribution.key} from {contribution.origin}: {problem}")


def _import(contribution: Contribution, target: str | None = None) -> Any:
    import pkgutil  # only when used

    path = target or contribution.target
    return _isolated(
        contribution, f" cannot be imported from {path}:", lambda: pkgutil.resolve_name(path)
    )


def _build(contribution: Contribution) -> Any:
    factory = _import(contribution)
    return _isolated(contribution, f": {contribution.target}() raised", factory)


def _check(contribution: Contribution, check: Callable[[], T]) -> T:
    """A check that touches plugin code (attribute access may run it)."""
    return _isolated(contribution, f": checking {contribution.target} raised", check)


def import_adapter(chosen: Contribution) -> type[Evaluator]:
    """A provider's adapter class, which must be an ``Evaluator`` subclass."""
    from affordance.runtime.loop.evaluator import Evaluator  # only when used

    adapter = _import(chosen)
    if not _check(chosen, lambda: isinstance(adapter, type) and issubclass(adapter, Evaluator)):
        raise _unavailable(
            chosen,
            f"{chosen.target} is not a ProviderAdapter subclass (got {safe_repr(adapter)})",
        )
    found: type[Evaluator] = adapter
    return found


def _codec_problem(codec: Any, kind: str) -> str | None:
    missing = [a for a in ("kind", "serialize", "parse_output") if not hasattr(codec, a)]
    if missing:
        return f"lacks {', '.join(missing)}"
    return None if codec.kind == kind else f"has kind {codec.kind!r}"


def build_codec(chosen: Contribution) -> HostedToolCodec[Any, Any]:
    """A hosted tool codec from its factory, checked for the codec protocol and its kind."""
    codec: HostedToolCodec[Any, Any] = _build(chosen)
    kind = chosen.key.parts[1]
    problem = _check(chosen, lambda: _codec_problem(codec, kind))
    if problem is not None:
        raise _unavailable(
            chosen,
            f"{chosen.target}() built a codec that {problem}; a HostedToolCodec for kind "
            f"{kind!r} was expected",
        )
    return codec


def build_serializer(chosen: Contribution) -> Any:
    """A serializer from its factory, checked for its role's method."""
    serializer = _build(chosen)
    role = chosen.key.parts[1]
    method = _ROLE_METHODS[role]
    if not _check(chosen, lambda: callable(getattr(serializer, method, None))):
        raise _unavailable(
            chosen,
            f"{chosen.target}() built {type(serializer).__qualname__}, which has no {method}(); "
            f"a serializer for role {role!r} was expected",
        )
    return serializer


def import_config(chosen: Contribution) -> tuple[type[Any], Contribution]:
    """A hosted tool kind's config type, and who registered it."""
    config = _import(chosen)
    if not isinstance(config, type):
        raise _unavailable(chosen, f"{chosen.target} is not a class")
    return config, chosen


def import_output(chosen: Contribution) -> tuple[type[Any], Contribution]:
    """A hosted tool kind's output type, and who registered it."""
    spec = chosen.spec
    assert isinstance(spec, HostedToolKindSpec)  # the key is a hosted tool kind's
    output = _import(chosen, spec.output)
    if not isinstance(output, type):
        raise _unavailable(chosen, f"output {spec.output} is not a class")
    return output, chosen
