"""``HostedToolSection``: guidance for the model and one hosted tool, in one section.

What a hosted-tool plugin's section is (``WebSearchSection``, ``CodeInterpreterSection``): a
fixed text telling the model when to use the capability, and the tool itself, exposed while
the section is enabled and fully visible, like any section's tools. The text takes no params.
:class:`HostedKindSection` takes its defaults from the plugin's ``HostedKind`` declaration, so
a plugin's section is a subclass naming the kind and nothing more.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Generic, TypeVar

from affordance._frozen import frozen
from affordance.prompt.markdown import MarkdownSection
from affordance.prompt.section import SectionVisibility
from affordance.tools.hosted import HostedTool, HostedToolConfig
from affordance.tools.hosted_kind import HostedKind

__all__ = ["HostedKindSection", "HostedToolSection"]

ConfigT = TypeVar("ConfigT", bound=HostedToolConfig)


@frozen
class _NoParams:
    """The section's params: none (its text has no placeholders)."""


class HostedToolSection(MarkdownSection[_NoParams], Generic[ConfigT]):
    """``template`` (guidance, no placeholders) and ``tool``, keyed ``key`` in the prompt."""

    def __init__(
        self,
        tool: HostedTool[ConfigT],
        *,
        key: str,
        title: str,
        template: str,
        enabled: Callable[[], bool] | None = None,
        visibility: SectionVisibility = SectionVisibility.FULL,
        summary: str | None = None,
    ) -> None:
        self.tool = tool
        super().__init__(
            title=title,
            key=key,
            template=template,
            enabled=enabled,
            default_params=_NoParams(),
            params_type=_NoParams,  # not ConfigT, which subclasses name in their bases
            hosted_tools=(tool,),
            visibility=visibility,
            summary=summary,
        )

    @property
    def config(self) -> ConfigT:
        return self.tool.config


class HostedKindSection(HostedToolSection[ConfigT]):
    """The section of a declared kind: subclass it naming the kind in ``hosted_kind``.

    ``config`` defaults to the config type's defaults; ``key`` and ``name`` (the hosted tool's
    name, the key of its output in ``hosted_outputs``) to the kind; ``title`` and ``template``
    (the guidance text) to the declaration's ``title`` and ``guidance``.
    """

    hosted_kind: ClassVar[HostedKind[Any]]

    def __init__(
        self,
        config: ConfigT | None = None,
        *,
        key: str | None = None,
        name: str | None = None,
        title: str | None = None,
        template: str | None = None,
        enabled: Callable[[], bool] | None = None,
        visibility: SectionVisibility = SectionVisibility.FULL,
        summary: str | None = None,
    ) -> None:
        declared: object = getattr(type(self), "hosted_kind", None)
        if not isinstance(declared, HostedKind):
            raise TypeError(
                f"{type(self).__qualname__} must name its kind: hosted_kind = <a HostedKind>"
            )
        tool: HostedTool[ConfigT] = declared.tool(config, name=name)
        super().__init__(
            tool,
            key=declared.kind if key is None else key,
            title=declared.title if title is None else title,
            template=declared.guidance if template is None else template,
            enabled=enabled,
            visibility=visibility,
            summary=summary,
        )
