"""The bench environment: the Python 3.13 venv with the pinned peers and this checkout."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _plan import (
    ANTHROPIC_PLUGIN,
    CORE,
    GOOGLE_PLUGIN,
    MCP_PLUGIN,
    MIN_PYTHON,
    OPENAI_PLUGIN,
    OTEL_PLUGIN,
    REQUIREMENTS,
    ROOT,
    TESTING,
    VENVS,
)

# -- the bench environment -------------------------------------------------------------------


@dataclass(slots=True)
class Environment:
    python: Path
    installer: str
    created: bool
    setup_s: float
    plugin: str  # "installed" or why not
    versions: dict[str, str] = field(default_factory=dict)
    python_version: str = ""


def run_command(
    command: Sequence[str | os.PathLike[str]], **kwargs: Any
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(part) for part in command], capture_output=True, text=True, check=False, **kwargs
    )


def find_interpreter(explicit: str | None) -> tuple[Path, str]:
    """A Python >= 3.13 to build the bench venv with: its real path and its version."""
    candidates: list[str] = []
    if explicit:
        candidates.append(explicit)
    if os.environ.get("AFFORDANCE_BENCH_PYTHON"):
        candidates.append(os.environ["AFFORDANCE_BENCH_PYTHON"])
    candidates.append(sys.executable)
    for name in ("python3.13", "python3.14", "python3"):
        found = shutil.which(name)
        if found:
            candidates.append(found)
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    if pyenv.is_dir():
        candidates += [str(p / "bin" / "python") for p in sorted(pyenv.glob("3.1[3-9]*"))]
    # the base interpreter, not a venv's (nox runs us from one): the bench venv's stamp stays put
    probe = (
        "import sys; print(getattr(sys, '_base_executable', sys.executable)); "
        "print(sys.version.split()[0])"
    )
    for candidate in candidates:
        done = run_command([candidate, "-c", probe])
        if done.returncode != 0:
            continue
        executable, version = done.stdout.split()
        if tuple(int(part) for part in version.split(".")[:2]) >= MIN_PYTHON:
            return Path(executable), version
        if explicit and candidate == explicit:
            raise SystemExit(f"--python {explicit} is Python {version}; the bench needs >= 3.13")
    raise SystemExit(
        "no Python >= 3.13 found (weakincentives 0.27 needs it); pass --python PATH or set "
        "AFFORDANCE_BENCH_PYTHON"
    )


def find_uv() -> str | None:
    """uv on PATH, in the dev venv, or as a package of this Python; ``None`` means pip."""
    found = shutil.which("uv")
    if found:
        return found
    local = ROOT / ".venv" / ("Scripts" if os.name == "nt" else "bin") / "uv"
    if local.exists():
        return str(local)
    try:
        import uv  # type: ignore[import-not-found]

        return str(uv.find_uv_bin())
    except (ImportError, FileNotFoundError):
        return None


def ensure_environment(interpreter: Path, version: str, rebuild: bool) -> Environment:
    """Create the venv if its stamp is stale, then (re)install this checkout's packages."""
    started = time.perf_counter()
    uv = find_uv()
    installer = "uv" if uv else "pip"
    major_minor = ".".join(version.split(".")[:2])
    venv = VENVS / f"py{major_minor}"
    python = venv / ("Scripts" if os.name == "nt" else "bin") / "python"
    stamp_path = venv / "bench-stamp.json"
    stamp = {
        "python": str(interpreter),
        "version": version,
        "requirements": hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest(),
        "installer": installer,
    }
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}
    env.pop("VIRTUAL_ENV", None)
    current = json.loads(stamp_path.read_text()) if stamp_path.exists() else None
    created = rebuild or current != stamp or not python.exists()
    if created:
        progress(f"setup: creating {venv.relative_to(ROOT)} with {installer} (Python {version})")
        shutil.rmtree(venv, ignore_errors=True)
        VENVS.mkdir(exist_ok=True)
        if uv:
            _check(run_command([uv, "venv", "--quiet", "--python", interpreter, venv], env=env))
            install = [uv, "pip", "install", "--quiet", "--python", python, "--compile-bytecode"]
        else:
            _check(run_command([interpreter, "-m", "venv", venv], env=env))
            install = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        providers = (OPENAI_PLUGIN, ANTHROPIC_PLUGIN, GOOGLE_PLUGIN)
        plugins = [p for p in providers if (p / "pyproject.toml").exists()]
        done = run_command([*install, "-r", REQUIREMENTS, CORE, *plugins], env=env)
        if done.returncode != 0 and plugins:  # a plugin mid-edit must not stop the bench
            done = run_command([*install, "-r", REQUIREMENTS, CORE], env=env)
        _check(done)
        stamp_path.write_text(json.dumps(stamp, indent=2))

    # this checkout's packages, always reinstalled (no deps): the tree may have changed
    if uv:
        local = [uv, "pip", "install", "--quiet", "--python", python, "--compile-bytecode"]
        local += ["--no-deps", "--reinstall"]
    else:
        local = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        local += ["--no-deps", "--force-reinstall"]
    _check(run_command([*local, CORE, TESTING], env=env))
    plugin = "installed"
    if not (OPENAI_PLUGIN / "pyproject.toml").exists():
        plugin = "skipped: plugin not installed (plugins/openai is absent)"
    else:
        done = run_command([*local, OPENAI_PLUGIN], env=env)
        if done.returncode != 0:
            plugin = f"skipped: plugin not installed ({last_line(done.stderr)})"
    if (ANTHROPIC_PLUGIN / "pyproject.toml").exists():  # its SDK is pinned in the peers file;
        run_command([*local, ANTHROPIC_PLUGIN], env=env)  # e2e_anthropic skips it if absent
    if (GOOGLE_PLUGIN / "pyproject.toml").exists():  # e2e_google skips affordance without it
        run_command([*local, GOOGLE_PLUGIN], env=env)
    if (MCP_PLUGIN / "pyproject.toml").exists():  # mcp_call skips affordance without it
        run_command([*local, MCP_PLUGIN], env=env)
    if (OTEL_PLUGIN / "pyproject.toml").exists():  # tracing skips affordance without it
        run_command([*local, OTEL_PLUGIN], env=env)
    if plugin != "installed":
        uninstall = (
            [uv, "pip", "uninstall", "--quiet", "--python", python]
            if uv
            else [python, "-m", "pip", "uninstall", "--quiet", "--yes"]
        )
        run_command([*uninstall, "affordance-openai"], env=env)

    listing = run_command(
        [
            python,
            "-c",
            (
                "import importlib.metadata as m, json, sys;"
                "print(json.dumps({'python': sys.version.split()[0],"
                " 'versions': {d.metadata['Name']: d.version for d in m.distributions()}}))"
            ),
        ]
    )
    _check(listing)
    found = json.loads(listing.stdout)
    return Environment(
        python=python,
        installer=installer,
        created=created,
        setup_s=time.perf_counter() - started,
        plugin=plugin,
        versions=dict(sorted(found["versions"].items(), key=lambda kv: kv[0].lower())),
        python_version=found["python"],
    )


def _check(done: subprocess.CompletedProcess[str]) -> None:
    if done.returncode != 0:
        raise SystemExit(f"bench setup failed: {' '.join(map(str, done.args))}\n{done.stderr}")


def last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "no output"


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
