"""Prompts: sections, tools and rendering — everything ``from affordance.prompt import ...`` needs.

The seeds import these names from ``weakincentives.prompt``; here they live in
``affordance.prompt`` (and in ``affordance`` itself). ``ToolContext`` and ``ToolHandler`` belong
to the runtime, a layer above this one: they are re-exported lazily (PEP 562), so importing
``affordance.prompt`` does not load the runtime.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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

_RUNTIME_NAMES = {"ToolContext", "ToolHandler"}


def __getattr__(name: str) -> Any:
    if name not in _RUNTIME_NAMES:
        raise AttributeError(f"module 'affordance.prompt' has no attribute {name!r}")
    value = getattr(importlib.import_module("affordance.runtime.calls.context"), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from affordance.runtime.calls.context import ToolContext, ToolHandler
