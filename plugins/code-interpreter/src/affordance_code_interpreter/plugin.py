"""The entry point of ``affordance-code-interpreter``: the ``code_interpreter`` kind, declared
once, and its hook implementations; its types and codecs are named by dotted path.

This module imports ``affordance`` and nothing else (the package ``__init__`` imports nothing
eagerly); the config, result and codecs are imported when first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from affordance.plugins import hosted_kind_hooks
from affordance.tools import HostedKind

if TYPE_CHECKING:
    from affordance_code_interpreter.config import CodeInterpreterConfig

__all__ = [
    "CODECS",
    "CODE_INTERPRETER",
    "CODE_INTERPRETER_KIND",
    "affordance_register_codecs",
    "affordance_register_hosted_tool_kinds",
    "code_interpreter_tool",
]

_PACKAGE = "affordance_code_interpreter"

CODE_INTERPRETER: HostedKind[CodeInterpreterConfig] = HostedKind(
    kind="code_interpreter",
    config=f"{_PACKAGE}.config:CodeInterpreterConfig",
    output=f"{_PACKAGE}.result:CodeInterpreterResult",
    codecs={  # OpenAI Chat (``openai-chat``) has no code interpreter
        "openai": f"{_PACKAGE}.openai_responses:OpenAICodeInterpreterCodec",
        "anthropic": f"{_PACKAGE}.anthropic_messages:AnthropicCodeInterpreterCodec",
        "google": f"{_PACKAGE}.google_gemini:GoogleCodeInterpreterCodec",
    },
    description="Provider-run code execution in a sandbox",
    tool_description="Write and run code in a sandbox to compute, analyse data or make files.",
    title="Code Interpreter",
    guidance=(
        "You can write and run code in a sandbox. Run code for arithmetic, data analysis and "
        "anything you would otherwise estimate, and report what it printed."
    ),
)
"""The ``code_interpreter`` kind: its types, its codec per provider, its tool and section text."""

CODE_INTERPRETER_KIND = CODE_INTERPRETER.kind

CODECS = CODE_INTERPRETER.codecs
"""Codec provider -> the codec class (OpenAI Chat, ``openai-chat``, has no code interpreter)."""

code_interpreter_tool = CODE_INTERPRETER.tool
"""A ``code_interpreter`` hosted tool (``config``, ``name``, ``description``); its output is a
:class:`~affordance_code_interpreter.CodeInterpreterResult` in
``PromptResponse.hosted_outputs[name]``."""

affordance_register_hosted_tool_kinds, affordance_register_codecs = hosted_kind_hooks(
    CODE_INTERPRETER
)
