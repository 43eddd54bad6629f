"""Prompts: sections, tools and rendering — everything ``from affordance.prompt import ...`` needs.

The seeds import these names from ``weakincentives.prompt``; here they live in
``affordance.prompt`` (and in ``affordance`` itself). ``ToolContext`` and ``ToolHandler`` belong
to the runtime, a layer above this one; like every name here they are imported on first use, so
importing ``affordance.prompt`` does not load the runtime.
"""

from affordance._lazy import lazy_exports

# public name -> the module defining it, imported on first access (PEP 562); __init__.pyi
# lists the same names for type checkers
_EXPORTS: dict[str, str] = {
    "HostedKindSection": "affordance.prompt.hosted_section",
    "HostedTool": "affordance.tools",
    "HostedToolCodec": "affordance.tools",
    "HostedToolConfig": "affordance.tools",
    "HostedToolOutput": "affordance.tools",
    "HostedToolSection": "affordance.prompt.hosted_section",
    "MarkdownSection": "affordance.prompt.markdown",
    "OpenSectionsParams": "affordance.prompt.disclosure",
    "OpenSectionsResult": "affordance.prompt.disclosure",
    "Prompt": "affordance.prompt.template",
    "PromptEvaluationError": "affordance.errors",
    "PromptRenderError": "affordance.errors",
    "PromptTemplate": "affordance.prompt.template",
    "PromptValidationError": "affordance.errors",
    "RenderedPrompt": "affordance.prompt.rendered",
    "RetryPolicy": "affordance.tools",
    "Section": "affordance.prompt.section",
    "SectionPath": "affordance.prompt.paths",
    "SectionVisibility": "affordance.prompt.section",
    "Tool": "affordance.tools",
    "ToolContext": "affordance.runtime.calls.context",
    "ToolError": "affordance.errors",
    "ToolExample": "affordance.tools",
    "ToolHandler": "affordance.runtime.calls.context",
    "ToolRenderableResult": "affordance.tools",
    "ToolResult": "affordance.tools",
    "ToolValidationError": "affordance.errors",
    "open_sections_tool": "affordance.prompt.disclosure",
    "tool": "affordance.tools",
}
__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)
