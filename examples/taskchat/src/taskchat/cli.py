"""``taskchat serve``: run the chat server (offline by default)."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from sqlalchemy.engine import make_url

from taskchat.correlation import RequestIdLogFilter
from taskchat.database import DatabaseUnavailableError, SchemaError
from taskchat.providers import PROVIDERS, ProviderSetupError
from taskchat.settings import Settings

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="taskchat", description="A task-manager chat assistant on affordance."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the server; open http://HOST:PORT/")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on (8000)")
    serve.add_argument(
        "--database-url",
        help="SQLAlchemy URL (default $TASKCHAT_DATABASE_URL, else taskchat.db in "
        "$XDG_DATA_HOME/taskchat or ~/.local/share/taskchat)",
    )
    serve.add_argument(
        "--provider",
        choices=list(PROVIDERS),
        help="the model: scripted (offline, the default) or a provider plugin",
    )
    serve.add_argument("--model", help="the provider's model name")
    serve.add_argument(
        "--offline-pace",
        type=float,
        default=0.02,
        metavar="SECONDS",
        help="the offline model's wait after each streamed piece, so replies visibly stream "
        "in (0.02; 0: at once)",
    )
    serve.add_argument(
        "--temporal",
        metavar="HOST:PORT",
        help="run the agent durably on this Temporal frontend (default $TASKCHAT_TEMPORAL; "
        "unset: in this process)",
    )
    serve.add_argument(
        "--task-queue",
        help="the Temporal task queue of the runs (default $TASKCHAT_TASK_QUEUE or taskchat)",
    )
    serve.add_argument(
        "--temporal-worker",
        action="store_true",
        default=None,
        help="with --temporal, also run a worker in this process",
    )
    serve.add_argument(
        "--shutdown-grace",
        type=float,
        metavar="SECONDS",
        help="on SIGTERM, how long the requests in flight may take to finish before they are "
        "cut off (10; 0: at once); the server then exits 0",
    )
    serve.add_argument("--log-level", default="info", choices=["debug", "info", "warning"])
    args = parser.parse_args(argv)
    return _serve(args)


def _serve(args: argparse.Namespace) -> int:
    from taskchat.app import create_app
    from taskchat.server import serve

    try:
        settings = Settings.from_env(
            database_url=args.database_url,
            provider=args.provider,
            model=args.model,
            offline_pace=args.offline_pace,
            temporal=args.temporal,
            task_queue=args.task_queue,
            temporal_worker=args.temporal_worker,
            shutdown_grace=args.shutdown_grace,
        )
        app = create_app(settings)
    except (DatabaseUnavailableError, SchemaError, ProviderSetupError, ValueError) as error:
        sys.stderr.write(f"taskchat: error: {error}\n")
        return 2
    _configure_logging(args.log_level)
    database = make_url(settings.database_url).render_as_string(hide_password=True)
    runs = ""
    if settings.durable:
        worker = ", with a worker" if settings.temporal_worker else ""
        runs = f", durable runs on Temporal {settings.temporal} ({settings.task_queue}{worker})"
    sys.stdout.write(
        f"taskchat: {settings.provider} model, database {database}{runs}; "
        f"open http://{args.host}:{args.port}/\n"
    )
    sys.stdout.flush()
    return serve(
        app, app.state.services.shutdown, host=args.host, port=args.port, log_level=args.log_level
    )


def _configure_logging(level: str) -> None:
    handler = logging.StreamHandler()
    handler.addFilter(RequestIdLogFilter())
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s")
    )
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(level.upper())
