"""Import time: wall time of an import statement in a fresh interpreter.

Each sample starts a new ``python -c`` that reads the clock, runs the import and prints the
elapsed time, so interpreter start-up is excluded and nothing is imported before (one unmeasured
import first fills the bytecode and file caches). Besides the package itself, affordance and
weakincentives are measured importing their prompt API, and affordance and pydantic-ai their
OpenAI adapter (which brings the ``openai`` SDK).

    python bench/measures/import_time.py [--framework F] [--json] [--samples N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

from _harness import Sample, Skip, jobs_of, main

FRAMEWORKS = ("affordance", "weakincentives", "pydantic-ai", "openai-agents", "llm", "openai-sdk")
JOBS = jobs_of(FRAMEWORKS)

# row key -> (row label, {framework: statement})
STATEMENTS: dict[str, tuple[str, dict[str, str]]] = {
    "package": (
        "import the package (fresh process)",
        {
            "affordance": "import affordance",
            "weakincentives": "import weakincentives",
            "pydantic-ai": "import pydantic_ai",
            "openai-agents": "import agents",
            "llm": "import llm",
            "openai-sdk": "import openai",
        },
    ),
    "prompt_api": (
        "import the prompt API (sections, tools)",
        {
            "affordance": (
                "from affordance import MarkdownSection, PromptTemplate, Tool, ToolResult"
            ),
            "weakincentives": (
                "from weakincentives.prompt import MarkdownSection, PromptTemplate, Tool, "
                "ToolResult"
            ),
        },
    ),
    "offline_run": (
        "import what an offline run needs",
        {
            "affordance": (
                "from affordance import MarkdownSection, PromptTemplate, Tool, ToolResult; "
                "from affordance.testing import ScriptedAdapter"
            ),
            "pydantic-ai": (
                "from pydantic_ai import Agent; "
                "from pydantic_ai.models.function import FunctionModel"
            ),
            "openai-agents": "from agents import Agent, Runner, function_tool, Model",
            "llm": "import llm",
        },
    ),
    "openai_adapter": (
        "import the OpenAI adapter (with the SDK)",
        {
            "affordance": (
                "from affordance import MarkdownSection, PromptTemplate, Tool, ToolResult; "
                "from affordance_openai import OpenAIAdapter"
            ),
            "pydantic-ai": (
                "from pydantic_ai import Agent; "
                "from pydantic_ai.models.openai import OpenAIChatModel"
            ),
            "openai-agents": "from agents import Agent, Runner, OpenAIChatCompletionsModel",
            "openai-sdk": "import openai",
        },
    ),
}

_PROGRAM = (
    "import time\n"
    "_start = time.perf_counter()\n"
    "{statement}\n"
    "print(repr(time.perf_counter() - _start))\n"
)


def time_import(statement: str) -> float:
    """Seconds the statement took in a new interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", _PROGRAM.format(statement=statement.replace("; ", "\n"))],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["?"])[-1]
        raise ImportError(last)
    return float(done.stdout.strip().splitlines()[-1])


def measure(framework: str, args: argparse.Namespace) -> Sample:
    sample = Sample()
    for key, (label, by_framework) in STATEMENTS.items():
        statement = by_framework.get(framework)
        if statement is None:
            continue
        try:
            time_import(statement)  # fills bytecode and OS file caches; not counted
        except ImportError as error:
            if key == "package":
                raise Skip(f"not importable: {error}") from None
            sample.info[f"{key} skipped"] = str(error)
            continue
        seconds = statistics.median(time_import(statement) for _ in range(args.samples))
        sample.add(key, label, "ms", seconds * 1e3)
    return sample


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--samples", type=int, default=1, help="fresh interpreters per import")


if __name__ == "__main__":
    main("import_time", measure, JOBS, _arguments)
