"""The runtime's rooms keep their word: each facade has what its ``__all__`` lists, and its
docstring names every module of the room, so a newcomer reading it finds the module for a
change (``specs/RUNTIME.md``, "The rooms")."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

ROOMS = (
    "affordance.runtime.loop",
    "affordance.runtime.calls",
    "affordance.runtime.record",
    "affordance.runtime.model",
)


@pytest.mark.parametrize("room", ROOMS)
def test_every_name_a_room_lists_is_there(room: str) -> None:
    package = importlib.import_module(room)
    public = list(package.__all__)
    assert len(public) == len(set(public)), f"{room}.__all__ repeats a name"
    assert [name for name in public if not hasattr(package, name)] == []


@pytest.mark.parametrize("room", ROOMS)
def test_a_rooms_docstring_names_each_of_its_modules(room: str) -> None:
    package = importlib.import_module(room)
    modules = [info.name for info in pkgutil.iter_modules(package.__path__)]
    assert modules  # the room is a package with modules
    unnamed = [name for name in modules if f"``{name}``" not in (package.__doc__ or "")]
    assert unnamed == [], f"{room}'s docstring does not name {unnamed}"


def test_the_runtime_facade_names_each_room() -> None:
    runtime = importlib.import_module("affordance.runtime")
    rooms = {info.name for info in pkgutil.iter_modules(runtime.__path__)}
    assert rooms == {room.rsplit(".", 1)[1] for room in ROOMS}  # only rooms: no stray module
    assert all(f"``{room}``" in (runtime.__doc__ or "") for room in ROOMS)
