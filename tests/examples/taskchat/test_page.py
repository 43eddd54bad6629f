"""The chat page in headless Chromium (Debian's package, driven by playwright): send a
message and watch the reply stream in, confirm a deletion through the stream, reload and find
the conversation again; start over in the middle of a reply, which stops it on the server. A
fresh conversation welcomes with examples to try; a confirmation card blocks sending until it
is answered and then says which answer it got; a declined call is shown as declined, not as a
failure; a message the server never got goes back to the input, with a Retry.

The model is the offline one, held after the first piece of a reply (``HeldModel``): the page
must show that piece — and the tool call already done — before the rest is let through, so
the partial state is seen without timing anything.

One test writes the page, mid-conversation, to ``examples/taskchat/docs/screenshot.png`` (the
README shows it): the picture is always the page as this code draws it."""

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
SCREENSHOT = Path(__file__).parents[3] / "examples" / "taskchat" / "docs" / "screenshot.png"
VIEWPORT = {"width": 1000, "height": 700}
EXAMPLES = [
    "Add a task to buy milk tomorrow",
    "What's on my list?",
    "Mark buy milk as done",
    "Delete the milk task",
]
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
def server(live_server: Callable[..., Any], model: Any) -> Any:
    """The live server the page talks to; its model is ``model``."""
    return live_server(adapter=model)


@pytest.fixture
def page(chromium: str, server: Any, tmp_path: Path) -> Iterator[Any]:
    """A page of a fresh headless Chromium on ``server``."""
    playwright = pytest.importorskip("playwright.sync_api")
    with playwright.sync_playwright() as driver:
        browser = driver.chromium.launch_persistent_context(
            str(tmp_path / "profile"),  # a fresh --user-data-dir
            executable_path=chromium,
            headless=True,
            args=FLAGS,
            viewport=VIEWPORT,
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
        expect(page.locator("#send")).to_be_disabled()  # the card's answer goes first

        gate = model.hold()
        confirm.locator("button.approve").click()
        expect(confirm.locator(".answer")).to_have_text("Approved")
        expect(confirm.locator("button")).to_have_count(0)
        reply = page.locator(".msg.assistant").last
        expect(reply).to_have_text("Deleted task")
        expect(page.locator(".msg.tool.waiting")).to_have_count(0)
        expect(page.locator(".msg.tool.ok").last).to_have_text("delete_task: Deleted task #1.")
        gate.release()
        expect(reply).to_have_text("Deleted task #1 “Water the plants”.")
        expect(page.locator("#task-list .empty")).to_have_text("No tasks yet.")
        expect(page.locator("#message-input")).to_be_enabled()
        expect(page.locator("#send")).to_be_enabled()

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


def _say(page: Any, message: str, reply: str) -> None:
    """Send ``message`` from the composer and wait for the whole ``reply``."""
    expect = pytest.importorskip("playwright.sync_api").expect
    page.fill("#message-input", message)
    page.click("#send")
    expect(page.locator(".msg.assistant").last).to_have_text(reply)
    expect(page.locator("#send")).to_be_enabled()


def test_a_fresh_conversation_welcomes_with_examples_to_try(page: Any) -> None:
    expect = pytest.importorskip("playwright.sync_api").expect
    welcome = page.locator("#welcome")
    expect(welcome).to_be_visible()
    expect(welcome).to_contain_text("I keep your task list.")
    expect(welcome).to_contain_text("I ask before I delete anything.")
    expect(welcome.locator("button.example")).to_have_text(EXAMPLES)

    welcome.get_by_role("button", name=EXAMPLES[0]).click()

    expect(page.locator("#message-input")).to_have_value(EXAMPLES[0])
    expect(page.locator("#message-input")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator(".msg.user")).to_have_text([EXAMPLES[0]])
    expect(welcome).to_be_hidden()
    expect(page.locator(".msg.assistant").last).to_have_text(
        "Created task #1 “Buy milk” (priority medium; due 2026-03-03)."
    )
    expect(page.locator("#send")).to_be_enabled()  # the reply has ended: the server saved it

    page.reload()  # a conversation with messages comes back without the welcome
    expect(page.locator(".msg.user")).to_have_text([EXAMPLES[0]])
    expect(welcome).to_be_hidden()

    page.click("#new-conversation")
    expect(welcome).to_be_visible()
    welcome.get_by_role("button", name=EXAMPLES[1]).click()
    page.click("#send")
    expect(page.locator(".msg.assistant").last).to_have_text(
        "You have 1 task:\n- #1 Buy milk (pending, medium priority, due 2026-03-03)"
    )


def test_a_confirmation_card_holds_sending_and_says_the_answer_it_got(page: Any) -> None:
    """Deny one deletion, approve another: each card says its answer; the declined call is
    shown as declined — neutral, not a red failure — also after a reload. The page, with both
    cards answered, is the README's screenshot."""
    expect = pytest.importorskip("playwright.sync_api").expect
    _say(page, EXAMPLES[0], "Created task #1 “Buy milk” (priority medium; due 2026-03-03).")
    _say(
        page,
        "add a task to renew my passport by friday with high priority",
        "Created task #2 “Renew my passport” (priority high; due 2026-03-06).",
    )
    page.fill("#message-input", EXAMPLES[3])
    page.keyboard.press("Enter")
    card = page.locator(".confirm").last
    expect(card).to_contain_text("Confirm delete_task?")

    expect(page.locator("#send")).to_be_disabled()
    expect(page.locator("#message-input")).to_be_disabled()
    page.locator("#composer").evaluate("form => form.requestSubmit()")  # what Enter does
    expect(page.locator(".msg.user")).to_have_count(3)  # nothing was sent

    card.locator("button.deny").click()

    expect(card.locator(".answer")).to_have_text("Declined")
    expect(card).to_have_class(re.compile(r"\bdeclined\b"))
    expect(card.locator("button")).to_have_count(0)
    expect(page.locator(".msg.assistant").last).to_have_text("OK, I kept task #1 “Buy milk”.")
    declined = page.locator(".msg.tool.declined")
    expect(declined).to_have_text(["delete_task: declined, not run"])
    expect(page.locator(".msg.tool.failed")).to_have_count(0)
    assert declined.evaluate("e => getComputedStyle(e, '::before').color") == "rgb(103, 112, 124)"
    expect(page.locator("#send")).to_be_enabled()

    page.fill("#message-input", "delete renew my passport")
    page.keyboard.press("Enter")
    card = page.locator(".confirm").last
    expect(card).to_contain_text('{"task_id":2}')
    expect(page.locator("#send")).to_be_disabled()
    card.locator("button.approve").click()
    expect(card.locator(".answer")).to_have_text("Approved")
    expect(page.locator(".msg.assistant").last).to_have_text("Deleted task #2 “Renew my passport”.")
    expect(page.locator("#task-list li .title")).to_have_text(["#1 Buy milk"])
    expect(page.locator("#send")).to_be_enabled()
    _write_screenshot(page)

    page.reload()  # the stored conversation: the declined call is still declined
    expect(page.locator(".msg.user")).to_have_count(4)
    expect(page.locator(".msg.tool.declined")).to_have_text(["delete_task: declined, not run"])
    expect(page.locator(".msg.tool.failed")).to_have_count(0)


def _write_screenshot(page: Any) -> None:
    """The README's picture of the page; written only when it changed, so an unchanged page
    leaves the working tree clean."""
    image = page.screenshot(animations="disabled", caret="hide", type="png")
    assert image.startswith(b"\x89PNG")
    if not SCREENSHOT.exists() or SCREENSHOT.read_bytes() != image:
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        SCREENSHOT.write_bytes(image)


def test_a_message_the_server_never_got_goes_back_to_the_input_with_a_retry(
    page: Any, server: Any, live_server: Callable[..., Any], model: Any
) -> None:
    expect = pytest.importorskip("playwright.sync_api").expect
    _say(page, EXAMPLES[0], "Created task #1 “Buy milk” (priority medium; due 2026-03-03).")
    server.stop()

    page.fill("#message-input", "add a task to call the bank on friday")
    page.click("#send")

    error = page.locator(".msg.error")
    expect(error).to_have_text(
        "Could not reach the server, so your message was not sent. Is taskchat running? Retry"
    )
    expect(page.locator("#message-input")).to_have_value("add a task to call the bank on friday")
    expect(page.locator(".msg.user")).to_have_text([EXAMPLES[0]])  # the unsent one is back
    expect(page.locator(".msg.assistant")).to_have_count(1)
    expect(page.locator("#send")).to_be_enabled()

    live_server(adapter=model, port=server.port)  # back, over the same database
    error.get_by_role("button", name="Retry").click()

    expect(page.locator(".msg.error")).to_have_count(0)
    expect(page.locator(".msg.user")).to_have_text(
        [EXAMPLES[0], "add a task to call the bank on friday"]
    )
    expect(page.locator(".msg.assistant").last).to_have_text(
        "Created task #2 “Call the bank” (priority medium; due 2026-03-06)."
    )
    expect(page.locator("#message-input")).to_have_value("")
    expect(page.locator("#task-list li .title")).to_have_text(["#2 Call the bank", "#1 Buy milk"])
