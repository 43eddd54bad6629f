# Seed 003 "Inline Tool Construction", import path changed. The seed leaves out the import of
# `MarkdownSection`; the test provides it.
# ruff: noqa
from affordance_web_search import web_search_tool, WebSearchConfig

tool = web_search_tool(
    WebSearchConfig(allow_live_access=False),
    name="cached_search",
)

section = MarkdownSection(
    title="Research",
    key="research",
    template="Find information about $topic",
    hosted_tools=(tool,),
)
