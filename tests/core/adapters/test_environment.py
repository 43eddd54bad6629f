"""``affordance.adapters.environment``: a client from the environment is refused early without
an API key, and built once for both of an adapter's paths."""

from __future__ import annotations

import threading

import pytest

from affordance.adapters import SharedClient, require_api_key

KEYS = ("ACME_API_KEY", "ACME_KEY")
SWITCH = "ACME_USE_CLOUD"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (*KEYS, SWITCH):
        monkeypatch.delenv(name, raising=False)


def test_without_any_key_the_client_is_refused_naming_the_variables() -> None:
    with pytest.raises(ValueError, match="no API key") as raised:
        require_api_key(KEYS, switches=(SWITCH,), hint=" (or ACME_USE_CLOUD)")

    assert str(raised.value) == (
        "no API key: set ACME_API_KEY or ACME_KEY (or ACME_USE_CLOUD), or pass client="
    )


@pytest.mark.parametrize("name", KEYS)
def test_any_one_key_is_enough(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv(name, "secret")

    require_api_key(KEYS)


@pytest.mark.parametrize(("value", "refused"), [("1", False), (" TRUE ", False), ("no", True)])
def test_a_switch_turned_on_selects_another_way_to_authenticate(
    monkeypatch: pytest.MonkeyPatch, value: str, refused: bool
) -> None:
    monkeypatch.setenv(SWITCH, value)

    if refused:
        with pytest.raises(ValueError, match="no API key"):
            require_api_key(KEYS, switches=(SWITCH,))
    else:
        require_api_key(KEYS, switches=(SWITCH,))


def test_a_shared_client_is_built_once_whichever_thread_asks_first() -> None:
    built: list[object] = []

    def build() -> object:
        built.append(object())
        return built[-1]

    shared = SharedClient(build)
    seen: list[object] = []
    threads = [threading.Thread(target=lambda: seen.append(shared())) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(built) == 1
    assert seen == built * 8


def test_a_failed_build_is_tried_again_on_the_next_call() -> None:
    attempts: list[int] = []

    def build() -> str:
        attempts.append(1)
        if len(attempts) == 1:
            raise ValueError("no key")
        return "client"

    shared = SharedClient(build)
    with pytest.raises(ValueError, match="no key"):
        shared()

    assert shared() == "client"
    assert len(attempts) == 2
