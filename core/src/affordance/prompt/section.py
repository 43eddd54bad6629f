"""``Section``: one titled node of a prompt, carrying text, children and tools."""

from __future__ import annotations

import enum
import inspect
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from affordance._typeargs import TypeArgsAlias, inherited_type_args, is_concrete, subscript
from affordance.errors import PromptRenderError, PromptValidationError
from affordance.prompt._template import CompiledTemplate, TemplateSyntaxError, compile_template
from affordance.tools.hosted import HostedTool
from affordance.tools.tool import Tool

if TYPE_CHECKING:
    from affordance.prompt.paths import SectionPath

__all__ = ["Section", "SectionVisibility"]

ParamsT = TypeVar("ParamsT")

_KEY = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
_NOT_KEY_CHARS = re.compile(r"[^a-z0-9]+")


class SectionVisibility(enum.Enum):
    """How much of a section the model sees: everything, or its summary."""

    FULL = "full"
    SUMMARY = "summary"


class Section(Generic[ParamsT]):
    """A titled part of a prompt; a bare ``Section`` renders only its heading (a group).

    Subclasses render text by overriding :meth:`render_body`. ``Section[Params]`` (or a
    ``default_params`` instance) declares the params dataclass the section is rendered with.
    ``accepts_overrides=False`` keeps prompt overrides (``affordance.prompt.overrides``) off the
    section and everything under it: its children's texts and the tools of all of them.
    """

    _class_params_type: ClassVar[Any] = None

    tools_listed_at_render: ClassVar[bool] = False
    """True for a section whose tools are known only when it renders (an MCP server's, listed
    from the server): the prompt does not ask for them when it is built, and checks their names
    at each render instead."""

    def __init__(
        self,
        *,
        title: str,
        key: str | None = None,
        children: Sequence[Section[Any]] = (),
        enabled: Callable[[ParamsT], bool] | Callable[[], bool] | None = None,
        default_params: ParamsT | None = None,
        tools: Sequence[Tool[Any, Any]] = (),
        hosted_tools: Sequence[HostedTool[Any]] = (),
        visibility: SectionVisibility = SectionVisibility.FULL,
        summary: str | None = None,
        summary_suffix: str | None = None,
        params_type: type[ParamsT] | None = None,
        accepts_overrides: bool = True,
    ) -> None:
        raw_title: object = title
        if not isinstance(raw_title, str) or not raw_title.strip():
            raise PromptValidationError(f"Section title must be a non-empty string, got {title!r}")
        self.title = title.strip()
        self.key = _section_key(key, self.title)
        self.params_type: type[ParamsT] | None = _resolve_params_type(
            params_type, self._class_params_type, default_params, self.key
        )
        self.default_params = default_params
        self.children: tuple[Section[Any], ...] = tuple(children)
        for child in self.children:
            if not isinstance(child, Section):
                raise PromptValidationError(
                    f"Section children must be sections, got {type(child).__qualname__}",
                    section_path=(self.key,),
                )
        self.enabled = enabled
        self._enabled_takes_params = _predicate_takes_params(enabled, self.key)
        self._tools = _tools_tuple(tools, self.key)
        self._hosted_tools = tuple(hosted_tools)
        if not isinstance(visibility, SectionVisibility):
            raise PromptValidationError(
                f"visibility must be a SectionVisibility, got {visibility!r}",
                section_path=(self.key,),
            )
        self.visibility = visibility
        self.accepts_overrides = bool(accepts_overrides)
        self.summary = summary
        self.summary_suffix = summary_suffix
        self._summary = None if summary is None else self._compile("summary", summary)
        self._summary_suffix = (
            None if summary_suffix is None else _compile_suffix(summary_suffix, self.key)
        )
        if visibility is SectionVisibility.SUMMARY and summary is None:
            raise PromptValidationError(
                "a section with SUMMARY visibility needs a summary", section_path=(self.key,)
            )

    def __class_getitem__(cls, item: Any) -> TypeArgsAlias:
        return subscript(cls, item)

    @classmethod
    def _type_args_to_kwargs(cls, args: tuple[Any, ...]) -> dict[str, Any]:
        (params_type,) = args
        return {"params_type": params_type} if is_concrete(params_type) else {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        bound = inherited_type_args(cls, Section)
        if bound is not None and is_concrete(bound[0]):
            cls._class_params_type = bound[0]

    def __repr__(self) -> str:
        return f"{type(self).__qualname__}(title={self.title!r}, key={self.key!r})"

    def tools(self) -> tuple[Tool[Any, Any], ...]:
        """The tools this section exposes while it is enabled and fully visible."""
        return self._tools

    def hosted_tools(self) -> tuple[HostedTool[Any], ...]:
        """The hosted tools this section exposes; subclasses may override."""
        return self._hosted_tools

    def tools_listing(self) -> Any:
        """For a section with ``tools_listed_at_render``: what it would render now — its tools
        and the text they come with — as JSON data (it may connect to list them). A process
        that may not do I/O (a durable run's workflow) renders :meth:`listed` of it instead."""
        raise NotImplementedError(
            f"{type(self).__qualname__} lists its tools at render but cannot give that listing "
            "ahead of the render (it does not override Section.tools_listing)"
        )

    def listed(self, listing: Any) -> Section[ParamsT]:
        """This section as it renders with ``listing`` (a :meth:`tools_listing` result, maybe
        from another process): the same tools and text, fixed, and never listed anew. Its tools
        still run as the live section's do (an MCP tool still calls its server)."""
        raise NotImplementedError(
            f"{type(self).__qualname__} lists its tools at render but cannot render a given "
            "listing (it does not override Section.listed)"
        )

    def is_enabled(self, params: ParamsT | None) -> bool:
        if self.enabled is None:
            return True
        if self._enabled_takes_params:
            return bool(self.enabled(params))  # type: ignore[call-arg,arg-type]
        return bool(self.enabled())  # type: ignore[call-arg]

    def render_body(self, params: ParamsT | None) -> str:
        """The text under the heading when fully visible; a bare section has none."""
        return ""

    def template_source(self) -> str | None:
        """The template :meth:`render_body` fills, for a section whose body is one (what a
        prompt override may replace); ``None`` for a section whose body is computed."""
        return None

    def render_template(self, template: CompiledTemplate, params: ParamsT | None) -> str:
        """``template`` filled from ``params``: how a section renders a template given in place
        of its own (an override's, compiled with :meth:`compile_template`)."""
        if params is None and template.names:
            raise PromptRenderError(
                f"template uses ${{{template.names[0]}}} but the section declares no params "
                "type; write MarkdownSection[Params](...)",
                section_path=(self.key,),
                placeholder=template.names[0],
            )
        return template.substitute(params)

    def compile_template(self, what: str, source: str) -> CompiledTemplate:
        """Compile ``source`` as a template of this section, its placeholders checked against
        the params type (``PromptValidationError`` names the first that is not a field)."""
        return self._compile(what, source)

    def render_summary(self, params: ParamsT | None) -> str:
        """The summary text shown instead of the body when the section is summarized."""
        summary = self._summary
        if summary is None:
            return ""
        if params is None and summary.names:
            raise PromptRenderError(
                f"summary uses ${{{summary.names[0]}}} but the section declares no params type",
                section_path=(self.key,),
                placeholder=summary.names[0],
            )
        return summary.substitute(params)

    def has_summary(self) -> bool:
        return self._summary is not None

    def render_summary_suffix(self, path: SectionPath, child_keys: Sequence[str]) -> str:
        """The instruction telling the model how to open this summarized section."""
        dotted = ".".join(path)
        if self._summary_suffix is not None:
            text = self._summary_suffix.substitute(_SuffixValues(dotted))
            if child_keys:
                text += f"\nSubsections: {', '.join(child_keys)}."
            return text
        if child_keys:
            return (
                f'[This section is summarized. Call `open_sections` with key "{dotted}" to view '
                f"full content including subsections: {', '.join(child_keys)}.]"
            )
        return (
            "[This section is summarized. To view full content, call `open_sections` with key "
            f'"{dotted}".]'
        )

    def _compile(self, what: str, source: str) -> CompiledTemplate:
        """Compile a template of this section and check its placeholders against the params."""
        try:
            template = compile_template(source)
        except TemplateSyntaxError as error:
            raise PromptValidationError(
                f"invalid {what}: {error}", section_path=(self.key,)
            ) from error
        if template.names and self.params_type is not None:
            fields = _field_names(self.params_type)
            for name in template.names:
                if name not in fields:
                    raise PromptValidationError(
                        f"{what} placeholder ${{{name}}} is not a field of "
                        f"{self.params_type.__qualname__} (fields: {', '.join(sorted(fields))})",
                        section_path=(self.key,),
                        dataclass=self.params_type,
                        placeholder=name,
                    )
        return template


class _SuffixValues:
    __slots__ = ("section_key",)

    def __init__(self, section_key: str) -> None:
        self.section_key = section_key


def _section_key(key: str | None, title: str) -> str:
    if key is None:
        derived = _NOT_KEY_CHARS.sub("-", title.lower()).strip("-")[:64]
        if not derived:
            raise PromptValidationError(f"cannot derive a key from title {title!r}; pass key=...")
        return derived
    raw_key: object = key
    if not isinstance(raw_key, str) or _KEY.fullmatch(raw_key) is None:
        raise PromptValidationError(
            f"Section key {key!r} must match ^[a-z0-9][a-z0-9_-]{{0,63}}$ (dots separate path "
            "segments and are not allowed in a key)"
        )
    return key


def _resolve_params_type(
    explicit: Any, class_default: Any, default_params: object, key: str
) -> Any:
    params_type = explicit if explicit is not None else class_default
    if params_type is None and default_params is not None:
        params_type = type(default_params)
    if params_type is None:
        return None
    if not isinstance(params_type, type) or not (
        hasattr(params_type, "__dataclass_fields__") or hasattr(params_type, "model_fields")
    ):
        raise PromptValidationError(
            f"Section params type must be a dataclass, got {params_type!r}", section_path=(key,)
        )
    if default_params is not None and not isinstance(default_params, params_type):
        raise PromptValidationError(
            f"default_params must be a {params_type.__qualname__}, got "
            f"{type(default_params).__qualname__}",
            section_path=(key,),
            dataclass=params_type,
        )
    return params_type


def _field_names(params_type: type[Any]) -> frozenset[str]:
    fields = getattr(params_type, "__dataclass_fields__", None)
    if fields is None:
        fields = getattr(params_type, "model_fields", {})
    return frozenset(fields)


def _predicate_takes_params(predicate: Callable[..., bool] | None, key: str) -> bool:
    if predicate is None:
        return False
    if not callable(predicate):
        raise PromptValidationError("enabled must be callable", section_path=(key,))
    try:
        parameters = inspect.signature(predicate).parameters.values()
    except (TypeError, ValueError):
        return True
    required = [
        p
        for p in parameters
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    ]
    if len(required) > 1:
        raise PromptValidationError(
            "enabled must take the section's params or nothing", section_path=(key,)
        )
    return bool(required) or any(p.kind is p.VAR_POSITIONAL for p in parameters)


def _tools_tuple(tools: Sequence[Tool[Any, Any]], key: str) -> tuple[Tool[Any, Any], ...]:
    normalized = tuple(tools)
    for candidate in normalized:
        if not isinstance(candidate, Tool):
            raise PromptValidationError(
                f"Section tools must be Tool instances, got {type(candidate).__qualname__}",
                section_path=(key,),
            )
    return normalized


def _compile_suffix(source: str, key: str) -> CompiledTemplate:
    try:
        template = compile_template(source)
    except TemplateSyntaxError as error:
        raise PromptValidationError(
            f"invalid summary_suffix: {error}", section_path=(key,)
        ) from error
    unknown = template.placeholders - {"section_key"}
    if unknown:
        raise PromptValidationError(
            f"summary_suffix may only use ${{section_key}}, found ${{{sorted(unknown)[0]}}}",
            section_path=(key,),
            placeholder=sorted(unknown)[0],
        )
    return template
