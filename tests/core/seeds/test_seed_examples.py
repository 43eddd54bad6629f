"""The examples of seeds 000 and 001 run unchanged except for the import path."""

import runpy
from pathlib import Path

HERE = Path(__file__).parent


def run_example(name: str) -> dict[str, object]:
    return runpy.run_path(str(HERE / f"{name}.py"))


def test_seed_000_example_renders_the_lookup_tool():
    namespace = run_example("seed_000_tooling")
    assert namespace["markdown"] == "## 1 Guidance\nUse tools when you need up-to-date context."
    assert [t.name for t in namespace["tools"]] == ["lookup_entity"]  # type: ignore[attr-defined]


def test_seed_001_example_renders_nested_sections_with_numbered_headings():
    namespace = run_example("seed_001_registration")
    assert namespace["markdown"] == (
        "## 1 Guidance\n"
        "Use tools when you need up-to-date context. Prefer lookup_entity for critical lookups.\n\n"
        "### 1.1 Available Tools\n"
        "Invoke lookup_entity whenever you need fresh entity context."
    )
    assert [t.name for t in namespace["tools"]] == ["lookup_entity"]  # type: ignore[attr-defined]


def test_seed_001_handler_taking_only_params_is_accepted():
    namespace = run_example("seed_001_registration")
    tool = namespace["lookup_tool"]
    assert tool.takes_context is False  # type: ignore[attr-defined]
    assert tool.params_type is namespace["LookupParams"]  # type: ignore[attr-defined]
    assert tool.result_type is namespace["LookupResult"]  # type: ignore[attr-defined]
