"""End to end over HTTP: the scenario through the real ``google-genai`` SDK to the loopback
server (Gemini's ``generateContent`` / ``streamGenerateContent``).

One run is two requests (the model calls ``get_weather``, then answers), plain and streamed,
sync (``client``) and awaited one after another on one event loop (``client.aio``). Frameworks:
affordance (``GoogleAdapter``; the tool a ``def`` in the sync runs and an ``async def`` in the
async ones, as the hand-written paths call it inline), the same two requests written by hand
with the typed SDK (``client.models.generate_content`` / ``generate_content_stream`` with
function declarations and automatic function calling off), and by hand through the SDK's
HTTP layer with prepared dicts and one ``json.loads`` per answer or chunk
(``_api_client.request`` / ``request_streamed``: the path the adapter takes, and the reference
of the goal). The server runs in its own process.

    python bench/measures/e2e_google.py [--framework F] [--json] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import ssl
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from _agents import (
    ANSWER,
    CITY,
    INSTRUCTIONS,
    PARAMETERS,
    QUESTION,
    TOOL_DESCRIPTION,
    affordance_prompt,
    forecast,
)
from _harness import Sample, Skip, jobs_of, main, time_awaits, time_calls
from _loopback_process import serving

FRAMEWORKS = ("google-sdk", "google-sdk-raw", "affordance")
JOBS = jobs_of(FRAMEWORKS)
MODEL = "gemini-loopback"
CALL_ID = "fc_1"


# -- the server ---------------------------------------------------------------------------------


@contextmanager
def google_loopback() -> Iterator[str]:
    """The loopback server, speaking Gemini, in a process of its own; yields its base URL."""
    with serving([sys.executable, __file__, "--serve"]) as base_url:
        yield base_url


def _serve() -> None:
    """Answer any request: a call to ``get_weather`` first, the answer once a result is in."""
    from _harness import fixtures_on_path

    fixtures_on_path()
    from loopback import (
        JsonReply,
        RecordedRequest,
        google_function_calls,
        google_server,
        google_stream,
        google_text,
    )

    call = google_function_calls([("get_weather", {"city": CITY}, CALL_ID)])
    answer = google_text(ANSWER)

    def respond(request: RecordedRequest) -> Any:
        contents = request.body.get("contents", []) if isinstance(request.body, dict) else []
        answered = any(
            "functionResponse" in part for content in contents for part in content.get("parts", ())
        )
        body = answer if answered else call
        if request.path.endswith(":streamGenerateContent"):
            return google_stream(body, text_chunk=4)
        return JsonReply(body)

    with google_server(default=respond) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()


# -- the frameworks -----------------------------------------------------------------------------


def _client(base_url: str) -> Any:
    from google import genai
    from google.genai import types

    options = types.HttpOptions(
        base_url=base_url,
        api_version="v1beta",
        client_args={"verify": False},
        async_client_args={"verify": False, "ssl": ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)},
    )
    return genai.Client(api_key="bench", http_options=options)


class Runs:
    """One framework's four runs; each returns the final text."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def plain(self) -> str:
        raise NotImplementedError

    async def aplain(self) -> str:
        raise NotImplementedError

    def stream(self) -> str:
        raise NotImplementedError

    async def astream(self) -> str:
        raise NotImplementedError


class Affordance(Runs):
    def __init__(self, client: Any) -> None:
        super().__init__(client)
        from affordance import TextDelta

        try:
            from affordance_google import GoogleAdapter
        except ImportError as error:
            raise Skip(f"plugin not installed: {error}") from None

        # a `def` tool for the sync runs, an `async def` one for the async runs: each as the
        # hand-written path calls it, inline (as in e2e_openai)
        self.prompt, self.params = affordance_prompt(async_tool=False)
        self.aprompt, _ = affordance_prompt(async_tool=True)
        self.adapter = GoogleAdapter(MODEL, client=client)
        self.text_delta = TextDelta

    def plain(self) -> str:
        return str(self.adapter.evaluate(self.prompt, self.params).text)

    async def aplain(self) -> str:
        return str((await self.adapter.aevaluate(self.aprompt, self.params)).text)

    def stream(self) -> str:
        with self.adapter.stream(self.prompt, self.params) as events:
            return "".join(e.text for e in events if isinstance(e, self.text_delta))

    async def astream(self) -> str:
        async with self.adapter.astream(self.aprompt, self.params) as events:
            return "".join([e.text async for e in events if isinstance(e, self.text_delta)])


class Typed(Runs):
    """The two requests by hand with the typed SDK: what a careful user writes."""

    def __init__(self, client: Any) -> None:
        super().__init__(client)
        from google.genai import types

        self.types = types
        self.config = types.GenerateContentConfig(
            system_instruction=INSTRUCTIONS,
            tools=[
                types.Tool(
                    function_declarations=[
                        types.FunctionDeclaration(
                            name="get_weather",
                            description=TOOL_DESCRIPTION,
                            parameters_json_schema=PARAMETERS,
                        )
                    ]
                )
            ],
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
        )
        self.question = types.Content(role="user", parts=[types.Part.from_text(text=QUESTION)])

    def _second(self, model_content: Any) -> list[Any]:
        types = self.types
        results = [
            types.Part.from_function_response(
                name=part.function_call.name,
                response={"output": forecast(part.function_call.args["city"])},
            )
            for part in model_content.parts
            if part.function_call is not None
        ]
        for result, part in zip(results, model_content.parts, strict=False):
            result.function_response.id = part.function_call.id
        return [self.question, model_content, types.Content(role="user", parts=results)]

    def plain(self) -> str:
        models = self.client.models
        first = models.generate_content(model=MODEL, contents=[self.question], config=self.config)
        contents = self._second(first.candidates[0].content)
        second = models.generate_content(model=MODEL, contents=contents, config=self.config)
        return str(second.text)

    async def aplain(self) -> str:
        models = self.client.aio.models
        first = await models.generate_content(
            model=MODEL, contents=[self.question], config=self.config
        )
        contents = self._second(first.candidates[0].content)
        second = await models.generate_content(model=MODEL, contents=contents, config=self.config)
        return str(second.text)

    def _joined(self, chunks: Any) -> Any:
        parts = [part for chunk in chunks for part in chunk.candidates[0].content.parts]
        return self.types.Content(role="model", parts=parts)

    def stream(self) -> str:
        models = self.client.models
        first = models.generate_content_stream(
            model=MODEL, contents=[self.question], config=self.config
        )
        contents = self._second(self._joined(list(first)))
        chunks = models.generate_content_stream(model=MODEL, contents=contents, config=self.config)
        return "".join(chunk.text or "" for chunk in chunks)

    async def astream(self) -> str:
        models = self.client.aio.models
        first = await models.generate_content_stream(
            model=MODEL, contents=[self.question], config=self.config
        )
        contents = self._second(self._joined([c async for c in first]))
        chunks = await models.generate_content_stream(
            model=MODEL, contents=contents, config=self.config
        )
        return "".join([chunk.text or "" async for chunk in chunks])


class Raw(Runs):
    """The two requests by hand through the SDK's HTTP layer: prepared dicts, one parse."""

    PATH = f"models/{MODEL}:generateContent"
    STREAM = f"models/{MODEL}:streamGenerateContent?alt=sse"

    def __init__(self, client: Any) -> None:
        super().__init__(client)
        self.api = client._api_client
        self.tools = [
            {
                "functionDeclarations": [
                    {
                        "name": "get_weather",
                        "description": TOOL_DESCRIPTION,
                        "parametersJsonSchema": PARAMETERS,
                    }
                ]
            }
        ]
        self.question = {"role": "user", "parts": [{"text": QUESTION}]}

    def body(self, contents: list[Any]) -> dict[str, Any]:
        return {
            "contents": contents,
            "systemInstruction": {"parts": [{"text": INSTRUCTIONS}]},
            "tools": self.tools,
        }

    def _second(self, parts: list[Any]) -> dict[str, Any]:
        results = [
            {
                "functionResponse": {
                    "id": part["functionCall"].get("id"),
                    "name": part["functionCall"]["name"],
                    "response": {"output": forecast(part["functionCall"]["args"]["city"])},
                }
            }
            for part in parts
            if "functionCall" in part
        ]
        model = {"role": "model", "parts": parts}
        return self.body([self.question, model, {"role": "user", "parts": results}])

    @staticmethod
    def _parts(data: Any) -> list[Any]:
        return list(data["candidates"][0]["content"]["parts"])

    @staticmethod
    def _text(parts: list[Any]) -> str:
        return "".join(part.get("text", "") for part in parts)

    def plain(self) -> str:
        first = json.loads(self.api.request("post", self.PATH, self.body([self.question])).body)
        second = self.api.request("post", self.PATH, self._second(self._parts(first)))
        return self._text(self._parts(json.loads(second.body)))

    async def aplain(self) -> str:
        first = await self.api.async_request("post", self.PATH, self.body([self.question]))
        body = self._second(self._parts(json.loads(first.body)))
        second = await self.api.async_request("post", self.PATH, body)
        return self._text(self._parts(json.loads(second.body)))

    def stream(self) -> str:
        chunks = self.api.request_streamed("post", self.STREAM, self.body([self.question]))
        parts = [p for c in chunks for p in self._parts(json.loads(c.body))]
        second = self.api.request_streamed("post", self.STREAM, self._second(parts))
        return "".join(self._text(self._parts(json.loads(c.body))) for c in second)

    async def astream(self) -> str:
        first = await self.api.async_request_streamed(
            "post", self.STREAM, self.body([self.question])
        )
        parts = [p async for c in first for p in self._parts(json.loads(c.body))]
        second = await self.api.async_request_streamed("post", self.STREAM, self._second(parts))
        return "".join([self._text(self._parts(json.loads(c.body))) async for c in second])


_BUILDERS: dict[str, Callable[[Any], Runs]] = {
    "affordance": Affordance,
    "google-sdk": Typed,
    "google-sdk-raw": Raw,
}


def check(answer: object, framework: str) -> None:
    if answer != ANSWER:
        raise AssertionError(f"{framework} answered {answer!r}, expected {ANSWER!r}")


def measure(framework: str, args: argparse.Namespace) -> Sample:
    target, repeat = (0.1, 3) if args.quick else (0.15, 5)
    sample = Sample()
    label = "two requests + tool"
    with google_loopback() as base_url:
        client = _client(base_url)
        runs = _BUILDERS[framework](client)
        for key, run, shown in (
            ("plain", runs.plain, "plain"),
            ("stream", runs.stream, "streamed"),
        ):
            check(run(), framework)
            seconds = time_calls(run, target_s=target, repeat=repeat)
            sample.add(f"{key}_sync", f"{label}, {shown}, sync", "ms", seconds * 1e3)
        client.close()

        async def awaited() -> None:
            client = _client(base_url)  # its async pool binds to this loop
            runs = _BUILDERS[framework](client)
            try:
                for key, run, shown in (
                    ("plain", runs.aplain, "plain"),
                    ("stream", runs.astream, "streamed"),
                ):
                    check(await run(), framework)
                    seconds = await time_awaits(run, target_s=target, repeat=repeat)
                    sample.add(f"{key}_async", f"{label}, {shown}, async", "ms", seconds * 1e3)
            finally:
                await client.aio.aclose()
                client.close()

        asyncio.run(awaited())
    return sample


if __name__ == "__main__":
    if "--serve" in sys.argv:
        _serve()
    else:
        main("e2e_google", measure, JOBS)
