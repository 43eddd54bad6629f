"""Developer sessions. The compatibility matrix lives in tox.ini; these are procedures.

nox -s lint typecheck tests    the quick checks
nox -s demo                    the offline demo
nox -s bench                   benchmarks against the peers (see bench/README.md)
"""

from __future__ import annotations

from pathlib import Path

import nox

nox.options.default_venv_backend = "uv|virtualenv"
nox.options.sessions = ["lint", "typecheck", "tests"]

ROOT = Path(__file__).parent
DISTRIBUTIONS = [
    "./core",
    "./testing",
    *sorted(f"./{p.parent.relative_to(ROOT)}" for p in ROOT.glob("plugins/*/pyproject.toml")),
    *sorted(f"./{p.parent.relative_to(ROOT)}" for p in ROOT.glob("examples/*/pyproject.toml")),
]


def pinned(name: str) -> str:
    """The requirement on ``name`` in requirements-dev.txt: tools are pinned in one place."""
    for line in (ROOT / "requirements-dev.txt").read_text().splitlines():
        if line.split("=")[0].split(">")[0].strip() == name:
            return line.strip()
    raise LookupError(f"{name} is not in requirements-dev.txt")


def install_workspace(session: nox.Session) -> None:
    for distribution in DISTRIBUTIONS:
        session.install("-e", distribution)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff, and the import-layer contracts of pyproject.toml (lint-imports)."""
    session.install(pinned("ruff"))
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    install_workspace(session)
    session.install(pinned("import-linter"), pinned("openai"))
    session.run("lint-imports")


@nox.session
def typecheck(session: nox.Session) -> None:
    install_workspace(session)
    session.install(
        pinned("mypy"), pinned("pydantic"), pinned("pytest"), pinned("types-jsonschema")
    )
    # what taskchat's tracing imports (its `otel` extra), so mypy sees the types it uses
    session.install(
        pinned("opentelemetry-sdk"),
        pinned("opentelemetry-exporter-otlp-proto-http"),
        pinned("opentelemetry-instrumentation-asgi"),
    )
    session.run("mypy")


@nox.session
def tests(session: nox.Session) -> None:
    install_workspace(session)
    session.install("-r", "requirements-dev.txt")
    session.run("pytest", "-q", "-p", "no:cacheprovider", *session.posargs)


@nox.session
def demo(session: nox.Session) -> None:
    session.install("-e", "./core")
    session.run("affordance", "demo", *session.posargs)


@nox.session(python=["3.10", "3.13"])
def discovery(session: nox.Session) -> None:
    """Build core and the sample plugins as wheels, install them in a fresh venv, check the CLI."""
    session.install("./core", "./testing", "pytest>=8", "pip>=22.3", "hatchling>=1.21")
    session.run(
        "pytest",
        "tests/core/plugins/test_wheels.py",
        "-m",
        "slow",
        "-p",
        "no:cacheprovider",
        *session.posargs,
    )


@nox.session(python="3.13")
def bench(session: nox.Session) -> None:
    session.run("python", "bench/run.py", *session.posargs, external=True)
