# The "Example Flow" of seed 002 ("Open Sections Tool Specification"), import path changed.
from dataclasses import dataclass
from affordance.prompt import (
    MarkdownSection,
    PromptTemplate,
    SectionVisibility,
)

@dataclass
class TaskParams:
    objective: str

@dataclass
class ContextParams:
    project_name: str

# Define a prompt with summarized context
prompt = PromptTemplate(
    ns="agents/assistant",
    key="task-executor",
    name="task_executor",
    sections=[
        MarkdownSection[TaskParams](
            title="Task",
            template="Complete the following: ${objective}",
            key="task",
        ),
        MarkdownSection[ContextParams](
            title="Project Context",
            template="""
            Detailed documentation for ${project_name}:
            - Architecture overview
            - API reference
            - Code conventions
            - Historical decisions
            """,
            summary="Documentation for ${project_name} is available.",
            key="context",
            visibility=SectionVisibility.SUMMARY,
        ),
    ],
)

# Initial render with summarized context
rendered = prompt.render(
    TaskParams(objective="Refactor the authentication module"),
    ContextParams(project_name="WeakIncentives"),
)
initial = rendered

# Model calls: open_sections(section_keys=("context",), reason="Need architecture details for refactoring")

# Caller receives OpenSectionsResult and retries:
rendered = prompt.render(
    TaskParams(objective="Refactor the authentication module"),
    ContextParams(project_name="WeakIncentives"),
    visibility_overrides={("context",): SectionVisibility.FULL},
)

# The model now sees full context and can proceed with the task.
