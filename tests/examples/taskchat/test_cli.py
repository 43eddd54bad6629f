"""``taskchat serve`` and the choice of model: offline by default, clear errors otherwise — a
database it cannot open among them, in one line."""

from __future__ import annotations

import importlib.util
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from affordance import MarkdownSection, PromptTemplate
from affordance.testing import ScriptedAdapter
from taskchat.cli import main
from taskchat.providers import ProviderSetupError, build_adapter


def test_the_default_model_is_the_offline_one() -> None:
    adapter = build_adapter("scripted")

    assert isinstance(adapter, ScriptedAdapter)
    prompt = PromptTemplate(sections=[MarkdownSection(title="Ask", template="List my tasks.")])
    adapter.send(adapter.preview_request(prompt.render(), "ask"))
    assert (adapter.sent, adapter.requests) == (1, [])  # a server keeps no request log


@pytest.mark.parametrize(
    ("provider", "plugin"), [("anthropic", "affordance-anthropic"), ("google", "affordance-google")]
)
def test_a_provider_without_its_plugin_names_the_plugin(provider: str, plugin: str) -> None:
    if importlib.util.find_spec("affordance_" + provider) is not None:
        pytest.skip(f"{plugin} is installed here")

    with pytest.raises(ProviderSetupError) as raised:
        build_adapter(provider, environ={})

    assert str(raised.value) == (
        f"--provider {provider} needs the {plugin} plugin, which is not installed "
        f"(pip install {plugin})"
    )


def test_a_provider_without_its_api_key_names_the_variable() -> None:
    pytest.importorskip("affordance_openai")

    with pytest.raises(ProviderSetupError, match="needs an API key: set OPENAI_API_KEY"):
        build_adapter("openai", environ={})

    assert build_adapter("openai", environ={"OPENAI_API_KEY": "sk-test"}).name == "openai"


def test_an_unknown_provider_lists_the_choices() -> None:
    with pytest.raises(ProviderSetupError, match="choose one of scripted, openai, anthropic"):
        build_adapter("mistral")


def test_serve_reports_a_setup_problem_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("affordance_openai")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    database = tmp_path / "t.db"
    code = main(["serve", "--database-url", f"sqlite:///{database}", "--provider", "openai"])

    assert code == 2
    assert "needs an API key: set OPENAI_API_KEY" in capsys.readouterr().err


def test_serve_refuses_a_database_of_another_schema_version(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = tmp_path / "t.db"
    with sqlite3.connect(database) as connection:
        connection.execute("create table taskchat_meta (key text primary key, value text)")
        connection.execute("insert into taskchat_meta values ('schema_version', '99')")

    assert main(["serve", "--database-url", f"sqlite:///{database}"]) == 2
    assert "schema version 99, newer than this taskchat's 1" in capsys.readouterr().err


def test_serve_rejects_an_unknown_provider_name(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--provider", "mistral"])

    assert exited.value.code == 2
    assert "invalid choice: 'mistral'" in capsys.readouterr().err


@pytest.mark.parametrize("grace", ["-1", "nan"])
def test_serve_refuses_a_shutdown_grace_that_is_not_a_duration(
    grace: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = tmp_path / "t.db"
    code = main(["serve", "--database-url", f"sqlite:///{database}", "--shutdown-grace", grace])

    assert code == 2
    assert (
        f"shutdown_grace must be 0 or more seconds, got {float(grace)}" in capsys.readouterr().err
    )
    assert not database.exists()


def _run_serve(*arguments: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``taskchat serve`` in a process of its own, as a person runs it."""
    command = [sys.executable, "-c", "import sys; from taskchat.cli import main; sys.exit(main())"]
    return subprocess.run(
        [*command, "serve", "--port", "0", *arguments],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path)},
    )


_NO_PSYCOPG = pytest.mark.skipif(
    importlib.util.find_spec("psycopg") is not None, reason="psycopg is installed here"
)


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        (
            "postgres://u@h/db",
            (
                "SQLAlchemy has no database type 'postgres'; write postgresql:// instead of "
                "postgres:// or pass another --database-url"
            ),
        ),
        (
            "sqlite:////no/such/folder/x.db",
            "the folder /no/such/folder does not exist; create it or pass another --database-url",
        ),
        pytest.param(
            "postgresql://u:secret@h/db",
            "its driver, the Python module 'psycopg', is not installed; install it or pass "
            "another --database-url",
            marks=_NO_PSYCOPG,
        ),
        (
            "not a url",
            (
                "it is not a SQLAlchemy URL (such as sqlite:////path/to/taskchat.db or "
                "postgresql://user@host/taskchat); pass another --database-url"
            ),
        ),
    ],
)
def test_serve_names_a_database_it_cannot_open_in_one_line_and_exits_2(
    url: str, reason: str, tmp_path: Path
) -> None:
    done = _run_serve("--database-url", url, tmp_path=tmp_path)

    assert done.returncode == 2
    shown = url.replace(":secret@", ":***@")  # the password is not printed
    assert done.stderr == f"taskchat: error: cannot open database {shown!r}: {reason}\n"
    assert done.stdout == ""
