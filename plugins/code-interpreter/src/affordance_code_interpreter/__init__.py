"""affordance-code-interpreter: the ``code_interpreter`` hosted tool, one typed result on every
provider.

Attach :class:`CodeInterpreterSection` (or :func:`code_interpreter_tool` on any section) to a
prompt; the provider plugin declares it through this plugin's codec for that provider, and the
runs come back as a :class:`CodeInterpreterResult` in ``PromptResponse.hosted_outputs``.
Codecs: OpenAI Responses (``openai``), Anthropic (``anthropic``), Gemini (``google``); OpenAI
Chat has no code interpreter. A setting a provider cannot honour raises
:class:`UnsupportedCodeInterpreterConfigError` before any request.

Names resolve on first access (PEP 562), so discovering the plugin loads nothing but the entry
module; nothing here ever imports a provider SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from affordance.plugins import lazy_exports

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "CONFIG_FIELDS": "affordance_code_interpreter.config",
    "CodeInterpreterConfig": "affordance_code_interpreter.config",
    "MemoryLimit": "affordance_code_interpreter.config",
    "UnsupportedCodeInterpreterConfigError": "affordance_code_interpreter.errors",
    "RESULT_FIELDS": "affordance_code_interpreter.result",
    "CodeExecution": "affordance_code_interpreter.result",
    "CodeFile": "affordance_code_interpreter.result",
    "CodeInterpreterResult": "affordance_code_interpreter.result",
    "Outcome": "affordance_code_interpreter.result",
    "CodeInterpreterSection": "affordance_code_interpreter.section",
    "CODE_INTERPRETER_KIND": "affordance_code_interpreter.plugin",
    "code_interpreter_tool": "affordance_code_interpreter.plugin",
}

__all__ = [
    "CODE_INTERPRETER_KIND",
    "CONFIG_FIELDS",
    "RESULT_FIELDS",
    "CodeExecution",
    "CodeFile",
    "CodeInterpreterConfig",
    "CodeInterpreterResult",
    "CodeInterpreterSection",
    "MemoryLimit",
    "Outcome",
    "UnsupportedCodeInterpreterConfigError",
    "__version__",
    "code_interpreter_tool",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)


if TYPE_CHECKING:
    from affordance_code_interpreter.config import (
        CONFIG_FIELDS,
        CodeInterpreterConfig,
        MemoryLimit,
    )
    from affordance_code_interpreter.errors import UnsupportedCodeInterpreterConfigError
    from affordance_code_interpreter.plugin import CODE_INTERPRETER_KIND, code_interpreter_tool
    from affordance_code_interpreter.result import (
        RESULT_FIELDS,
        CodeExecution,
        CodeFile,
        CodeInterpreterResult,
        Outcome,
    )
    from affordance_code_interpreter.section import CodeInterpreterSection
