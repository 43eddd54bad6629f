"""The chat page in headless Chromium (Debian's package, driven by playwright): send a
message and watch the reply stream in, confirm a deletion through the stream, reload and find
the conversation again; start over in the middle of a reply, which stops it on the server.

The model is the offline one, held after the first piece of a reply (``HeldModel``): the page
must show that piece — and the tool call already done — before the rest is let through, so
the partial state is seen without timing anything."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from taskchat.offline import respond

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = pytest.mark.slow


def _install_chromium() -> str | None:
    """Install Debian's chromium if we can; the reason we cannot, otherwise."""
    if shutil.which("apt-get") is None:
        return "chromium is not installed and there is no apt-get to install it"
    if os.geteuid() != 0:
        return "chromium is not installed; install it as root: apt-get install -y chromium"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-q", "--no-install-recommends", "chromium"]
    output = ""
    for command in (install, ["apt-get", "update", "-q"], install):
        done = subprocess.run(
            command, capture_output=True, text=True, env=env, timeout=900, check=False
        )
        output = done.stdout[-400:] + done.stderr[-400:]
        if command is install and done.returncode == 0 and CHROMIUM.exists():
            return None
    return f"apt-get could not install chromium: {output.strip()}"


@pytest.fixture(scope="session")
def chromium() -> str:
    if not CHROMIUM.exists():
        reason = _install_chromium()
        if reason is not None:
            print(f"skipping the browser test: {reason}")
            pytest.skip(reason)
    return str(CHROMIUM)


@pytest.fixture
def model(held_model: Any) -> Any:
    """The offline model, streaming in pieces of 12 characters, holdable."""
    return held_model(responder=respond, stream_chunk=12)


@pytest.fixture
def page(
    chromium: str, live_server: Callable[..., Any], model: Any, tmp_path: Path
) -> Iterator[Any]:
    """A page of a fresh headless Chromium on a live server whose model is ``model``."""
    playwright = pytest.importorskip("playwright.sync_api")
    server = live_server(adapter=model)
    with playwright.sync_playwright() as driver:
        browser = driver.chromium.launch_persistent_context(
            str(tmp_path / "profile"),  # a fresh --user-data-dir
            executable_path=chromium,
            headless=True,
            args=FLAGS,
        )
        try:
            page = browser.new_page()
            page.goto(server.url)
            yield page
        finally:
            browser.close()


def test_the_page_streams_replies_and_confirms_a_deletion(page: Any, model: Any) -> None:
    expect = pytest.importorskip("playwright.sync_api").expect
    gate = model.hold()
    try:
        page.fill("#message-input", "add a task to water the plants due tomorrow")
        page.click("#send")
        reply = page.locator(".msg.assistant").last
        expect(reply).to_have_text("Created task")  # the first piece, and no more yet
        expect(reply).to_have_class(re.compile(r"\bstreaming\b"))
        expect(page.locator(".msg.tool.ok")).to_have_text(["create_task: Created task #1."])
        expect(page.locator("#send")).to_be_disabled()
        gate.release()
        expect(reply).to_have_text(
            "Created task #1 “Water the plants” (priority medium; due 2026-03-03)."
        )
        expect(reply).not_to_have_class(re.compile(r"\bstreaming\b"))
        expect(page.locator("#task-list li .title")).to_have_text(["#1 Water the plants"])

        page.fill("#message-input", "delete water the plants")
        page.keyboard.press("Enter")
        confirm = page.locator(".confirm")
        expect(confirm).to_contain_text("Confirm delete_task?")
        expect(confirm).to_contain_text('{"task_id":1}')
        expect(page.locator(".msg.tool.waiting")).to_have_text(
            ["delete_task: waits for your confirmation"]
        )
        expect(page.locator(".msg.assistant").last).to_have_text(
            "I'll delete task #1 “Water the plants” once you confirm."
        )
        expect(page.locator("#message-input")).to_be_disabled()

        gate = model.hold()
        confirm.locator("button.approve").click()
        reply = page.locator(".msg.assistant").last
        expect(reply).to_have_text("Deleted task")
        expect(page.locator(".msg.tool.waiting")).to_have_count(0)
        expect(page.locator(".msg.tool.ok").last).to_have_text("delete_task: Deleted task #1.")
        gate.release()
        expect(reply).to_have_text("Deleted task #1 “Water the plants”.")
        expect(page.locator("#task-list .empty")).to_have_text("No tasks yet.")
        expect(page.locator("#message-input")).to_be_enabled()

        page.reload()  # the conversation comes back from the server
        expect(page.locator(".msg.user")).to_have_text(
            ["add a task to water the plants due tomorrow", "delete water the plants"]
        )
        expect(page.locator(".msg.tool.ok")).to_have_count(3)
        expect(page.locator(".msg.assistant").last).to_have_text(
            "Deleted task #1 “Water the plants”."
        )
    finally:
        gate.release()  # never leave the server waiting


def test_starting_over_mid_reply_stops_the_run_on_the_server(page: Any, model: Any) -> None:
    expect = pytest.importorskip("playwright.sync_api").expect
    gate = model.hold()
    try:
        page.fill("#message-input", "list my tasks")
        page.click("#send")
        expect(page.locator(".msg.assistant").last).to_have_text("You have no")

        page.click("#new-conversation")  # aborts the stream being read

        assert gate.ended.wait(30)  # the server closed the model's stream ...
        assert not gate.released.is_set()  # ... while it was held: the run was stopped
        expect(page.locator("#messages > *")).to_have_count(0)
        expect(page.locator("#send")).to_be_enabled()
    finally:
        gate.release()
