"""The chat page in headless Chromium (Debian's package, driven by playwright): send a
message, read the reply, confirm a deletion, reload and find the conversation again."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

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


def test_the_page_chats_and_confirms_a_deletion(
    chromium: str, live_server: Any, tmp_path: Path
) -> None:
    playwright = pytest.importorskip("playwright.sync_api")
    expect = playwright.expect

    with playwright.sync_playwright() as driver:
        browser = driver.chromium.launch_persistent_context(
            str(tmp_path / "profile"),  # a fresh --user-data-dir
            executable_path=chromium,
            headless=True,
            args=FLAGS,
        )
        try:
            page = browser.new_page()
            page.goto(live_server.url)

            page.fill("#message-input", "add a task to water the plants due tomorrow")
            page.click("#send")
            expect(page.locator(".msg.assistant").last).to_have_text(
                "Created task #1 “Water the plants” (priority medium; due 2026-03-03)."
            )
            expect(page.locator("#task-list li .title")).to_have_text(["#1 Water the plants"])

            page.fill("#message-input", "delete water the plants")
            page.keyboard.press("Enter")
            confirm = page.locator(".confirm")
            expect(confirm).to_contain_text("Confirm delete_task?")
            expect(confirm).to_contain_text('{"task_id":1}')
            expect(page.locator("#message-input")).to_be_disabled()

            confirm.locator("button.approve").click()
            expect(page.locator(".msg.assistant").last).to_have_text(
                "Deleted task #1 “Water the plants”."
            )
            expect(page.locator("#task-list .empty")).to_have_text("No tasks yet.")
            expect(page.locator("#message-input")).to_be_enabled()

            page.reload()  # the conversation comes back from the server
            expect(page.locator(".msg.user")).to_have_text(
                ["add a task to water the plants due tomorrow", "delete water the plants"]
            )
            expect(page.locator(".msg.tool.ok")).to_have_count(3)
        finally:
            browser.close()
