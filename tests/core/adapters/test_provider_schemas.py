"""The three providers' dialects give, over a recorded corpus, exactly what their hand-written
rules gave before the shared walker and rule kit (issue 26): every schema the provider tests
send, the fixtures' params and hand-written edge cases, each with the output recorded per
provider (key order included)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from affordance.adapters import convert_schema


def _convert(plugin: str, dialect: str, schema: Any) -> Any:
    """``schema`` in a provider plugin's dialect (its ``_schema`` module); its cases are skipped
    where it is not installed (the tox ``core`` environments install core alone)."""
    rules = pytest.importorskip(f"{plugin}._schema", reason=f"{plugin} is not installed")
    return convert_schema(schema, getattr(rules, dialect))


_ROWS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "provider_schemas.json").read_text(encoding="utf-8")
)


def _openai(schema: Any) -> dict[str, Any]:
    result = _convert("affordance_openai", "STRICT", schema)
    nulls = _plain(result.nulls)
    return {
        "schema": result.schema,
        "strict": result.strict,
        "nulls": nulls,
        "reason": result.reason,
    }


def _plain(value: Any) -> Any:
    """A null plan as JSON, sets sorted (their order follows the hash seed)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"kind": type(value).__name__, **fields}
    if isinstance(value, frozenset):
        return sorted(value)
    if isinstance(value, (tuple, list)):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


def _anthropic(schema: Any) -> dict[str, Any]:
    result = _convert("affordance_anthropic", "STRICT", schema)
    return {"schema": result.schema, "strict": result.strict, "reason": result.reason}


def _google(schema: Any) -> dict[str, Any]:
    result = _convert("affordance_google", "GEMINI", schema)
    changed, dropped = list(result.changed), list(result.dropped)
    return {"schema": result.schema, "changed": changed, "dropped": dropped, "note": result.note}


_PROVIDERS = {"openai": _openai, "anthropic": _anthropic, "google": _google}


def _output(provider: str, schema: Any) -> dict[str, Any]:
    try:
        return _PROVIDERS[provider](schema)
    except Exception as error:  # recorded too: a schema that is not an object
        return {"error": type(error).__name__}


@pytest.mark.parametrize("provider", sorted(_PROVIDERS))
def test_each_provider_rewrites_every_recorded_schema_byte_for_byte_as_before(
    provider: str,
) -> None:
    differing = [
        index
        for index, row in enumerate(_ROWS)
        if json.dumps(_output(provider, row["input"])) != json.dumps(row[provider])
    ]
    assert differing == [], f"{provider} differs on rows {differing}"


def test_the_corpus_covers_strict_refused_and_rewritten_schemas() -> None:
    assert len(_ROWS) >= 100
    assert any(row["openai"].get("strict") is False for row in _ROWS)
    assert any(row["anthropic"].get("strict") is True for row in _ROWS)
    assert any(row["google"].get("changed") for row in _ROWS)
