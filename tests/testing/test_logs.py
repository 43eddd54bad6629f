"""``LogCapture`` finds a sentinel wherever a record holds it, and leaves the loggers as it
found them."""

from __future__ import annotations

import logging
import threading

from affordance_testing.logs import LogCapture


def test_a_sentinel_in_the_message_its_arguments_or_an_extra_field_is_a_leak() -> None:
    logger = logging.getLogger("tests.capture.sdk")

    with LogCapture(["tests.capture.sdk"]) as logs:
        logger.debug("sent %s", "zq-secret")
        logger.debug("answer", extra={"body": {"text": "zq-secret"}})
        logging.getLogger("affordance.tools").info("tool call %s", "lookup")

    leaks = logs.leaks(["zq-secret"])
    assert len(leaks) == 2
    assert all(leak.startswith("tests.capture.sdk: ") for leak in leaks)
    assert len(logs.records) == 3


def test_levels_and_propagation_are_restored() -> None:
    logger = logging.getLogger("tests.capture.quiet")
    logger.setLevel(logging.WARNING)

    with LogCapture(["tests.capture.quiet"]):
        assert (logger.level, logger.propagate) == (logging.DEBUG, False)

    assert (logger.level, logger.propagate) == (logging.WARNING, True)
    assert logging.getLogger("affordance").propagate


def test_a_record_logged_while_another_is_being_collected_on_the_same_thread_is_collected() -> None:
    """As when the garbage collector runs a finalizer that logs (an HTTP response closed when
    collected) in the middle of collecting a record: the capture must not wait for itself."""
    logger = logging.getLogger("zq.reentrant")
    done = threading.Event()

    def run(capture: LogCapture) -> None:
        handler = capture._handler
        with handler._guard:  # what holds the lock while a record is added
            logger.debug("inner")
        done.set()

    with LogCapture(["zq"]) as capture:
        worker = threading.Thread(target=run, args=(capture,), daemon=True)
        worker.start()
        worker.join(timeout=5)

    assert done.is_set()
    assert [r.getMessage() for r in capture.records] == ["inner"]
