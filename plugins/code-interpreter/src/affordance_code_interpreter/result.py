"""What a code interpreter run produced, in one shape on every provider.

A field a provider does not report is ``None`` or empty, never guessed; which provider fills
what is the support table in ``specs/HOSTED_TOOLS.md`` (each codec declares it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from affordance.errors import PromptValidationError

__all__ = ["RESULT_FIELDS", "CodeExecution", "CodeFile", "CodeInterpreterResult", "Outcome"]

Outcome = Literal["ok", "failed", "timed_out", "error"]
"""``ok``/``failed``: the code ran and succeeded or failed; ``timed_out``: it ran out of time;
``error``: the tool itself failed (unavailable, invalid input, ...)."""

RESULT_FIELDS: tuple[str, ...] = (
    "text",
    "executions.code",
    "executions.language",
    "executions.output",
    "executions.stdout",
    "executions.stderr",
    "executions.exit_code",
    "executions.outcome",
    "executions.error",
    "files",
)
"""Everything a :class:`CodeInterpreterResult` can hold, as codecs name it."""


@dataclass(frozen=True, slots=True)
class CodeFile:
    """A file the sandbox produced: a provider file id, or a URL, or both."""

    file_id: str | None = None
    url: str | None = None
    filename: str | None = None
    container_id: str | None = None

    def __post_init__(self) -> None:
        if not self.file_id and not self.url:
            raise PromptValidationError("CodeFile needs a file_id or a url")


@dataclass(frozen=True, slots=True)
class CodeExecution:
    """One run of code in the provider's sandbox.

    ``output`` is everything the run printed as the provider reports it (OpenAI's logs and
    Gemini's output combine stdout and stderr; on Anthropic it is stdout then stderr);
    ``stdout``/``stderr``/``exit_code`` are set only where the provider reports them apart.
    ``error`` is the provider's error code when the tool itself failed.
    """

    code: str
    language: str | None = None
    output: str | None = None
    stdout: str | None = None
    stderr: str | None = None
    exit_code: int | None = None
    outcome: Outcome | None = None
    error: str | None = None
    files: tuple[CodeFile, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "files", tuple(self.files))


def _joined(values: list[str | None], separator: str = "") -> str | None:
    reported = [value for value in values if value is not None]
    return separator.join(reported) if reported else None


@dataclass(frozen=True, slots=True)
class CodeInterpreterResult:
    """The runs of one response, in order, with the answer text and every file produced.

    The shortcuts describe the response as a whole: :attr:`code`, :attr:`output`,
    :attr:`stdout` and :attr:`stderr` join every run in order (None when no run reports it);
    :attr:`exit_code` and :attr:`outcome` are the last run's, the one the answer rests on.
    """

    executions: tuple[CodeExecution, ...]
    text: str = ""
    files: tuple[CodeFile, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "executions", tuple(self.executions))
        object.__setattr__(self, "files", tuple(self.files))
        if not self.executions:
            raise PromptValidationError("CodeInterpreterResult needs at least one execution")

    @property
    def code(self) -> str:
        return "\n\n".join(execution.code for execution in self.executions)

    @property
    def output(self) -> str | None:
        return _joined([execution.output for execution in self.executions])

    @property
    def stdout(self) -> str | None:
        return _joined([execution.stdout for execution in self.executions])

    @property
    def stderr(self) -> str | None:
        return _joined([execution.stderr for execution in self.executions])

    @property
    def exit_code(self) -> int | None:
        return self.executions[-1].exit_code

    @property
    def outcome(self) -> Outcome | None:
        return self.executions[-1].outcome
