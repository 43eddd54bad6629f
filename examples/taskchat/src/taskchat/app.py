"""The FastAPI application: the chat API (plain and streamed), the task list, the tool list and
the chat page.

Every error is JSON — ``{"error": {"code", "message", ...}}`` — with a 4xx status for a bad
request and never a traceback, and every ``422`` lists its ``problems`` the same way
(``request_problems.py``); the streaming endpoint answers the same way until its stream has
started, and with a final ``error`` event after. A server shutting down lets the chat requests
in flight finish within its grace period, and cuts off the rest with a ``503 shutting_down``
(``shutdown.py``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from datetime import date
from importlib import resources
from typing import TYPE_CHECKING, Any

import httpx
from fastapi import FastAPI, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from affordance import Evaluator, PromptTemplate, ToolExecutor, is_declined
from affordance.adapters import AssistantMessage, ToolResultMessage, UserMessage
from taskchat.api_schemas import (
    ChatRequest,
    ChatResponse,
    ConversationResponse,
    PendingConfirmationOut,
    TasksResponse,
    ToolOut,
    ToolsResponse,
    TranscriptEntry,
)
from taskchat.chat import ChatService
from taskchat.chat_errors import ChatError
from taskchat.chat_stream import ChatEventStream, open_chat_stream
from taskchat.conversations import Conversation, ConversationStore
from taskchat.correlation import RequestIdMiddleware, install_log_filter
from taskchat.database import Database, open_database
from taskchat.github import GitHubClient
from taskchat.prompt import build_prompt
from taskchat.providers import ProviderSetupError, build_adapter
from taskchat.request_problems import problems_message, validation_problems
from taskchat.settings import Settings
from taskchat.shutdown import Shutdown
from taskchat.store import TaskFilters, TaskStore
from taskchat.telemetry import telemetry_from_env
from taskchat.tools import TaskTools
from taskchat.views import Status

if TYPE_CHECKING:
    from taskchat.durable import DurableAgent

__all__ = ["Services", "create_app"]

_CONVERSATION_ID = r"^[0-9a-f]{32}$"
LOGGERS_WITH_REQUEST_IDS = (
    "affordance.tools",
    "affordance.events",
    "taskchat.chat",
    "taskchat.http",
    "taskchat.shutdown",
)


@dataclass(frozen=True, slots=True)
class Services:
    """What the routes use; ``app.state.services`` holds it (tests reach in for the store).

    ``shutdown``: the server's shutdown, begun by the server (``server.py``); ``durable``: the
    Temporal side, with ``--temporal`` (connected while the app runs)."""

    database: Database
    store: TaskStore
    chat: ChatService
    github: GitHubClient
    shutdown: Shutdown
    durable: DurableAgent | None = None


def create_app(
    settings: Settings | None = None,
    *,
    adapter: Evaluator | None = None,
    github_http: httpx.Client | None = None,
    today: Callable[[], date] | None = None,
) -> FastAPI:
    """Build the app; the database is opened (and its schema checked) right here.

    ``adapter`` replaces the one ``settings.provider`` names (tests pass their own);
    ``github_http`` is the HTTP client GitHub is fetched with. With ``settings.temporal`` the
    agent runs durably; the app connects to Temporal (and starts its worker, with
    ``settings.temporal_worker``) when it starts. With ``OTEL_EXPORTER_OTLP_ENDPOINT`` set, its
    requests and runs are traced while it runs (``telemetry.py``).
    """
    settings = settings or Settings.from_env()
    if adapter is None:
        adapter = build_adapter(
            settings.provider,
            model=settings.model,
            executor=ToolExecutor(default_timeout=settings.tool_timeout),
            offline_pace=settings.offline_pace,
        )
    database = open_database(settings.database_url)
    try:
        services = _services(settings, database, adapter, github_http, today)
        telemetry = telemetry_from_env()
    except BaseException:
        database.close()
        raise
    install_log_filter(*LOGGERS_WITH_REQUEST_IDS)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as running:
            if telemetry is not None:  # first in, last out: it flushes the others' spans
                running.enter_context(telemetry.running())
            if services.durable is not None:
                await running.enter_async_context(services.durable.connected())
            yield
        services.github.close()
        services.database.close()

    app = FastAPI(title="taskchat", version="0.1.0", lifespan=lifespan)
    app.state.services = services
    app.add_middleware(RequestIdMiddleware)
    if telemetry is not None:
        telemetry.trace_requests(app)  # added last: the outermost, around the request id's
    _add_error_handlers(app)
    _add_routes(app, services, settings)
    app.mount("/static", StaticFiles(packages=[("taskchat", "static")]), name="static")
    return app


def _services(
    settings: Settings,
    database: Database,
    adapter: Evaluator,
    github_http: httpx.Client | None,
    today: Callable[[], date] | None,
) -> Services:
    github = GitHubClient(
        github_http,
        api_url=settings.github_api_url,
        token=settings.github_token,
        timeout=settings.github_timeout,
    )
    store = TaskStore(database)
    prompt = build_prompt(TaskTools(store, github))
    durable = _durable_agent(settings, prompt, adapter) if settings.durable else None
    chat = ChatService(
        adapter=adapter,
        prompt=prompt,
        conversations=ConversationStore(database),
        deadline=settings.chat_deadline,
        durable=durable,
        **({"today": today} if today is not None else {}),
    )
    return Services(database, store, chat, github, Shutdown(settings.shutdown_grace), durable)


def _durable_agent(
    settings: Settings, prompt: PromptTemplate[None], adapter: Evaluator
) -> DurableAgent:
    try:
        from taskchat.durable import DurableAgent
    except ImportError as error:
        raise ProviderSetupError(
            f"--temporal needs the affordance-temporal plugin, which is not installed "
            f"(pip install affordance-temporal): {error}"
        ) from None
    return DurableAgent(
        settings, prompt, worker_adapter=adapter if settings.temporal_worker else None
    )


# -- routes ------------------------------------------------------------------------------------


def _add_routes(app: FastAPI, services: Services, settings: Settings) -> None:
    page = resources.files("taskchat").joinpath("static/index.html").read_text("utf-8")

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def index() -> HTMLResponse:
        return HTMLResponse(page)

    @app.post("/api/v1/chat", response_model=ChatResponse)
    async def chat(body: ChatRequest, request: Request) -> ChatResponse:
        reply = await services.shutdown.finish_or_cut_off(
            services.chat.chat(
                conversation_id=body.conversation_id,
                message=body.message,
                confirmations=body.confirmations,
            ),
            request.scope,
        )
        return ChatResponse.from_reply(reply)

    @app.post(
        "/api/v1/chat/stream",
        response_class=ChatEventStream,
        status_code=200,
        response_description="server-sent events, ending with `reply` or `error`",
    )
    async def chat_stream(body: ChatRequest, request: Request) -> ChatEventStream:
        return await open_chat_stream(
            services.chat,
            conversation_id=body.conversation_id,
            message=body.message,
            confirmations=body.confirmations,
            keepalive=settings.stream_keepalive,
            shutdown=services.shutdown,
            scope=request.scope,
        )

    @app.get("/api/v1/tools", response_model=ToolsResponse)
    async def tools() -> ToolsResponse:
        return ToolsResponse(
            tools=[
                ToolOut(
                    name=tool.name,
                    description=tool.description,
                    parameters=dict(tool.parameters_schema()),
                )
                for tool in services.chat.tools()
            ]
        )

    @app.get("/api/v1/tasks", response_model=TasksResponse)
    async def tasks(
        status: list[Status] | None = Query(default=None, description="Only these statuses"),  # noqa: B008
        limit: int = Query(default=100, ge=1, le=500),
    ) -> TasksResponse:
        found = await asyncio.to_thread(
            services.store.query,
            TaskFilters(status=status),
            limit=limit,
            sort="created_desc",
            response_format="detailed",
        )
        return TasksResponse.model_validate({"tasks": found.tasks, "total": found.total})

    @app.get("/api/v1/conversations/{conversation_id}", response_model=ConversationResponse)
    async def conversation(
        conversation_id: str = Path(pattern=_CONVERSATION_ID),
    ) -> ConversationResponse:
        return _conversation_response(await services.chat.conversation(conversation_id))


def _conversation_response(conversation: Conversation) -> ConversationResponse:
    entries: list[TranscriptEntry] = []
    for message in conversation.messages:
        if isinstance(message, UserMessage):
            entries.append(TranscriptEntry(role="user", text=message.text))
        elif isinstance(message, AssistantMessage):
            if message.text:
                entries.append(TranscriptEntry(role="assistant", text=message.text))
        elif isinstance(message, ToolResultMessage):
            entries.append(
                TranscriptEntry(
                    role="tool",
                    text=message.content.split("\n", 1)[0],
                    name=message.name,
                    success=not message.is_error,
                    declined=message.is_error and is_declined(message.content),
                )
            )
    pending = conversation.pending.calls if conversation.pending is not None else ()
    return ConversationResponse(
        conversation_id=conversation.id,
        messages=entries,
        pending_confirmations=[PendingConfirmationOut.from_call(p) for p in pending],
    )


# -- errors ------------------------------------------------------------------------------------


def _error(status: int, code: str, message: str, **details: Any) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message, **details}}, status)


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ChatError)
    async def chat_error(request: Request, error: ChatError) -> JSONResponse:
        return JSONResponse(error.body(), error.status)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, error: RequestValidationError) -> JSONResponse:
        if any(e.get("type") == "json_invalid" for e in error.errors()):
            return _error(400, "invalid_json", "the request body is not valid JSON")
        problems = validation_problems(error.errors(), request.headers.get("content-type"))
        return _error(422, "invalid_request", problems_message(problems), problems=problems)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
        codes = {404: "not_found", 405: "method_not_allowed"}
        response = _error(
            error.status_code, codes.get(error.status_code, "http_error"), str(error.detail)
        )
        if error.headers:
            response.headers.update(error.headers)
        return response
