"""The agent run durably on Temporal (``taskchat serve --temporal HOST:PORT``), through
``affordance-temporal``: each chat message is one durable run, each model request and tool call
an activity on a worker, and a destructive call's confirmation a signal the run waits for.

The prompt crosses by name: the servers and every worker build the same registry, holding the
assistant as :data:`ASSISTANT`. A worker is a process of its own —

    python -m affordance_temporal worker --address HOST:PORT --task-queue taskchat \\
        --registry taskchat.durable:registry_from_env --adapter taskchat.durable:adapter_from_env

reading the server's ``TASKCHAT_*`` environment (the database its tools write to, the
provider) — or the server itself with ``--temporal-worker``.

:class:`DurableAgent` is the server's side: the Temporal client, and what ``ChatService``
does under the flag — start the run answering a message and wait until it settles
(``affordance_temporal.chat.chat_turn``), answer its confirmations, cancel it. It
raises the service's ``ChatError`` s, so the endpoints answer as for a run in the process. This
module imports ``temporalio``: the app imports it only with ``--temporal``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, contextmanager

from temporalio.client import Client, RPCTimeoutOrCancelledError, WorkflowFailureError
from temporalio.service import RPCError, RPCStatusCode

from affordance import (
    Evaluator,
    PromptEvaluationError,
    PromptTemplate,
    ToolExecutor,
    approve,
    deny,
)
from affordance.adapters import Message
from affordance_temporal import (
    PromptRegistry,
    durable_worker,
)
from affordance_temporal.chat import ChatTurn, answer_confirmations, chat_turn, chat_workflow_id
from taskchat.chat_errors import DurableRunUnavailableError, ModelFailureError, ModelTimeoutError
from taskchat.database import open_database
from taskchat.github import GitHubClient
from taskchat.prompt import AssistantContext, build_prompt
from taskchat.providers import build_adapter
from taskchat.settings import Settings
from taskchat.store import TaskStore
from taskchat.suspended_turns import Answer
from taskchat.tools import TaskTools

__all__ = [
    "ASSISTANT",
    "DurableAgent",
    "adapter_from_env",
    "assistant_registry",
    "registry_from_env",
]

ASSISTANT = "taskchat.assistant"
"""The assistant's name in the prompt registry of every process of a deployment."""


def assistant_registry(prompt: PromptTemplate[None]) -> PromptRegistry:
    """The deployment's registry: the assistant, as ``build_prompt`` makes it."""
    return PromptRegistry({ASSISTANT: lambda: prompt})


def registry_from_env() -> PromptRegistry:
    """A worker's registry (``--registry taskchat.durable:registry_from_env``): the assistant
    over the database and GitHub that ``Settings.from_env()`` names, as the server's."""
    settings = Settings.from_env()
    database = open_database(settings.database_url)  # open for the worker's lifetime
    github = GitHubClient(
        api_url=settings.github_api_url,
        token=settings.github_token,
        timeout=settings.github_timeout,
    )
    return assistant_registry(build_prompt(TaskTools(TaskStore(database), github)))


def adapter_from_env() -> Evaluator:
    """A worker's model (``--adapter taskchat.durable:adapter_from_env``): the provider of
    ``Settings.from_env()``, its executor bounding tool calls by ``tool_timeout`` as the
    server's does (every worker of a task queue must use the same executor settings)."""
    settings = Settings.from_env()
    return build_adapter(
        settings.provider,
        model=settings.model,
        executor=ToolExecutor(default_timeout=settings.tool_timeout),
    )


class DurableAgent:
    """The Temporal side of ``ChatService``: one client per server, connected for the
    server's lifetime (:meth:`connected`), and a worker in the server with ``worker_adapter``.
    """

    def __init__(
        self,
        settings: Settings,
        prompt: PromptTemplate[None],
        *,
        worker_adapter: Evaluator | None = None,
    ) -> None:
        if settings.temporal is None:
            raise ValueError("a durable agent needs settings.temporal (host:port)")
        self.registry = assistant_registry(prompt)
        self.address = settings.temporal
        self.namespace = settings.temporal_namespace
        self.task_queue = settings.task_queue
        self._worker_adapter = worker_adapter
        self._client: Client | None = None

    @asynccontextmanager
    async def connected(self) -> AsyncIterator[None]:
        """Connect to Temporal (and run the in-process worker, if any) until exit."""
        try:
            client = await Client.connect(self.address, namespace=self.namespace)
        except RuntimeError as error:  # how temporalio reports a failed connection
            raise RuntimeError(f"cannot reach Temporal at {self.address}: {error}") from error
        self._client = client
        try:
            if self._worker_adapter is None:
                yield
            else:
                worker = durable_worker(
                    client, self.registry, task_queue=self.task_queue, adapter=self._worker_adapter
                )
                async with worker:
                    yield
        finally:
            self._client = None

    def workflow_id(self, conversation_id: str, messages: Sequence[Message]) -> str:
        """The id of the run :meth:`turn` starts (or rejoins) for ``messages``."""
        return chat_workflow_id(conversation_id, messages)

    async def turn(
        self, conversation_id: str, messages: Sequence[Message], context: AssistantContext
    ) -> ChatTurn:
        """The run answering ``messages`` (the transcript ending with the new message), started
        or rejoined if a request sent before started it, once it has replied or waits for
        confirmations (``chat_turn``, which lets a start finish when it is cancelled, so that
        a run whose request stopped can be cancelled)."""
        client = self._connected()
        with _chat_errors():
            return await chat_turn(
                client,
                self.registry,
                ASSISTANT,
                context,
                conversation_id=conversation_id,
                messages=messages,
                task_queue=self.task_queue,
            )

    async def answer(
        self, workflow_id: str, answers: Mapping[str, Answer], reason: str = ""
    ) -> ChatTurn:
        """Signal the answers (``reason``: the denied calls') to the run ``workflow_id`` waits
        on; return once it replied or waits again. A run that ended already — an earlier
        answer's request gave up after sending its signals, and the run went on — is collected
        as it ended (the first answers stand)."""
        client = self._connected()
        confirmations = {
            call_id: approve() if answer == "approve" else deny(reason.strip())
            for call_id, answer in answers.items()
        }
        with _chat_errors():
            return await answer_confirmations(
                client, self.registry, ASSISTANT, workflow_id, confirmations
            )

    async def abandon(self, workflow_id: str) -> None:
        """Cancel the run ``workflow_id`` if it still runs: its request stopped before it
        could store what the run did."""
        try:
            await self._connected().get_workflow_handle(workflow_id).cancel()
        except RPCError as error:
            if error.status != RPCStatusCode.NOT_FOUND:  # not found: it has ended already
                raise

    def _connected(self) -> Client:
        if self._client is None:
            raise DurableRunUnavailableError("the server is not connected to Temporal")
        return self._client


@contextmanager
def _chat_errors() -> Iterator[None]:
    """A run's failures as the service's ``ChatError`` s: the provider's failure is a 502 (its
    deadline a 504) as in the process; a run that ended otherwise (cancelled, terminated) a
    502; Temporal not answering a 503."""
    try:
        yield
    except RPCTimeoutOrCancelledError as error:
        raise ModelTimeoutError("the assistant did not finish in time") from error
    except PromptEvaluationError as error:
        if error.phase == "deadline":
            raise ModelTimeoutError("the assistant did not finish in time") from error
        raise ModelFailureError(f"the model failed: {error}") from error
    except WorkflowFailureError as error:
        raise ModelFailureError(f"the durable run ended without a reply: {error}") from error
    except RPCError as error:
        raise DurableRunUnavailableError(
            f"Temporal did not answer ({error.status.name.lower()})"
        ) from error
