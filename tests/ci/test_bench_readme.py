"""The README's performance section is exactly what ``bench/readme.py`` renders from the
published bench run: no figure in it is typed by hand."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"


def _readme_module() -> ModuleType:
    sys.path.insert(0, str(BENCH))  # readme.py imports its siblings (_report, _plan)
    try:
        spec = importlib.util.spec_from_file_location("bench_readme", BENCH / "readme.py")
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))


def test_the_readme_shows_the_published_bench_run() -> None:
    readme = _readme_module()
    published = json.loads((BENCH / "published.json").read_text(encoding="utf-8"))
    text = (ROOT / "README.md").read_text(encoding="utf-8")

    assert readme.readme_section(text) == readme.section(published), (
        "the README's performance section is stale: run `python3 bench/readme.py` (or a full "
        "`python3 dev.py bench`)"
    )


def test_every_figure_names_its_machine_date_and_command() -> None:
    readme = _readme_module()
    published = json.loads((BENCH / "published.json").read_text(encoding="utf-8"))

    section = readme.section(published)

    assert "python3 dev.py bench" in section
    assert published["meta"]["started"] in section
    assert f"{published['meta']['machine']['cpus']} CPUs" in section


def test_a_ratio_goal_shows_its_lowest_and_highest_round() -> None:
    readme = _readme_module()
    rows = {
        "m": {
            "rows": {
                "k": {
                    "values": {
                        "affordance": {"rounds": [2.2, 2.0, 2.4]},
                        "sdk-raw": {"rounds": [2.0, 2.0, 2.0]},
                        "sdk-short": {"rounds": [2.0, 2.0]},
                    }
                }
            }
        }
    }
    payload = {"measures": rows}
    ratio = {"measure": "m", "metric": "k", "reference": "sdk-raw"}

    assert readme._spread(payload, ratio) == "100-120%"
    assert readme._spread(payload, {**ratio, "reference": "sdk-short"}) == "—"  # unpaired rounds
    assert readme._spread(payload, {"measure": "m", "metric": "k"}) == "—"  # a ceiling, no ratio
