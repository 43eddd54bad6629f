"""Prompts: sections, tools and rendering — everything ``from affordance.prompt import ...`` needs.

The seeds import these names from ``weakincentives.prompt``; here they live in
``affordance.prompt`` (and in ``affordance`` itself).
"""

from affordance.errors import (
    PromptEvaluationError,
    PromptRenderError,
    PromptValidationError,
    ToolError,
    ToolValidationError,
)
from affordance.prompt.disclosure import OpenSectionsParams, OpenSectionsResult
from affordance.prompt.markdown import MarkdownSection
from affordance.prompt.paths import SectionPath
from affordance.prompt.rendered import RenderedPrompt
from affordance.prompt.section import Section, SectionVisibility
from affordance.prompt.template import Prompt, PromptTemplate
from affordance.tools import (
    HostedTool,
    HostedToolCodec,
    HostedToolConfig,
    HostedToolOutput,
    RetryPolicy,
    Tool,
    ToolContext,
    ToolExample,
    ToolHandler,
    ToolRenderableResult,
    ToolResult,
    tool,
)

__all__ = [
    "HostedTool",
    "HostedToolCodec",
    "HostedToolConfig",
    "HostedToolOutput",
    "MarkdownSection",
    "OpenSectionsParams",
    "OpenSectionsResult",
    "Prompt",
    "PromptEvaluationError",
    "PromptRenderError",
    "PromptTemplate",
    "PromptValidationError",
    "RenderedPrompt",
    "RetryPolicy",
    "Section",
    "SectionPath",
    "SectionVisibility",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolExample",
    "ToolHandler",
    "ToolRenderableResult",
    "ToolResult",
    "ToolValidationError",
    "tool",
]
