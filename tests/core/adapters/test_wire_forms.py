"""``WireForms``: a message's wire form on one model, kept for as long as the message lives and
returned only under the context it was built in."""

from __future__ import annotations

import gc
import threading

from affordance.adapters import (
    AssistantMessage,
    ModelRequest,
    ProviderModel,
    ProviderTurn,
    ToolResultMessage,
    UserMessage,
    WireForms,
)


def test_a_form_is_returned_for_its_message_alone() -> None:
    forms = WireForms()
    asked, other = UserMessage("hi"), UserMessage("hi")
    form = forms.put(asked, ({"role": "user", "content": "hi"},))

    assert forms.get(asked) is form
    assert forms.get(other) is None  # an equal message is another message


def test_a_form_built_under_another_context_is_not_returned() -> None:
    forms = WireForms()
    result = ToolResultMessage("c1", "lookup", "found")
    names = {"lookup": "lookup_v2"}
    forms.put(result, "built with v2 names", names)

    assert forms.get(result, names) == "built with v2 names"
    assert forms.get(result, {"lookup": "lookup_v2"}) == "built with v2 names"  # equal context
    assert forms.get(result, {"lookup": "lookup_v3"}) is None
    assert forms.get(result) is None

    forms.put(result, "built plainly")
    assert (forms.get(result), forms.get(result, names)) == ("built plainly", None)


def test_a_form_goes_with_its_message() -> None:
    forms = WireForms()
    kept, dropped = AssistantMessage("kept"), AssistantMessage("dropped")
    forms.put(kept, "kept form")
    forms.put(dropped, "dropped form")
    del dropped
    gc.collect()

    assert (len(forms), forms.get(kept)) == (1, "kept form")


def test_forms_put_from_many_threads_are_all_kept() -> None:
    forms = WireForms()
    messages = [UserMessage(str(n)) for n in range(4000)]

    def put(part: list[UserMessage]) -> None:
        for message in part:
            forms.put(message, message.text)

    threads = [threading.Thread(target=put, args=(messages[n::4],)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(forms) == 4000
    assert all(forms.get(message) == message.text for message in messages)


class Quiet(ProviderModel):
    name = "quiet"

    def send(self, request: ModelRequest) -> ProviderTurn:
        return ProviderTurn(text="")

    async def asend(self, request: ModelRequest) -> ProviderTurn:
        return self.send(request)


def test_a_model_keeps_its_forms_per_registry_snapshot() -> None:
    """A new registry snapshot may bring other serializers, so the forms start afresh."""
    from affordance.plugins import PluginHost

    model = Quiet()
    model.resolve_through(registry=PluginHost(autoload=False).registry())
    message = UserMessage("hello")
    model.wire_forms().put(message, "form")
    assert model.wire_forms().get(message) == "form"

    model.resolve_through(registry=PluginHost(autoload=False).registry())
    assert model.wire_forms().get(message) is None


def test_of_builds_a_form_once_with_the_arguments_given_and_then_returns_it() -> None:
    forms = WireForms()
    message = ToolResultMessage("c1", "lookup", "found")
    built: list[tuple[object, ...]] = []

    def build(of: ToolResultMessage, *args: object) -> str:
        built.append((of, *args))
        return f"{of.content} as {args}"

    first = forms.of(message, build, "v2", 1)
    again = forms.of(message, build, "v2", 1)

    assert first == again == "found as ('v2', 1)"
    assert built == [(message, "v2", 1)]
    assert forms.get(message) == first  # kept as put() keeps it


def test_of_rebuilds_a_form_kept_under_another_context() -> None:
    forms = WireForms()
    message = AssistantMessage("hi")
    names = {"lookup": "lookup_v2"}

    plain = forms.of(message, lambda m: "plain")
    named = forms.of(message, lambda m: "named", context=names)

    assert (plain, named) == ("plain", "named")
    assert forms.of(message, lambda m: "rebuilt", context={"lookup": "lookup_v2"}) == "named"
    assert forms.of(message, lambda m: "plain again") == "plain again"
