# The names of __init__.py, imported eagerly here for type checkers (the package imports
# each on first access); tests/core/test_facades.py holds the two to agree.

from affordance.errors import (
    PromptEvaluationError,
    PromptRenderError,
    PromptValidationError,
    ToolError,
    ToolValidationError,
)
from affordance.prompt.disclosure import OpenSectionsParams, OpenSectionsResult, open_sections_tool
from affordance.prompt.hosted_section import HostedKindSection, HostedToolSection
from affordance.prompt.markdown import MarkdownSection
from affordance.prompt.paths import SectionPath
from affordance.prompt.rendered import RenderedPrompt
from affordance.prompt.section import Section, SectionVisibility
from affordance.prompt.template import Prompt, PromptTemplate
from affordance.runtime.calls.context import ToolContext, ToolHandler
from affordance.tools import (
    HostedTool,
    HostedToolCodec,
    HostedToolConfig,
    HostedToolOutput,
    RetryPolicy,
    Tool,
    ToolExample,
    ToolRenderableResult,
    ToolResult,
    tool,
)

__all__ = [
    "HostedKindSection",
    "HostedTool",
    "HostedToolCodec",
    "HostedToolConfig",
    "HostedToolOutput",
    "HostedToolSection",
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
    "open_sections_tool",
    "tool",
]
