"""``python -m affordance_temporal worker``: one worker process of a deployment.

    python -m affordance_temporal worker --address temporal:7233 --task-queue agents \\
        --registry myapp.durable:registry --provider openai --model gpt-5

Run N of these for N workers. ``--registry`` names a ``PromptRegistry`` (or a function
returning one); the adapter comes from ``--provider``/``--model`` through the plugin registry
(keys from the environment, as the provider's SDK reads them) or from ``--adapter``, a
function returning an ``Evaluator``. ``--no-workflows`` / ``--no-model`` / ``--no-tools``
narrow what the process serves, to split the kinds across task queues.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import signal
import sys
from collections.abc import Sequence
from typing import Any

from affordance import Evaluator
from affordance_temporal.registry import PromptRegistry

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m affordance_temporal")
    commands = parser.add_subparsers(dest="command", required=True)
    worker = commands.add_parser("worker", help="run a durable-run worker until interrupted")
    worker.add_argument("--address", default="127.0.0.1:7233", help="Temporal frontend host:port")
    worker.add_argument("--namespace", default="default")
    worker.add_argument("--task-queue", required=True)
    worker.add_argument("--registry", required=True, help="MODULE:NAME of a PromptRegistry")
    worker.add_argument("--adapter", help="MODULE:NAME of a function returning an Evaluator")
    worker.add_argument("--provider", help="a provider plugin's name, e.g. openai")
    worker.add_argument("--model", help="the model, with --provider")
    worker.add_argument("--no-workflows", action="store_true")
    worker.add_argument("--no-model", action="store_true", help="serve no model requests")
    worker.add_argument("--no-tools", action="store_true", help="serve no tool calls")
    worker.add_argument("--max-concurrent-activities", type=int)
    worker.add_argument(
        "--sticky-timeout",
        type=float,
        default=10.0,
        help="seconds a workflow task waits for this worker's cache before any worker takes it",
    )
    args = parser.parse_args(argv)
    try:
        registry = _registry(args.registry)
        adapter = _adapter(args)
    except (ImportError, AttributeError, TypeError, ValueError) as error:
        sys.stderr.write(f"affordance_temporal: {error}\n")
        return 2
    return asyncio.run(_serve(args, registry, adapter))


async def _serve(
    args: argparse.Namespace, registry: PromptRegistry, adapter: Evaluator | None
) -> int:
    from datetime import timedelta

    from temporalio.client import Client

    from affordance_temporal.worker import durable_worker

    client = await Client.connect(args.address, namespace=args.namespace)
    options: dict[str, Any] = {
        "sticky_queue_schedule_to_start_timeout": timedelta(seconds=args.sticky_timeout)
    }
    if args.max_concurrent_activities is not None:
        options["max_concurrent_activities"] = args.max_concurrent_activities
    worker = durable_worker(
        client,
        registry,
        task_queue=args.task_queue,
        adapter=adapter,
        workflows=not args.no_workflows,
        model_requests=adapter is not None and not args.no_model,
        tool_calls=not args.no_tools,
        **options,
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    async with worker:
        sys.stdout.write(f"worker ready on task queue {args.task_queue}\n")
        sys.stdout.flush()
        await stop.wait()
    return 0


def _registry(target: str) -> PromptRegistry:
    found = _load(target)
    registry = found() if callable(found) and not isinstance(found, PromptRegistry) else found
    if not isinstance(registry, PromptRegistry):
        raise TypeError(f"{target} is not a PromptRegistry (got {type(registry).__qualname__})")
    return registry


def _adapter(args: argparse.Namespace) -> Evaluator | None:
    if args.adapter and args.provider:
        raise ValueError("give --adapter or --provider, not both")
    if args.adapter:
        adapter = _load(args.adapter)()
        if not isinstance(adapter, Evaluator):
            raise TypeError(
                f"{args.adapter}() returned {type(adapter).__qualname__}, not an Evaluator"
            )
        return adapter
    if args.provider:
        from affordance.plugins import load_adapter

        options = {"model": args.model} if args.model else {}
        return load_adapter(args.provider, **options)
    return None


def _load(target: str) -> Any:
    module_name, _, name = target.partition(":")
    if not module_name or not name:
        raise ValueError(f"{target!r} is not MODULE:NAME")
    return getattr(importlib.import_module(module_name), name)
