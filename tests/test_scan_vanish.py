"""A batch whose bitonal scanner erased the voters' pencil is noticed (issue #17).

31 KAR 6:030 Section 3(1)(a): "The majority of an oval, box, or space
designating a candidate or question choice is filled in" is a vote; a filled
oval that a black-and-white threshold erased reads as a blank contest on a
sheet that otherwise looks fine, so the warning is about the batch.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tabulate.central.report import format_status, status_dict
from tabulate.central.vanish import (
    CODE,
    MIN_SHEETS,
    BatchWarning,
    SheetLook,
    batch_warnings,
    pencil_warning,
    sheet_look,
)
from tabulate.core.votes import BallotVotes, ContestVotes
from tabulate.store.base import Batch, BatchCounts


def look(*, bitonal=True, blank=2, contests=10, faint=0) -> SheetLook:
    return SheetLook(bitonal=bitonal, contests=contests, blank_contests=blank, pages=2, faint_pages=faint)


def test_many_blank_contests_on_bitonal_sheets_warn():
    w = pencil_warning("tub 4", [look(blank=6)] * MIN_SHEETS)
    assert w is not None and w.code == CODE and w.batch == "tub 4"
    assert "60 % of the contests on its bitonal sheets read blank" in w.message
    assert "rescan" in w.message


def test_ordinary_undervotes_do_not_warn():
    assert pencil_warning("tub 4", [look(blank=2)] * 50) is None


def test_too_few_bitonal_sheets_say_nothing():
    assert pencil_warning("tub 4", [look(blank=10)] * (MIN_SHEETS - 1)) is None


def test_the_same_blank_contests_on_grey_sheets_do_not_warn():
    # A grey scan keeps light pencil: many blank contests there are the voters' own.
    assert pencil_warning("tub 4", [look(bitonal=False, blank=8)] * 50) is None


def test_faint_printed_outlines_warn_even_with_few_blank_contests():
    w = pencil_warning("tub 4", [look(faint=2)] * 5 + [look()] * 15)
    assert w is not None and "blank" not in w.message
    assert "printed outlines faint on 25 % of its bitonal pages" in w.message
    assert pencil_warning("tub 4", [look(faint=1)] * 5 + [look()] * 15) is None  # 12 % of the pages


def test_bitonal_sheets_are_compared_with_the_batch_s_grey_sheets():
    grey = [look(bitonal=False, blank=1)] * MIN_SHEETS
    # 40 % blank: under the absolute 50 %, but 30 points more than the grey sheets of the same batch.
    w = pencil_warning("mixed", grey + [look(blank=4)] * MIN_SHEETS)
    assert w is not None and "40 %" in w.message
    assert pencil_warning("mixed", grey + [look(blank=3)] * MIN_SHEETS) is None


def _votes(statuses) -> BallotVotes:
    contests = tuple(ContestVotes(f"c{i}", s, undervotes=int(s == "blank")) for i, s in enumerate(statuses))
    return BallotVotes("b", "s1", contests)


def _page(paper, ink, flags=()) -> dict:
    return {"ok": True, "paper": paper, "ink": ink, "flags": list(flags)}


def test_sheet_look_reads_the_stored_evidence_and_votes():
    bitonal = {"pages": [_page(255.0, 0.0, ["outlines_faint"]), _page(255.0, 0.0)]}
    grey = {"pages": [_page(238.4, 21.0), _page(237.9, 20.6)]}
    votes = _votes(["valid", "blank", "blank", "undervote"])
    assert sheet_look(bitonal, votes) == SheetLook(True, 4, 2, 2, 1)
    assert sheet_look(grey, votes).bitonal is False
    assert sheet_look(None, votes) is None
    assert sheet_look({"pages": [{"ok": False}]}, votes) is None


@dataclass
class _Sheet:
    id: int
    interpreted: BallotVotes | None


@dataclass
class _Store:
    """The three store calls the check makes, over one batch of bitonal sheets."""

    blank: int
    batch: Batch = field(default_factory=lambda: Batch(1, "tub 4", "election_day", None, None, "2028-11-07"))

    def batches(self):
        return [self.batch]

    def sheets(self, *, batch_id=None, status=None):
        votes = _votes(["blank"] * self.blank + ["valid"] * (5 - self.blank))
        return [_Sheet(i, votes) for i in range(30)] + [_Sheet(99, None)]  # 99: rejected, not read

    def batch_counts(self):
        return [BatchCounts(self.batch, counted=30, rejected=1)]

    def evidence(self, sheet_id):
        return {"pages": [_page(255.0, 0.0), _page(255.0, 0.0)]}


def test_status_shows_the_warning_for_its_batch():
    store = _Store(blank=4)
    warnings = batch_warnings(store)
    assert [w.code for w in warnings] == [CODE]
    assert batch_warnings(_Store(blank=1)) == []
    counts = [BatchCounts(store.batch, counted=30)]
    text = format_status("db", None, counts, 3, None, warnings=warnings)
    assert f"WARNING [{CODE}]: batch 'tub 4': 80 % of the contests on its bitonal sheets read blank" in text
    data = status_dict("db", None, counts, 3, None, warnings=warnings)
    assert data["batches"][0]["warnings"] == [{"code": CODE, "message": warnings[0].message}]
    assert status_dict("db", None, counts, 3, None)["batches"][0]["warnings"] == []
    assert isinstance(warnings[0], BatchWarning)


def test_the_sample_is_every_step_th_read_sheet_the_step_from_the_batch_counts(monkeypatch):
    """The end-of-scan check, streaming the batch, picks the sheets ``read_sheets[::step]`` picked."""
    from tabulate.central import vanish

    monkeypatch.setattr(vanish, "SAMPLE", 4)
    votes = _votes(["valid"] * 5)
    order = [_Sheet(i, None if i % 3 == 0 else votes) for i in range(1, 40)]  # every third rejected
    looked: list[int] = []

    class Streamed(_Store):
        def sheets(self, *, batch_id=None, status=None):
            yield from order  # a generator: nothing can index or count it

        def batch_counts(self):
            live = sum(s.interpreted is not None for s in order)
            return [BatchCounts(self.batch, counted=live - 2, needs_review=2, rejected=len(order) - live)]

        def evidence(self, sheet_id):
            looked.append(sheet_id)
            return super().evidence(sheet_id)

    vanish._sample(Streamed(blank=0), Streamed(blank=0).batch)
    read = [s.id for s in order if s.interpreted is not None]
    assert looked == read[:: len(read) // 4]
