"""Discovery from real wheels (depth 3): build core, a sample codec plugin and a broken plugin,
install them into a fresh venv, and ask that venv's ``affordance plugins --json``.

Offline when hatchling is importable here: the wheels are built from this repository without
build isolation, pluggy's wheel is repacked from its installed files, and the venv installs with
``--no-index``. Without hatchling, pip fetches it into an isolated build environment.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures" / "plugins"
SKIPPED_METADATA = {"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"}


def clean_env(**extra: str) -> dict[str, str]:
    """This environment without affordance settings or a PYTHONPATH leaking into the venv."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("AFFORDANCE_") and key not in ("PYTHONPATH", "VIRTUAL_ENV")
    }
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env.update(extra)
    return env


def run(*command: str | Path, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(part) for part in command],
        capture_output=True,
        text=True,
        check=False,
        env=clean_env(**extra),
        timeout=120,
    )


def repack_installed(name: str, wheelhouse: Path) -> Path:
    """A wheel of an installed pure-Python distribution, rebuilt from its RECORDed files."""
    dist = importlib.metadata.distribution(name)
    files = [
        f
        for f in dist.files or ()
        if "__pycache__" not in f.parts and f.parts[0] != ".." and f.name not in SKIPPED_METADATA
    ]
    info_dir = next(f.parent for f in files if f.name == "METADATA")
    wheel = wheelhouse / f"{info_dir.name.removesuffix('.dist-info')}-py3-none-any.whl"
    record = []
    with zipfile.ZipFile(wheel, "w") as archive:
        for file in files:
            data = Path(str(file.locate())).read_bytes()
            archive.writestr(file.as_posix(), data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            record.append(f"{file.as_posix()},sha256={digest.decode()},{len(data)}")
        record.append(f"{info_dir.as_posix()}/RECORD,,")
        archive.writestr(f"{info_dir.as_posix()}/RECORD", "\n".join(record) + "\n")
    return wheel


@pytest.fixture(scope="module")
def venv_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if importlib.util.find_spec("pip") is None:
        pytest.skip("pip is needed to build and install the wheels")
    base = tmp_path_factory.mktemp("discovery")
    wheelhouse = base / "wheelhouse"
    wheelhouse.mkdir()
    build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", wheelhouse]
    if importlib.util.find_spec("hatchling") is not None:
        build.append("--no-build-isolation")
    built = run(*build, ROOT / "core", FIXTURES / "acme-search", FIXTURES / "broken-demo")
    assert built.returncode == 0, built.stderr
    repack_installed("pluggy", wheelhouse)
    repack_installed("packaging", wheelhouse)
    venv = base / "venv"
    created = run(sys.executable, "-m", "venv", "--without-pip", venv)
    assert created.returncode == 0, created.stderr
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    installed = run(
        sys.executable,
        "-m",
        "pip",
        "--python",
        python,
        "install",
        "--quiet",
        "--no-index",
        "--find-links",
        wheelhouse,
        "affordance",
        "affordance-acme-search",
        "affordance-broken-demo",
    )
    assert installed.returncode == 0, installed.stderr
    return python


def test_the_cli_lists_installed_wheels_and_reports_the_broken_one(venv_python):
    result = run(venv_python, "-m", "affordance", "plugins", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["core"]["version"] == importlib.metadata.version("affordance")
    plugins = {p["name"]: p for p in data["plugins"]}
    assert set(plugins) == {"acme-search", "broken-demo"}
    acme = plugins["acme-search"]
    assert (acme["distribution"], acme["version"], acme["status"]) == (
        "affordance-acme-search",
        "1.0.0",
        "loaded",
    )
    assert [
        (c["category"], c["key"], c["available"], c["selected"]) for c in acme["contributions"]
    ] == [
        ("hosted_tool_kind", "acme_search", True, True),
        ("codec", "openai.acme_search", True, True),
    ]
    broken = plugins["broken-demo"]
    assert (broken["distribution"], broken["version"], broken["status"]) == (
        "affordance-broken-demo",
        "0.3.0",
        "failed",
    )
    assert "No module named 'affordance_broken_demo_missing_dependency'" in broken["reason"]


def test_the_doctor_exit_code_follows_the_broken_plugin(venv_python):
    assert run(venv_python, "-m", "affordance", "doctor").returncode == 1
    healthy = run(
        venv_python, "-m", "affordance", "doctor", AFFORDANCE_DISABLE_PLUGINS="broken-demo"
    )
    assert healthy.returncode == 0, healthy.stdout


def test_codecs_are_imported_on_first_use_and_no_sdk_ever(venv_python):
    code = """
import json, sys
import affordance.plugins as plugins
registry = plugins.registry()
before = "affordance_acme_search.codec" in sys.modules
codec = registry.codec("openai", "acme_search")
print(json.dumps({
    "before": before,
    "after": "affordance_acme_search.codec" in sys.modules,
    "kind": codec.kind,
    "sdks": [m for m in ("openai", "anthropic", "google.genai") if m in sys.modules],
}))
"""
    result = run(venv_python, "-c", code)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "before": False,
        "after": True,
        "kind": "acme_search",
        "sdks": [],
    }
