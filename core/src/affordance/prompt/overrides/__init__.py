"""Prompt overrides: change a prompt's texts without changing its code.

Teams tune prompts — a section's wording, a tool's description, what a parameter means — faster
than they deploy. An overrides document (:class:`PromptOverrides`) holds new texts for one
prompt under a tag, each tied by hash to the original it was written against; a store
(:class:`OverridesStore`, :class:`FileOverridesStore` for JSON files) keeps them, and
``prompt.render(..., overrides=store, overrides_tag="latest")`` and the four entry points'
``overrides=`` apply them. An override whose original changed since is skipped and reported
(:class:`SkippedOverride`, an :class:`OverrideWarning`, the ``OverrideSkipped`` event of an
evaluation, ``affordance overrides check``), never applied blindly. ``accepts_overrides=False``
on a tool, or on a section for its whole subtree, keeps overrides off it; the builtin
``open_sections`` is never changed. See specs/OVERRIDES.md.
"""

from __future__ import annotations

from affordance.prompt.overrides.applied import OverrideWarning, SkippedOverride
from affordance.prompt.overrides.document import PromptOverrides, SectionOverride, ToolOverride
from affordance.prompt.overrides.seed import seed_overrides
from affordance.prompt.overrides.store import FileOverridesStore, OverridesStore

__all__ = [
    "FileOverridesStore",
    "OverrideWarning",
    "OverridesStore",
    "PromptOverrides",
    "SectionOverride",
    "SkippedOverride",
    "ToolOverride",
    "seed_overrides",
]
