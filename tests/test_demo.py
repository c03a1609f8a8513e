"""``tabulate demo``: the README's first command renders, scans and counts the samples end to end."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tabulate.commands.demo import find_samples
from tabulate.store import open_store

REPO = Path(__file__).resolve().parents[1]


def demo(*args, cwd=REPO) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tabulate.cli", "demo", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=cwd,
    )


def test_the_samples_are_found_from_the_current_folder_or_beside_the_package(tmp_path):
    assert find_samples(REPO / "docs") == REPO / "samples"
    (tmp_path / "samples" / "general").mkdir(parents=True)
    (tmp_path / "samples" / "general" / "election.json").write_text("{}")
    assert find_samples(tmp_path) == tmp_path / "samples"


def test_the_demo_scans_the_samples_into_a_store_and_prints_results_queue_and_files(tmp_path):
    out = tmp_path / "demo"
    result = demo("--keep", out, "--no-progress", "--workers", "2")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    text = result.stdout
    assert "Ballots counted:" in text and "President and Vice President" in text
    read = int(re.search(r"sheets read\s+(\d+)", text).group(1))
    assert read > 0 and re.search(rf"accounted for: .* = {read}\b", text)
    assert "needs review" in text and str(out / "demo.db") in text
    # The first lines of the review queue: each ballot by batch · position, and why, in plain words.
    queue = text.split("The review queue: ", 1)[1].split("\n\n", 1)[0].splitlines()
    n = int(queue[0].split()[0])
    assert n == int(re.search(r"needs review\s+(\d+)", text).group(1))
    assert len(queue) == 1 + min(n, 5) and all(re.match(r"  demo-election-day · \d+ +\S", line) for line in queue[1:])
    assert "_" not in "".join(queue[1:])  # words, not codes
    assert any((out / "ballots" / "general").glob("style-*-page-1.png"))
    store = open_store(out / "demo.db", create=False)
    try:
        [counts] = store.batch_counts()
        assert counts.sheets == read and counts.batch.ended_at is not None
        assert store.verify_events() > 0
        # Signed by the demo's station, registered by the demo's county key, both made beside the store.
        assert store.journal_registry().stations and all(e.signer for e in store.journal())
        assert (out / "keys" / "station.key").stat().st_mode & 0o077 == 0
    finally:
        store.close()


def test_the_demo_will_not_write_into_a_folder_that_holds_something(tmp_path):
    (tmp_path / "precious.txt").write_text("do not overwrite")
    result = demo("--keep", tmp_path)
    assert result.returncode == 2 and "not empty" in result.stderr and "Traceback" not in result.stderr
