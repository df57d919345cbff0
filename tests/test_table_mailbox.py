"""A table's inbox (server/table/actor.py ``Mailbox``): messages come out in
the order they went in, a reader waiting is woken by the next message, and a
reader cancelled while it waited loses nothing put after."""

from __future__ import annotations

import asyncio

from server.table.actor import Mailbox
from server.table.inbox import InboxItem, Stop, Sweep, Wake


async def test_messages_come_out_in_order() -> None:
    box = Mailbox()
    sent: list[InboxItem] = [Wake("auto", 1), Sweep(), Wake("deal", 2), Stop()]
    for msg in sent:
        box.put_nowait(msg)
    got = [await box.get() for _ in sent]
    assert all(a is b for a, b in zip(got, sent, strict=True))


async def test_a_waiting_reader_gets_the_next_message() -> None:
    box = Mailbox()
    reader = asyncio.create_task(box.get())
    await asyncio.sleep(0)  # the reader is waiting now
    assert not reader.done()
    sweep = Sweep()
    box.put_nowait(sweep)
    assert await reader is sweep


async def test_a_cancelled_reader_loses_nothing() -> None:
    box = Mailbox()
    reader = asyncio.create_task(box.get())
    await asyncio.sleep(0)
    reader.cancel()
    await asyncio.gather(reader, return_exceptions=True)
    assert reader.cancelled()
    wake, stop = Wake("auto", 3), Stop()
    box.put_nowait(wake)
    box.put_nowait(stop)
    assert await box.get() is wake
    assert await box.get() is stop


async def test_an_arrival_is_the_next_message_put() -> None:
    # What the table's own loop awaits while its inbox is empty (no ``get``
    # coroutine per message): resolved by the next message, which is then there.
    box = Mailbox()
    arrival = box.arrival()
    assert not arrival.done()
    sweep = Sweep()
    box.put_nowait(sweep)
    assert arrival.done()
    await arrival
    assert await box.get() is sweep
