"""A fake interpreter and fake "scans" for testing the store and the batch pipeline.

Holds no tests. A fake page is a small text file standing in for a scanned
image, so the store and the exactly-once machinery are tested without
depending on image reading:

    FAKE|<election hash prefix>|<style>|<precinct>|<page>|<contest>=<option>+<option>;...

The real rules (31 KAR 6:030) still decide the votes. Special pages make a
worker misbehave: ``CRASH`` kills the worker process, ``HANG`` never returns
(``HANG|<path>`` first creates the file at path: the test's `UntilHangStarts`
then knows the reader is stuck, without a clock), ``BOOM`` raises inside the reader.
"""

from __future__ import annotations

import json
import os
import time
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from pathlib import Path

import pytest

from tabulate.central import Interpretation
from tabulate.central.interpret import votes_outcome
from tabulate.central.patience import Patience
from tabulate.core.marks import BallotMarks, OptionMark
from tabulate.election import Election, load_election
from tabulate.rules import apply_rules, marks_to_dict
from tabulate.store import SheetReason, open_store

REPO = Path(__file__).resolve().parents[1]
ELECTION_PATH = REPO / "samples" / "general" / "election.json"


@dataclass(frozen=True)
class UntilHangStarts(Patience):
    """A `Patience` that waits for a reading as long as it takes, except that once the fake reader has
    started a ``HANG|<flag>`` page (the flag file exists) a reading not yet done is called hung at once.

    So a sheet is timed out by that event, never by the clock: a worker slow to start on a loaded machine
    cannot be taken for a hung one. A reading called hung that was only slow (on the other worker) is
    read again alone, as the pipeline always does, and is waited for again; the flag is consumed each time,
    so the hanging sheet's own re-read is called hung only once it has started again."""

    flag: str = ""
    #: A guard against a test that would otherwise never end (a bug): no outcome depends on it.
    guard_s: float = 600.0

    def result(self, future):
        deadline = time.monotonic() + self.guard_s
        while True:
            try:
                return future.result(timeout=0.05)
            except FutureTimeout:
                pass
            if os.path.exists(self.flag):
                os.remove(self.flag)
                raise FutureTimeout from None
            assert time.monotonic() < deadline, "a reading neither finished nor hung"


def election() -> Election:
    return load_election(ELECTION_PATH)


def _reject(code: str, detail: str = "") -> Interpretation:
    return Interpretation("rejected", (SheetReason(code, detail or code),))


def fake_interpreter(election: Election, pages) -> Interpretation:
    """Read fake pages the way `tabulate.central.interpret_sheet` reads images."""
    marks: dict[str, dict[str, OptionMark]] = {}
    style = precinct = None
    for data in pages:
        if data == b"CRASH":
            os._exit(3)
        if data.startswith(b"HANG"):
            if data.startswith(b"HANG|"):
                Path(data[5:].decode()).touch()  # "I have started the sheet that never returns"
            time.sleep(3600)
        if data == b"BOOM":
            raise RuntimeError("boom")
        if not data:
            return _reject("empty_file")
        if not data.startswith(b"FAKE|"):
            return _reject("not_an_image")
        _, prefix, style, precinct, _page, text = data.decode().split("|")
        if prefix != election.hash_prefix:
            return _reject("wrong_election")
        try:
            election.style(style)
        except KeyError:
            return _reject("unknown_style")
        for item in text.split(";"):
            if not item or item.startswith("#"):  # "#..." only makes content distinct
                continue
            contest, options = item.split("=")
            for option in options.split("+"):
                marks.setdefault(contest, {})[option] = OptionMark(scan="marked")
    ballot = BallotMarks("fake", style, marks, precinct_id=precinct)
    votes = apply_rules(election, ballot)
    status, reasons = votes_outcome(votes)
    return Interpretation(
        status, reasons, style, precinct, json.dumps({"fake": True}), json.dumps(marks_to_dict(ballot)), votes
    )


def page_text(
    election: Election, style: str, precinct: str, page: int, marks: dict[str, list[str]], *, prefix: str | None = None
) -> bytes:
    body = ";".join(f"{c}={'+'.join(o)}" for c, o in marks.items())
    return f"FAKE|{prefix or election.hash_prefix}|{style}|{precinct}|{page}|{body}".encode()


def write_sheet(
    folder: Path,
    name: str,
    election: Election,
    marks: dict[str, list[str]],
    *,
    style: str = "1",
    precinct: str = "A101",
    salt: int = 0,
) -> tuple[Path, Path]:
    """Write one fake sheet as ``<name>-front.png`` / ``<name>-back.png``; ``salt`` makes content distinct."""
    front = folder / f"{name}-front.png"
    back = folder / f"{name}-back.png"
    front.write_bytes(page_text(election, style, precinct, 1, marks) + f";#{name}.{salt}".encode())
    back.write_bytes(page_text(election, style, precinct, 2, {}) + f";#{name}.{salt}".encode())
    return front, back


#: Marks of a plain ballot: a president vote and a 'yes' on amendment 1.
PLAIN = {"president": ["pres-hale"], "amendment-1": ["yes"]}
#: Two presidential candidates: an overvote (31 KAR 6:030 Section 2(2)(b)), queued for review.
OVERVOTE = {"president": ["pres-hale", "pres-okafor"]}


def make_batch(folder: Path, election: Election, n: int, *, start: int = 0) -> list[Path]:
    """``n`` distinct plain sheets named sheet-00001-front.png ... in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    choices = ["pres-hale", "pres-okafor", "pres-lindqvist"]
    for i in range(start, start + n):
        marks = {"president": [choices[i % 3]], "amendment-1": ["yes" if i % 2 else "no"]}
        files += write_sheet(folder, f"sheet-{i + 1:05d}", election, marks)
    return files


@pytest.fixture(scope="module")
def e() -> Election:
    """The sample general election (shared by a module's tests: nothing changes it)."""
    return election()


@pytest.fixture
def store(tmp_path, e):
    """A new store bound to the sample general election."""
    s = open_store(tmp_path / "store.db")
    s.bind_election(e, json.loads(ELECTION_PATH.read_text()))
    yield s
    s.close()
