"""An SDK logger that writes request options at DEBUG keeps the body out of its records for the
requests an adapter sends, and only for those."""

from __future__ import annotations

import asyncio
import logging

from affordance.adapters.redaction import WITHHELD, bodies_withheld, withhold_bodies
from affordance_testing.logs import LogCapture

SDK = "tests.fake_sdk._base_client"
OPTIONS = {
    "method": "post",
    "url": "/v1/messages",
    "json_data": {"prompt": "secret"},
    "files": None,
}


def log_options() -> None:
    logging.getLogger(SDK).debug("Request options: %s", dict(OPTIONS))


def test_the_body_of_a_request_sent_inside_the_block_is_withheld() -> None:
    withhold_bodies(SDK)

    with LogCapture([SDK]) as logs:
        with bodies_withheld():
            log_options()
        log_options()  # the application's own request, outside the block

    inside, outside = (record.getMessage() for record in logs.records)
    assert "secret" not in inside
    assert f"'json_data': '{WITHHELD}'" in inside
    assert "'url': '/v1/messages'" in inside  # the metadata stays
    assert "'files': None" in inside  # nothing to withhold
    assert "secret" in outside


def test_records_with_several_arguments_and_without_a_body_pass_as_they_are() -> None:
    withhold_bodies(SDK)
    logger = logging.getLogger(SDK)

    with LogCapture([SDK]) as logs, bodies_withheld():
        logger.debug("%s %s", "retrying", {"content": b"secret"})
        logger.debug("Sending HTTP Request: %s", "POST")

    assert [record.getMessage() for record in logs.records] == [
        f"retrying {{'content': '{WITHHELD}'}}",
        "Sending HTTP Request: POST",
    ]


def test_the_block_holds_across_an_await_in_its_own_task_only() -> None:
    withhold_bodies(SDK)

    async def other_task() -> None:
        log_options()

    async def send() -> None:
        with bodies_withheld():
            await asyncio.sleep(0)
            log_options()
        await asyncio.create_task(other_task())

    with LogCapture([SDK]) as logs:
        asyncio.run(send())

    assert ["secret" in record.getMessage() for record in logs.records] == [False, True]


def test_installing_twice_adds_one_filter() -> None:
    withhold_bodies(SDK)
    withhold_bodies(SDK)

    assert len(logging.getLogger(SDK).filters) == 1
