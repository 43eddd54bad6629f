"""``ProviderAdapter``: the user's object for one provider — the runner holding its model.

A provider plugin ships two classes: its model (a :class:`~affordance.adapters.ProviderModel`,
usually a :class:`~affordance.adapters.WireModel`: the wire format and the clients) and its
adapter, a ``ProviderAdapter`` whose typed constructor takes the provider's options, builds the
model and hands the rest — the loop's options (``executor``, ``max_turns``, ``tool_choice``...)
and the resolution options (``serializers``, ``codecs``, ``registry``) — to this class::

    class AcmeAdapter(ProviderAdapter[AcmeModel]):  # named after its model, "acme"
        def __init__(self, model: str, *, client: acme.Client | None = None, **options: Any):
            super().__init__(AcmeModel(model, client), **options)

The loop, tool execution, confirmations, disclosure and events are the runner's
(:class:`~affordance.runtime.loop.Evaluator`); what is sent and how the answer reads is the
model's. The adapter answers ``with``/``async with`` and ``close()``/``aclose()`` for its model,
and previews a request's body (``wire_request``, what ``affordance render`` shows).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Generic, TypeVar, get_args, get_origin

from affordance.adapters.model import ProviderModel
from affordance.runtime.calls.executor import ToolExecutor
from affordance.runtime.loop.evaluator import Evaluator
from affordance.runtime.model import ModelRequest
from affordance.tools.hosted import HostedToolCodec

if TYPE_CHECKING:
    from affordance.plugins import Registry

__all__ = ["ProviderAdapter"]

ModelT = TypeVar("ModelT", bound=ProviderModel)
AdapterT = TypeVar("AdapterT", bound="ProviderAdapter[Any]")


class ProviderAdapter(Evaluator, Generic[ModelT]):
    """Evaluates prompts against one provider's model (``connection``); see
    :class:`Evaluator` for the loop options.

    ``serializers`` (roles to serializers), ``codecs`` (hosted tool kinds to codecs) and
    ``registry`` (the plugin registry to resolve through) configure the model's resolution:
    they take precedence over the plugin registry for this adapter.
    """

    connection: ModelT

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A provider adapter is named after its model: ``ProviderAdapter[AcmeModel]`` takes
        ``AcmeModel.name`` unless the class sets its own ``name``."""
        super().__init_subclass__(**kwargs)
        if "name" in vars(cls):
            return
        for base in vars(cls).get("__orig_bases__", ()):  # its own bases, not inherited ones
            (model, *_) = get_args(base) or (None,)
            if get_origin(base) is ProviderAdapter and isinstance(model, type):
                cls.name = getattr(model, "name", cls.name)

    def __init__(
        self,
        connection: ModelT,
        *,
        serializers: Mapping[str, Any] | None = None,
        codecs: Mapping[str, HostedToolCodec[Any, Any]] | None = None,
        registry: Registry | None = None,
        **options: Any,
    ) -> None:
        if not isinstance(connection, ProviderModel):
            raise TypeError(
                f"{type(self).__qualname__} needs a ProviderModel, got {type(connection).__name__}"
            )
        if serializers or codecs or registry is not None:
            connection.resolve_through(serializers=serializers, codecs=codecs, registry=registry)
        super().__init__(connection, **options)

    @staticmethod
    def executor_of(options: dict[str, Any]) -> ToolExecutor:
        """The executor an adapter built with ``options`` runs tools with — given, or made now
        and put in ``options`` — for a model whose retries wait on its clock, built before the
        adapter is."""
        executor = options.get("executor")
        if executor is None:
            executor = options["executor"] = ToolExecutor()
        if not isinstance(executor, ToolExecutor):
            raise TypeError(f"executor must be a ToolExecutor, got {type(executor).__name__}")
        return executor

    def hosted_codec(self, kind: str) -> HostedToolCodec[Any, Any] | None:
        return self.connection.hosted_codec(kind)

    def hosted_output_type(self, kind: str) -> type[Any] | None:
        return self.connection.hosted_output_type(kind)

    def wire_request(self, request: ModelRequest) -> Mapping[str, Any]:
        """The body the model would send for ``request`` (``affordance render`` shows it)."""
        return self.connection.wire_request(request)

    # -- lifecycle: the model's ---------------------------------------------------------------

    def close(self) -> None:
        """Release what the model owns (the sync client it built from the environment, or was
        handed with ``close_clients=True``). Also ``with adapter: ...``."""
        self.connection.close()

    async def aclose(self) -> None:
        """Release what the model owns on the async side; ``async with adapter: ...``."""
        await self.connection.aclose()

    def __enter__(self: AdapterT) -> AdapterT:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    async def __aenter__(self: AdapterT) -> AdapterT:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
