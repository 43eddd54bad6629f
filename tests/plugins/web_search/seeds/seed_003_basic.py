# Seed 003 "Basic Web Search", import paths changed, and one fix the seed needs to run: its task
# section uses $question but declares no params type, which core rejects at render
# ("template uses ${question} but the section declares no params type; write
# MarkdownSection[Params](...)"). So the section is MarkdownSection[Question] and the
# evaluation passes `question`. The seed leaves out `Answer`, `Question`, `question`,
# `adapter`, `bus` and `session`; the test provides them.
# ruff: noqa
from affordance import Prompt, MarkdownSection
from affordance_web_search import WebSearchSection

prompt = Prompt[Answer](
    ns="research",
    key="lookup",
    sections=[
        MarkdownSection[Question](  # seed: MarkdownSection(
            title="Task",
            key="task",
            template="Answer this question: $question",
        ),
        WebSearchSection(),
    ],
)

response = adapter.evaluate(prompt, question, bus=bus, session=session)  # seed: (prompt, bus=...
