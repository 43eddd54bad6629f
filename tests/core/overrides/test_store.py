"""``FileOverridesStore``: one JSON file per prompt and tag, read again only when it changes,
and a clear error — naming the file — for one that cannot be read."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from affordance import FileOverridesStore, MarkdownSection, OverridesError, PromptTemplate
from affordance.prompt.overrides import (
    OverridesStore,
    PromptOverrides,
    SectionOverride,
    ToolOverride,
    seed_overrides,
)

DOCUMENT = PromptOverrides(
    ns="team/support",
    prompt="triage",
    tag="2026-11 trial",
    sections={"intro": SectionOverride("sha256:a", template="Hi ${user}.", summary="S")},
    tools={
        "lookup": ToolOverride(
            "sha256:b",
            description="Look up.",
            params={"id": "The id"},
            examples=({"description": "one", "input": {"id": "1"}, "output": None},),
        )
    },
    target="app.prompts:triage",
)


def test_a_saved_document_loads_back_equal(tmp_path: Path) -> None:
    store = FileOverridesStore(tmp_path)
    store.save(DOCUMENT)

    assert store.load("team/support", "triage", "2026-11 trial") == DOCUMENT
    assert store.load("team/support", "triage", "latest") is None
    assert store.entries() == (("team/support", "triage", "2026-11 trial"),)
    assert isinstance(store, OverridesStore)


def test_names_never_walk_out_of_the_directory(tmp_path: Path) -> None:
    store = FileOverridesStore(tmp_path / "store")
    for ns, prompt, tag in [("..", "..", ".."), ("", "a/../../b", "x/y"), ("@default", "p", "t")]:
        path = store.path(ns, prompt, tag)
        assert path.resolve().is_relative_to((tmp_path / "store").resolve())
        assert len(path.relative_to(tmp_path / "store").parts) == 3
    # the empty namespace and a namespace spelled like its folder do not meet
    assert store.path("", "p", "t") != store.path("@default", "p", "t")


def test_the_files_are_readable_json_in_a_stable_order(tmp_path: Path) -> None:
    store = FileOverridesStore(tmp_path)
    store.save(DOCUMENT)
    path = store.path("team/support", "triage", "2026-11 trial")
    text = path.read_text(encoding="utf-8")

    assert json.loads(text)["format"] == "affordance-overrides"
    assert text.endswith("\n")
    assert '  "sections"' in text
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary left behind


def test_a_file_is_read_again_only_when_it_changes(tmp_path: Path) -> None:
    store = FileOverridesStore(tmp_path)
    store.save(DOCUMENT)
    first = store.load("team/support", "triage", "2026-11 trial")
    assert store.load("team/support", "triage", "2026-11 trial") is first

    path = store.path("team/support", "triage", "2026-11 trial")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["sections"]["intro"]["template"] = "Hello again, ${user}."
    path.write_text(json.dumps(data), encoding="utf-8")
    os.utime(path, ns=(1, 1))  # a new modification time even on a coarse clock

    again = store.load("team/support", "triage", "2026-11 trial")
    assert again is not first
    assert again is not None
    assert again.sections["intro"].template == "Hello again, ${user}."


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("{not json", "is not JSON: Expecting property name"),
        ("[]", "the document must be a JSON object"),
        ('{"format": "other"}', '"format" must be'),
        ('{"format": "affordance-overrides", "version": 99}', "format version 99 is newer"),
        (
            (
                '{"format": "affordance-overrides", "version": 1, "ns": "", "prompt": "p", '
                '"tag": "t", "sections": {"a": {"template": "x"}}}'
            ),
            'sections.a needs "original_hash"',
        ),
        (
            (
                '{"format": "affordance-overrides", "version": 1, "ns": "", "prompt": "p", '
                '"tag": "t", "tools": {"a": {"original_hash": "h", "params": {"x": 1}}}}'
            ),
            '"params.x" must be a string',
        ),
        (
            (
                '{"format": "affordance-overrides", "version": 1, "ns": "", "prompt": "other", '
                '"tag": "t"}'
            ),
            "the file is for prompt 'other'",
        ),
    ],
)
def test_a_file_that_cannot_be_read_is_an_error_naming_it(
    tmp_path: Path, content: str, says: str
) -> None:
    store = FileOverridesStore(tmp_path)
    path = store.path("", "p", "t")
    path.parent.mkdir(parents=True)
    path.write_text(content, encoding="utf-8")

    with pytest.raises(OverridesError) as raised:
        store.load("", "p", "t")
    assert says in str(raised.value)
    assert raised.value.path == str(path)


def test_render_reads_the_store_under_the_tag_it_is_given(tmp_path: Path) -> None:
    prompt = PromptTemplate(
        ns="", key="greeter", sections=[MarkdownSection(title="Hello", template="Hello.")]
    )
    store = FileOverridesStore(tmp_path)
    seeded = seed_overrides(prompt, tag="trial")
    store.save(
        PromptOverrides(
            ns="",
            prompt="greeter",
            tag="trial",
            sections={"hello": SectionOverride(seeded.sections["hello"].original_hash, "Hi!")},
        )
    )

    assert prompt.render(overrides=store).text == "## 1 Hello\nHello."  # "latest": none
    assert prompt.render(overrides=store, overrides_tag="trial").text == "## 1 Hello\nHi!"
