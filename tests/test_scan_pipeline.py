"""The batch pipeline counts every sheet once, sets bad ones aside with a reason, and resumes exactly.

These tests use a small fake interpreter (tests/test_scan_support.py) so they
exercise the pairing, the worker pool, the store and the accounting without
depending on image reading; tests/test_scan_cli.py runs the real thing.
"""

from __future__ import annotations

import io
import json
import os
import sys
import tracemalloc

import numpy as np
import pytest
import tifffile
from test_scan_support import (  # noqa: F401 (fixtures)
    ELECTION_PATH,
    OVERVOTE,
    PLAIN,
    UntilHangStarts,
    e,
    election,
    fake_interpreter,
    make_batch,
    page_text,
    store,
    write_sheet,
)

from tabulate.central import MISSING_BACK, MISSING_FRONT, ScanPlan, SourceError, pipeline, run_batch
from tabulate.central.pages import PageLoadError, load_page
from tabulate.central.readers import start_readers
from tabulate.central.report import format_summary
from tabulate.central.sources import PageSource
from tabulate.store import open_store


def run(store, e, name, paths, *, workers=2, vote_type="election_day", **kw):
    batch = store.open_batch(name, vote_type)
    return run_batch(store, e, batch, ScanPlan(paths), workers=workers, interpreter=fake_interpreter, **kw)


def snapshot(store):
    """Everything that decides the count, in a comparable form."""
    return [
        (
            s.batch.name,
            s.position,
            s.identity,
            s.status,
            tuple(r.code for r in s.reasons),
            None if s.interpreted is None else tuple((c.contest_id, c.selections) for c in s.interpreted.contests),
        )
        for s in store.sheets()
    ]


def names(plan):
    return [(tuple(os.path.basename(p.label) for p in s.pages), s.missing) for s in plan]


# -- pairing -----------------------------------------------------------------------------
def touch(folder, *files):
    folder.mkdir(exist_ok=True)
    for f in files:
        (folder / f).write_bytes(b"x")


def test_front_and_back_pair_by_name_whatever_the_listing_order(tmp_path):
    touch(tmp_path / "s", "b-front.jpg", "a-back.jpg", "a-front.jpg", "b-back.jpg")
    assert names(ScanPlan([tmp_path / "s"])) == [
        (("a-front.jpg", "a-back.jpg"), None),
        (("b-front.jpg", "b-back.jpg"), None),
    ]


def test_other_pages_pair_consecutively_with_numbers_sorted_as_numbers(tmp_path):
    touch(tmp_path / "s", "page10.jpg", "page2.jpg", "Page1.jpg", "page009.jpg")
    assert names(ScanPlan([tmp_path / "s"])) == [
        (("Page1.jpg", "page2.jpg"), None),
        (("page009.jpg", "page10.jpg"), None),
    ]


def test_an_odd_page_count_leaves_the_last_page_a_sheet_missing_its_back(tmp_path):
    touch(tmp_path / "s", "1.jpg", "2.jpg", "3.jpg")
    assert names(ScanPlan([tmp_path / "s"]))[-1] == (("3.jpg",), MISSING_BACK)


def test_a_front_or_back_without_its_other_side_is_its_own_sheet(tmp_path):
    touch(tmp_path / "s", "a-front.jpg", "b-back.jpg")
    assert names(ScanPlan([tmp_path / "s"])) == [(("a-front.jpg",), MISSING_BACK), (("b-back.jpg",), MISSING_FRONT)]


def test_folders_never_pair_across_and_non_images_are_listed_as_ignored(tmp_path):
    touch(tmp_path / "one", "1.jpg", "truth.json", ".hidden.jpg")
    touch(tmp_path / "two", "2.jpg")
    plan = ScanPlan([tmp_path / "one", tmp_path / "two"])
    assert names(plan) == [(("1.jpg",), MISSING_BACK), (("2.jpg",), MISSING_BACK)]
    assert [os.path.basename(p) for p in plan.ignored] == ["truth.json"]
    assert [s.position for s in plan] == [1, 2]


def test_files_named_on_the_command_line_are_pages_in_the_order_given(tmp_path):
    touch(tmp_path, "z.jpg", "a.txt")
    assert names(ScanPlan([tmp_path / "z.jpg", tmp_path / "a.txt"])) == [(("z.jpg", "a.txt"), None)]


def test_simplex_makes_every_page_a_sheet(tmp_path):
    touch(tmp_path / "s", "1.jpg", "2.jpg")
    assert len(ScanPlan([tmp_path / "s"], simplex=True)) == 2


def test_a_multi_page_tiff_pairs_its_own_pages(tmp_path):
    pages = np.full((5, 8, 8), 255, np.uint8)
    tifffile.imwrite(tmp_path / "batch.tif", pages, photometric="minisblack", metadata=None)
    tifffile.imwrite(tmp_path / "sheet.tif", pages[:2], photometric="minisblack", metadata=None)
    assert names(ScanPlan([tmp_path / "batch.tif", tmp_path / "sheet.tif"])) == [
        (("batch.tif#1", "batch.tif#2"), None),
        (("batch.tif#3", "batch.tif#4"), None),
        (("batch.tif#5",), MISSING_BACK),
        (("sheet.tif",), None),
    ]


def _tiff_of_pages(path, n: int, shape=(1040, 800)) -> None:
    """An ``n``-page deflated TIFF of letter pages at ~94 DPI; page k carries k in binary in its first row."""
    with tifffile.TiffWriter(path) as tif:
        for k in range(1, n + 1):
            page = np.full(shape, 255, np.uint8)
            page[0, :16] = [0 if k >> bit & 1 else 255 for bit in range(16)]
            tif.write(
                page, photometric="minisblack", compression="deflate", compressionargs={"level": 1}, metadata=None
            )


def _page_number(data: bytes) -> int:
    row = tifffile.imread(io.BytesIO(data))[0, :16]
    return sum(1 << bit for bit in range(16) if row[bit] == 0)


def test_every_page_of_a_thousand_page_tiff_is_read_in_the_memory_of_one(tmp_path):
    """Past the 64th page nothing is lost ("has no page 65" was the bug), and a page of a long file takes no
    more memory than a page of a short one: the file is mapped, and its directories walked only to the page."""
    _tiff_of_pages(tmp_path / "long.tif", 1000)
    _tiff_of_pages(tmp_path / "short.tif", 2)
    plan = ScanPlan([tmp_path / "long.tif"])
    sheets = list(plan)
    assert len(sheets) == 500 and [p.label for p in sheets[-1].pages] == [
        f"{tmp_path / 'long.tif'}#999",
        f"{tmp_path / 'long.tif'}#1000",
    ]
    paper = (8.5, 11.0)
    pages = [p for s in sheets for p in s.pages]
    assert [p.page for p in pages] == list(range(1, 1001))
    # Reading all 1,000 takes ~6 s of CPU; these cover the old limit and both ends.
    for k in (1, 2, 63, 64, 65, 66, 128, 129, 500, 777, 998, 999, 1000):
        assert _page_number(load_page(pages[k - 1], paper)[0]) == k

    def peak(path, page: int) -> int:
        tracemalloc.start()
        try:
            load_page(PageSource(str(path), page), paper)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    assert peak(tmp_path / "long.tif", 1000) - peak(tmp_path / "short.tif", 2) < 64 * 1024
    with pytest.raises(PageLoadError, match="has no page 1001"):
        load_page(PageSource(str(tmp_path / "long.tif"), 1001), paper)


def test_a_path_that_does_not_exist_is_a_one_line_error(tmp_path):
    with pytest.raises(SourceError, match="no such file or folder"):
        ScanPlan([tmp_path / "nope"])


# -- exactly once ---------------------------------------------------------------------------
def test_a_batch_is_counted_and_every_sheet_accounted_for(tmp_path, store, e):
    make_batch(tmp_path / "b", e, 12)
    s = run(store, e, "A", [tmp_path / "b"])
    assert (s.sheets_read, s.counted, s.balanced, s.complete) == (12, 12, True, True)
    assert s.totals.counted == 12
    assert "accounted for: 12 + 0 + 0 + 0 + 0 = 12" in format_summary(s)


def test_rerunning_a_batch_adds_nothing(tmp_path, store, e):
    make_batch(tmp_path / "b", e, 10)
    run(store, e, "A", [tmp_path / "b"])
    before = snapshot(store)
    again = run(store, e, "A", [tmp_path / "b"])
    assert (again.sheets_read, again.already, again.added) == (10, 10, 0)
    assert snapshot(store) == before


def test_the_same_folder_scanned_into_another_batch_is_flagged_duplicate_not_counted(tmp_path, store, e):
    make_batch(tmp_path / "b", e, 6)
    run(store, e, "A", [tmp_path / "b"])
    s = run(store, e, "B", [tmp_path / "b"])
    assert (s.duplicate, s.counted) == (6, 0)
    assert sum(c.counted for c in store.batch_counts()) == 6


def test_a_run_interrupted_after_some_commits_resumes_to_the_uninterrupted_result(tmp_path, e):
    make_batch(tmp_path / "b", e, 30)
    write_sheet(tmp_path / "b", "sheet-00031", e, OVERVOTE)
    (tmp_path / "b" / "sheet-00032-front.png").write_bytes((tmp_path / "b" / "sheet-00003-front.png").read_bytes())

    reference = open_store(tmp_path / "reference.db")
    reference.bind_election(e, json.loads(ELECTION_PATH.read_text()))
    run(reference, e, "A", [tmp_path / "b"], workers=1)

    store = open_store(tmp_path / "interrupted.db")
    store.bind_election(e, json.loads(ELECTION_PATH.read_text()))
    real_record, calls = store.record_sheets, []

    def record_then_die(batch_id, outcomes):
        calls.append(len(outcomes))
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real_record(batch_id, outcomes)

    store.record_sheets = record_then_die
    with pytest.raises(KeyboardInterrupt):
        run(store, e, "A", [tmp_path / "b"], commit_sheets=4)
    store.record_sheets = real_record
    assert 0 < store.sheet_count(store.batches()[0].id) < 32
    resumed = run(store, e, "A", [tmp_path / "b"])
    assert resumed.already > 0 and resumed.balanced
    assert snapshot(store) == snapshot(reference)


def test_the_result_does_not_depend_on_the_number_of_workers(tmp_path, e):
    make_batch(tmp_path / "b", e, 16)
    snaps = []
    for workers in (1, 3):
        s = open_store(tmp_path / f"{workers}.db")
        s.bind_election(e, json.loads(ELECTION_PATH.read_text()))
        run(s, e, "A", [tmp_path / "b"], workers=workers)
        snaps.append(snapshot(s))
    assert snaps[0] == snaps[1]


# -- bad input never stops a batch -------------------------------------------------------
def test_every_bad_sheet_is_set_aside_with_its_reason_and_the_good_ones_count(tmp_path, store, e):
    b = tmp_path / "b"
    make_batch(b, e, 4)  # sheets 1-4 good
    write_sheet(b, "sheet-00005", e, OVERVOTE)  # needs review: overvote
    (b / "sheet-00006-front.png").write_bytes(b"")  # empty file
    (b / "sheet-00006-back.png").write_bytes(b"")
    (b / "sheet-00007-front.png").write_bytes(b"Scanner log: not an image")
    (b / "sheet-00007-back.png").write_bytes(b"Scanner log: still not")
    (b / "sheet-00008-front.png").write_bytes(page_text(e, "1", "A101", 1, PLAIN, prefix="000000000000"))
    (b / "sheet-00008-back.png").write_bytes(page_text(e, "1", "A101", 2, {}, prefix="000000000000"))
    (b / "sheet-00009-front.png").write_bytes(page_text(e, "99", "A101", 1, PLAIN))
    (b / "sheet-00009-back.png").write_bytes(page_text(e, "99", "A101", 2, {}))
    (b / "sheet-00010-front.png").write_bytes(b"BOOM")  # the reader raises
    (b / "sheet-00010-back.png").write_bytes(b"BOOM")
    (b / "sheet-00011-front.png").write_bytes(b"CRASH")  # the reader process dies
    (b / "sheet-00011-back.png").write_bytes(b"CRASH")
    (b / "sheet-00012-front.png").write_bytes((b / "sheet-00001-front.png").read_bytes())  # a rescan
    (b / "sheet-00012-back.png").write_bytes((b / "sheet-00001-back.png").read_bytes())
    write_sheet(b, "sheet-00013", e, PLAIN, salt=13)
    (b / "sheet-00014-front.png").write_bytes(page_text(e, "1", "A101", 1, PLAIN) + b";#lonely")  # no back
    write_sheet(b, "sheet-00015", e, PLAIN, salt=15)
    plan = ScanPlan([b])
    (b / "sheet-00015-back.png").unlink()  # vanishes between listing and reading

    s = run_batch(store, e, store.open_batch("A", "election_day"), plan, workers=2, interpreter=fake_interpreter)
    by_position = {sh.position: sh for sh in store.sheets()}
    reasons = {p: tuple(r.code for r in sh.reasons) for p, sh in by_position.items()}
    assert [by_position[p].status for p in (1, 2, 3, 4, 13)] == ["counted"] * 5
    assert by_position[5].status == "needs_review" and "overvote" in reasons[5]
    assert reasons[6] == ("empty_file",)
    assert reasons[7] == ("not_an_image",)
    assert reasons[8] == ("wrong_election",)
    assert reasons[9] == ("unknown_style",)
    assert reasons[10] == ("reader_failed",)
    assert reasons[11] == ("reader_crashed",)
    assert by_position[12].status == "duplicate" and reasons[12] == ("duplicate_sheet",)
    assert reasons[14] == ("missing_back_page",)
    assert reasons[15] == ("file_unreadable",)
    assert (s.sheets_read, s.counted, s.needs_review, s.rejected, s.duplicate) == (15, 5, 1, 8, 1)
    assert s.balanced and s.complete


@pytest.mark.parametrize("task_sheets", [1, 3])
def test_a_hung_reader_sets_only_its_sheet_aside(tmp_path, store, e, task_sheets):
    """The time-out fires when the reader has started the sheet that never returns (its flag file), not
    after a second of a loaded machine's clock: the other sheets are waited for however long they take."""
    make_batch(tmp_path / "b", e, 3)
    hang = b"HANG|" + str(tmp_path / "hang-started").encode()
    (tmp_path / "b" / "sheet-00004-front.png").write_bytes(hang)
    (tmp_path / "b" / "sheet-00004-back.png").write_bytes(hang)
    s = run(
        store,
        e,
        "A",
        [tmp_path / "b"],
        sheet_timeout=UntilHangStarts(flag=str(tmp_path / "hang-started")),
        task_sheets=task_sheets,
    )
    assert (s.counted, s.rejected) == (3, 1)
    assert s.by_reason[("rejected", "reader_timed_out")] == 1


def test_the_default_patience_waits_real_seconds_and_times_out():
    """`Patience` is what every reading is waited through: a future's result, or the pool's time-out."""
    from concurrent.futures import Future
    from concurrent.futures import TimeoutError as FutureTimeout

    from tabulate.central.patience import Patience, as_patience

    done: Future = Future()
    done.set_result("read")
    assert Patience(5.0).result(done) == "read"
    with pytest.raises(FutureTimeout):
        Patience(0.0).result(Future())  # nothing will ever finish it: no wait at all
    assert as_patience(7) == Patience(7.0) and as_patience(Patience(3.0)) == Patience(3.0)


def test_sheets_sent_several_to_a_task_are_recorded_once_each_as_one_at_a_time(tmp_path, e):
    """Several sheets per task (one round trip for all) record exactly what one sheet per task does,
    in feed order, even when a sheet of a task kills its reader: only that sheet is set aside."""
    b = tmp_path / "b"
    make_batch(b, e, 10)
    (b / "sheet-00011-front.png").write_bytes(b"CRASH")
    (b / "sheet-00011-back.png").write_bytes(b"CRASH")
    (b / "sheet-00012-front.png").write_bytes((b / "sheet-00002-front.png").read_bytes())  # a rescan
    (b / "sheet-00012-back.png").write_bytes((b / "sheet-00002-back.png").read_bytes())
    write_sheet(b, "sheet-00013", e, OVERVOTE)
    snaps = []
    for per_task in (1, 3):
        s = open_store(tmp_path / f"{per_task}.db")
        s.bind_election(e, json.loads(ELECTION_PATH.read_text()))
        summary = run(s, e, "A", [b], task_sheets=per_task)
        assert (summary.sheets_read, summary.balanced, summary.rejected, summary.duplicate) == (13, True, 1, 1)
        snaps.append(snapshot(s))
    assert snaps[0] == snaps[1]
    assert [row[1] for row in snaps[1]] == list(range(1, 14))
    assert snaps[1][10][4] == ("reader_crashed",)


# -- resuming: every page hashed once, by the worker that reads it ---------------------------
def crash_interpreter(election, pages):
    """A reader that kills its process on any page: a run that reads any sheet breaks its pool."""
    os._exit(3)


def _parent_never_fingerprints(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the parent hashed a page: the workers hash each page of a resumed batch")

    monkeypatch.setattr(pipeline, "fingerprint", refuse)


def test_a_resumed_batch_is_hashed_in_the_workers_and_its_recorded_sheets_are_not_read(tmp_path, store, e, monkeypatch):
    make_batch(tmp_path / "b", e, 9)
    first = run(store, e, "A", [tmp_path / "b"])
    before = snapshot(store)
    _parent_never_fingerprints(monkeypatch)
    readers = start_readers(e, workers=2, interpreter=crash_interpreter)
    restarts = []
    real_restart = readers.restart
    readers.restart = lambda: (restarts.append(1), real_restart())
    try:
        again = run_batch(store, e, store.open_batch("A", "election_day"), ScanPlan([tmp_path / "b"]), readers=readers)
    finally:
        readers.close()
    assert (first.counted, again.sheets_read, again.already, again.added) == (9, 9, 9, 0)
    assert restarts == []  # no recorded sheet reached the (crashing) reader
    assert snapshot(store) == before


def test_a_file_changed_after_it_was_listed_is_read_when_the_batch_resumes(tmp_path, store, e, monkeypatch):
    b = tmp_path / "b"
    make_batch(b, e, 4)
    run(store, e, "A", [b])
    plan = ScanPlan([b])  # listed now: the same four sheets, the same file names
    write_sheet(b, "sheet-00002", e, OVERVOTE, salt=2)  # then sheet 2's files replaced under the same names
    _parent_never_fingerprints(monkeypatch)
    again = run_batch(store, e, store.open_batch("A", "election_day"), plan, workers=2, interpreter=fake_interpreter)
    assert (again.sheets_read, again.already, again.needs_review, again.balanced) == (4, 3, 1, True)
    new = [s for s in store.sheets() if s.position == 5]
    assert len(new) == 1 and new[0].status == "needs_review" and "overvote" in {r.code for r in new[0].reasons}


def test_a_recorded_sheet_met_again_earlier_in_the_input_is_read_as_its_next_occurrence(tmp_path, store, e):
    """A copy of a recorded sheet put before it: the copy is the occurrence the batch holds, the
    recorded files' sheet (hashed by a worker, not read) is a new occurrence, read and set aside."""
    b = tmp_path / "b"
    make_batch(b, e, 2)
    run(store, e, "A", [b])
    for side in ("front", "back"):
        (b / f"sheet-00000-{side}.png").write_bytes((b / f"sheet-00001-{side}.png").read_bytes())
    again = run(store, e, "A", [b])
    assert (again.sheets_read, again.already, again.duplicate, again.balanced) == (3, 2, 1, True)
    dup = [s for s in store.sheets() if s.status == "duplicate"]
    assert [(s.position, tuple(r.code for r in s.reasons)) for s in dup] == [(3, ("duplicate_sheet",))]


# -- a reader process keeps its page buffers ----------------------------------------------
_PAGES_SCRIPT = """
import resource, sys
import numpy as np
from tabulate.central.worker import init_worker, keep_page_buffers
from tabulate.central.interpret import interpret_sheet
from tabulate.election import load_election

if sys.argv[1] == "reader":  # what a reader process does first (`init_worker`)
    init_worker(load_election(sys.argv[2]), interpret_sheet, 1)
faults = []
for _ in range(6):  # two decoded 200 DPI pages a sheet, allocated, written and freed, sheet after sheet
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    pages = [np.empty((2200, 1700), np.uint8) for _ in range(2)]
    for p in pages:
        p.fill(255)
    del pages
    faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
print(keep_page_buffers(), max(faults[2:]))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc settings (Linux)")
def test_a_reader_process_reuses_its_page_buffers_instead_of_faulting_them_in_again(tmp_path):
    """glibc handed a 3.7 MB page back to the kernel and faulted it in again for the next sheet
    (1,962 page faults and ~8 CPU ms a G4 sheet in workers of a server started before the election
    was known); a reader process keeps it (docs/perf.md, branch poolgap)."""
    import subprocess

    out = subprocess.run(
        [sys.executable, "-c", _PAGES_SCRIPT, "reader", str(ELECTION_PATH)], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out[0] == "True"
    assert int(out[1]) < 100  # the two pages are ~1,830 pages of 4 kB: they are not faulted in again
