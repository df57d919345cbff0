"""A view stream's kept patches (server/table/stream.py): kept as bytes
alone, their seqs told by their place (the newest has the stream's seq), so
a resume gets exactly the patches it missed while every one is kept."""

from __future__ import annotations

import gc

from server.table.stream import PATCHES_KEPT, Stream


def _stream_at(seq: int, patches: int) -> Stream:
    stream = Stream()
    stream.seq = seq  # a snapshot's
    for n in range(patches):
        stream.kept(b"p%d" % (seq + n + 1))
    return stream


def test_a_resume_gets_exactly_the_patches_after_its_seq() -> None:
    stream = _stream_at(3, 5)
    assert stream.seq == 8
    assert stream.missed(3) == [(s, b"p%d" % s) for s in range(4, 9)]
    assert stream.missed(6) == [(7, b"p7"), (8, b"p8")]
    assert stream.missed(8) == []  # nothing missed
    assert stream.missed(2) is None  # the snapshot's seq and before: not kept
    assert stream.missed(9) is None  # ahead of the stream (a restart): a snapshot


def test_only_the_last_patches_are_kept_and_their_seqs_still_follow() -> None:
    stream = _stream_at(0, PATCHES_KEPT + 10)
    first = stream.seq - PATCHES_KEPT + 1
    missed = stream.missed(first - 1)
    assert missed is not None and len(missed) == PATCHES_KEPT
    assert missed[0] == (first, b"p%d" % first)
    assert missed[-1] == (stream.seq, b"p%d" % stream.seq)
    assert stream.missed(first - 2) is None  # one of them is gone


def test_kept_patches_give_the_collector_nothing_to_walk() -> None:
    stream = _stream_at(0, PATCHES_KEPT)
    assert not any(gc.is_tracked(p) for p in stream.patches)
