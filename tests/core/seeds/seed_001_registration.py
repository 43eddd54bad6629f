# The example of seed 001 ("Tool Registration Specification"), with only the import path changed.
from dataclasses import dataclass, field
from affordance.prompt import Prompt, MarkdownSection, Tool, ToolResult

@dataclass
class LookupParams:
    entity_id: str = field(metadata={"description": "Global identifier to fetch"})
    include_related: bool = field(default=False)

@dataclass
class LookupResult:
    entity_id: str
    document_url: str

@dataclass
class GuidanceParams:
    primary_tool: str

@dataclass
class ToolDescriptionParams:
    primary_tool: str = "lookup_entity"

def lookup_handler(params: LookupParams) -> ToolResult[LookupResult]:
    result = LookupResult(entity_id=params.entity_id, document_url="https://example.com")
    message = f"Fetched entity {result.entity_id}."
    return ToolResult(message=message, value=result)

lookup_tool = Tool[LookupParams, LookupResult](
    name="lookup_entity",
    description="Fetch structured information for a given entity id.",
    handler=lookup_handler,
)

tooling_overview = Prompt(
    name="tools_overview",
    sections=[
        MarkdownSection[GuidanceParams](
            title="Guidance",
            template="""
            Use tools when you need up-to-date context. Prefer ${primary_tool} for critical lookups.
            """,
            children=[
                MarkdownSection[ToolDescriptionParams](
                    title="Available Tools",
                    template="""
                    Invoke ${primary_tool} whenever you need fresh entity context.
                    """,
                    tools=[lookup_tool],
                    default_params=ToolDescriptionParams(),
                )
            ],
        )
    ],
)

rendered = tooling_overview.render(
    GuidanceParams(primary_tool="lookup_entity"),
    ToolDescriptionParams(),
)
markdown = rendered.text
tools = rendered.tools
assert tools[0].name == "lookup_entity"
