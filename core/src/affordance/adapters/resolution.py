"""What one adapter resolved from one registry snapshot: its serializers, its codecs, and the
declarations, output formats, messages' wire forms and tool sets' forms they produced, each
computed once.

Serializers come from, in order: the adapter's ``serializers=`` argument, the plugin registry
(the provider plugin's own at priority 0, or a third party's that outranks it), and the
adapter class's ``default_serializers`` (so an adapter works with plugin loading switched off).
A new registry snapshot (a plugin registered or pinned later) gets a new resolution.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from affordance.runtime.model.serializers import (
    OutputFormat,
    OutputSerializer,
    ToolDeclaration,
    ToolResultSerializer,
    ToolSerializer,
)
from affordance.tools.tool import Tool

if TYPE_CHECKING:
    from affordance.plugins import Registry
    from affordance.tools.hosted import HostedToolCodec

__all__ = [
    "IdentityCache",
    "Resolution",
    "SerializerFactories",
    "ToolSets",
    "WeakIdentityCache",
    "WireForms",
]

SerializerFactories = Mapping[str, Callable[[], Any]]
"""Role -> a factory of the serializer for that role."""

Declare = Callable[[Tool[Any, Any]], ToolDeclaration]
"""How a resolution declares one tool (:meth:`Resolution.declaration`)."""

_CACHE_SIZE = 1024

KeyT = TypeVar("KeyT")
ValueT = TypeVar("ValueT")


class IdentityCache(Generic[KeyT, ValueT]):
    """A bounded cache keyed by object identity, for keys that take no weak reference (a
    schema's dict); it holds its keys so an id is never reused while its entry lives."""

    def __init__(self, size: int = _CACHE_SIZE) -> None:
        self._size = size
        self._entries: dict[int, tuple[KeyT, ValueT]] = {}
        self._lock = threading.Lock()

    def get(self, key: KeyT) -> ValueT | None:
        entry = self._entries.get(id(key))
        return entry[1] if entry is not None and entry[0] is key else None

    def put(self, key: KeyT, value: ValueT) -> ValueT:
        with self._lock:
            if len(self._entries) >= self._size:
                del self._entries[next(iter(self._entries))]  # the oldest entry
            self._entries[id(key)] = (key, value)
        return value


class _WeakEntry(weakref.ref[Any]):
    """An entry of a :class:`WeakIdentityCache`: the weak reference to its key, holding the
    value and the key's id (one object per entry, so keeping a value costs one allocation)."""

    __slots__ = ("index", "value")
    index: int
    value: Any


class WeakIdentityCache(Generic[KeyT, ValueT]):
    """A cache keyed by object identity whose entries live as long as their keys: unbounded,
    so a busy adapter never cycles through it, and never holding a key alive. Keys must take
    weak references (``Tool`` and the messages do).

    Keeping an entry is one store in a dict, which no other thread sees half done: it takes no
    lock (and a lock could not guard the forgetting, which runs wherever a key dies)."""

    __slots__ = ("_entries", "_forget")

    def __init__(self) -> None:
        entries: dict[int, _WeakEntry] = {}

        def forget(gone: _WeakEntry) -> None:  # a key died: its entry goes with it
            if entries.get(gone.index) is gone:
                entries.pop(gone.index, None)

        self._entries = entries
        self._forget = forget

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: KeyT) -> ValueT | None:
        entry = self._entries.get(id(key))
        if entry is None or entry() is not key:
            return None
        value: ValueT = entry.value
        return value

    def put(self, key: KeyT, value: ValueT) -> ValueT:
        entry = _WeakEntry(key, self._forget)
        entry.index, entry.value = id(key), value
        self._entries[entry.index] = entry  # replacing any other of its key
        return value


class _KeptForm(_WeakEntry):
    """An entry of :class:`WireForms`: its value is a message's form, kept with the context it
    was built under (apart from it, so a kept form is found with two attribute reads)."""

    __slots__ = ("context",)
    context: object


class WireForms:
    """Each message's wire form on one model, kept for as long as the message lives, so a
    request resending a long history encodes only the messages it has not sent before.

    A provider's request builder asks :meth:`of` for each message's form, which builds it only
    the first time (or :meth:`get` before encoding it, and :meth:`put` with the form it built).
    ``context`` is whatever else the form depends on (the request's declared tool names, the
    turn a result answers): a form kept under another context (compared by identity, then
    ``==``) is not returned. A form is shared by every request that resends the message, so it
    is read-only: a request body puts it in a new list, never changes it.
    ``ProviderModel.wire_forms()`` gives the model's (a new registry snapshot starts afresh, as
    its serializers may differ).
    """

    __slots__ = ("_entries", "_forms")

    def __init__(self) -> None:
        self._forms: WeakIdentityCache[Any, Any] = WeakIdentityCache()
        self._entries: dict[int, _KeptForm] = self._forms._entries  # type: ignore[assignment]
        """Read by :meth:`of` directly: one call per kept form."""

    def __len__(self) -> int:
        return len(self._forms)

    def get(self, message: Any, context: object = None) -> Any | None:
        """The form kept for ``message`` under ``context``, or ``None``."""
        entry = self._entries.get(id(message))
        if entry is None or entry() is not message:
            return None
        built_under = entry.context
        return entry.value if built_under is context or built_under == context else None

    def put(self, message: Any, form: ValueT, context: object = None) -> ValueT:
        """Keep ``form`` for ``message`` under ``context`` (replacing any other); return it."""
        entry = _KeptForm(message, self._forms._forget)
        entry.index, entry.value, entry.context = id(message), form, context
        self._entries[entry.index] = entry  # replacing any other of its message
        return form

    def of(
        self,
        message: Any,
        build: Callable[..., ValueT],
        *args: Any,
        context: object = None,
    ) -> ValueT:
        """The form kept for ``message`` under ``context``; else ``build(message, *args)``, kept
        under ``context`` and returned. A kept form costs this one call."""
        entry = self._entries.get(id(message))
        if (
            entry is not None
            and entry() is message
            and (entry.context is context or entry.context == context)
        ):
            form: ValueT = entry.value
            return form
        return self.put(message, build(message, *args), context)


class _ToolRef(weakref.ref[Any]):
    """A weak reference to one tool of a :class:`ToolSets` entry, knowing the entry's key."""

    __slots__ = ("key",)
    key: tuple[object, int]


class ToolSets:
    """What a request builder works out from a request's tools together, kept for each tool set
    (the tools in order, each compared by identity) as long as every one of its tools lives.

    Every request of a run sends the same tools, and so does every run of a prompt; what a wire
    format makes of them together (which declarations stay strict within a budget, the names it
    declares them by) is worked out once per tool set, not on every request. A set is looked up
    by its tuple's hash (of its tools' identities), and an entry holds its tools weakly, so it is
    the same set's only while they are the same objects; it goes when one of them dies. What is
    kept is shared by every request that sends the set: read-only, and holding none of the tools
    (they would never die, nor their entry).
    """

    __slots__ = ("_entries", "_forget")

    def __init__(self) -> None:
        entries: dict[tuple[object, int], tuple[tuple[_ToolRef, ...], Any]] = {}

        def forget(gone: _ToolRef) -> None:  # a tool died: its entry goes with it
            entry = entries.get(gone.key)
            if entry is not None and gone in entry[0]:
                entries.pop(gone.key, None)

        self._entries = entries
        self._forget = forget

    def __len__(self) -> int:
        return len(self._entries)

    def of(
        self,
        tools: tuple[Tool[Any, Any], ...],
        build: Callable[[tuple[Tool[Any, Any], ...], Declare], ValueT],
        declare: Declare,
    ) -> ValueT:
        """What ``build(tools, declare)`` made of this tool set, kept; else built now and kept.
        ``build`` is part of the key: one function of the wire format (a module's, the same
        object on every request), whose answer depends on the tools and their declarations
        alone; ``declare`` gives a tool's (the ``declaration`` of the resolution these sets
        are kept on: ``ProviderModel.resolution().tool_sets``)."""
        key = (build, hash(tools))
        entry = self._entries.get(key)
        # the same set if its tools, all alive, are these (a tool is equal to itself alone)
        if entry is not None and [ref() for ref in entry[0]] == [*tools]:
            kept: ValueT = entry[1]
            return kept
        value = build(tools, declare)
        refs = tuple(_ToolRef(tool, self._forget) for tool in tools)
        for ref in refs:
            ref.key = key
        self._entries[key] = (refs, value)  # replacing another set of the same hash, if any
        return value


class Resolution:
    """Serializers, codecs and cached wire declarations of one adapter for one registry."""

    def __init__(
        self,
        provider: str,
        registry: Registry | None,
        *,
        serializers: Mapping[str, Any],
        defaults: SerializerFactories,
        codecs: Mapping[str, HostedToolCodec[Any, Any]],
        codec_provider: str | None = None,
    ) -> None:
        self.provider = provider
        self.codec_provider = codec_provider or provider
        self.registry = registry
        self._given = serializers
        self._defaults = defaults
        self._codecs: dict[str, HostedToolCodec[Any, Any] | None] = dict(codecs)
        self._serializers: dict[str, Any] = {}
        self._declarations: WeakIdentityCache[Tool[Any, Any], ToolDeclaration] = WeakIdentityCache()
        self._declared = self._declarations._entries
        self._outputs: IdentityCache[Mapping[str, Any], tuple[str, OutputFormat]] = IdentityCache()
        self.wire_forms = WireForms()
        """The messages' wire forms on this model (see :class:`WireForms`)."""
        self.tool_sets = ToolSets()
        """What the request builders make of each tool set on this model (see
        :class:`ToolSets`)."""
        self._lock = threading.Lock()

    # -- serializers -------------------------------------------------------------------------

    def serializer(self, role: str) -> Any:
        found = self._serializers.get(role)
        if found is not None:
            return found
        with self._lock:
            if role not in self._serializers:
                self._serializers[role] = self._find_serializer(role)
            return self._serializers[role]

    def _find_serializer(self, role: str) -> Any:
        given = self._given.get(role)
        if given is not None:
            return given
        if self.registry is not None:
            registered = self.registry.serializer(self.provider, role)
            if registered is not None:
                return registered
        default = self._defaults.get(role)
        if default is None:
            raise LookupError(
                f"provider {self.provider!r} has no serializer for role {role!r}: none was "
                "given, registered by a plugin, or built into the adapter"
            )
        return default()

    def declaration(self, tool: Tool[Any, Any]) -> ToolDeclaration:
        """``tool`` as this provider declares it, computed once per tool object and kept as long
        as the tool lives."""
        entry = self._declared.get(id(tool))  # the cache's lookup, inline: once per tool sent
        if entry is not None and entry() is tool:
            found: ToolDeclaration = entry.value
            return found
        serializer: ToolSerializer = self.serializer("tool")
        return self._declarations.put(tool, serializer.declare(tool))

    def output_format(self, schema: Mapping[str, Any], name: str) -> OutputFormat:
        """The structured-output format of ``schema``, computed once per schema object."""
        found = self._outputs.get(schema)
        if found is not None and found[0] == name:
            return found[1]
        serializer: OutputSerializer = self.serializer("output")
        return self._outputs.put(schema, (name, serializer.output_format(schema, name)))[1]

    def tool_result_serializer(self) -> ToolResultSerializer:
        serializer: ToolResultSerializer = self.serializer("tool_result")
        return serializer

    # -- codecs ------------------------------------------------------------------------------

    def codec(self, kind: str) -> HostedToolCodec[Any, Any] | None:
        if kind in self._codecs:
            return self._codecs[kind]
        registry = self.registry
        found = None if registry is None else registry.codec(self.codec_provider, kind)
        with self._lock:
            self._codecs[kind] = found
        return found
