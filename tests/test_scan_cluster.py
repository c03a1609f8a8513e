"""Reading on a Dask cluster records exactly what the process pool records, and loses nothing with a worker.

A small LocalCluster (2 workers, threads in this process: it starts in a
second) for the equivalence tests; one test starts worker *processes* so that
a worker can really die mid-batch.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from types import SimpleNamespace

import fsspec
import pytest
from test_scan_support import (
    ELECTION_PATH,
    OVERVOTE,
    e,  # noqa: F401 (fixtures)
    election,
    fake_interpreter,
    make_batch,
    write_sheet,
)

from tabulate.central import ScanPlan, run_batch
from tabulate.central.cluster import DaskReaders, _Result
from tabulate.cli import main
from tabulate.store import open_store

distributed = pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[1]
SCANS = ROOT / "samples" / "general" / "scans"


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0")
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def new_store(path, e):
    s = open_store(path)
    s.bind_election(e, json.loads(ELECTION_PATH.read_text()))
    return s


def snapshot(store):
    return [
        (
            s.id,
            s.batch.name,
            s.position,
            s.identity,
            s.status,
            s.duplicate_of,
            tuple(r.code for r in s.reasons),
            None if s.interpreted is None else tuple((c.contest_id, c.selections) for c in s.interpreted.contests),
        )
        for s in store.sheets()
    ]


def mixed_batch(folder, e):
    """Plain sheets, an overvote, the same sheet fed twice and a front without its back."""
    make_batch(folder, e, 9)
    write_sheet(folder, "sheet-00010", e, OVERVOTE)
    shutil.copy(folder / "sheet-00002-front.png", folder / "sheet-00011-front.png")
    shutil.copy(folder / "sheet-00002-back.png", folder / "sheet-00011-back.png")
    (folder / "sheet-00012-front.png").write_bytes(b"FAKE|lonely")


def count(tmp_path, e, name, paths, **kw):
    store = new_store(tmp_path / f"{name}.db", e)
    batch = store.open_batch("A", "election_day")
    summary = run_batch(store, e, batch, ScanPlan(paths), interpreter=fake_interpreter, **kw)
    return store, summary


def test_a_batch_read_on_a_dask_cluster_is_recorded_exactly_as_the_process_pool_records_it(tmp_path, e, client):
    mixed_batch(tmp_path / "b", e)
    pool, s1 = count(tmp_path, e, "pool", [tmp_path / "b"], workers=2)
    dask, s2 = count(tmp_path, e, "dask", [tmp_path / "b"], cluster=client)
    assert (s2.sheets_read, s2.counted, s2.needs_review, s2.rejected, s2.duplicate) == (12, 9, 1, 1, 1)
    assert s2.balanced
    assert snapshot(dask) == snapshot(pool)


def test_a_rerun_on_the_cluster_adds_nothing(tmp_path, e, client):
    make_batch(tmp_path / "b", e, 5)
    store, _ = count(tmp_path, e, "once", [tmp_path / "b"], cluster=client)
    before = snapshot(store)
    again = run_batch(
        store,
        e,
        store.open_batch("A", "election_day"),
        ScanPlan([tmp_path / "b"]),
        interpreter=fake_interpreter,
        cluster=client,
    )
    assert (again.sheets_read, again.already, again.added) == (5, 5, 0)
    assert snapshot(store) == before


def test_images_in_object_storage_are_read_where_they_are_through_fsspec(tmp_path, e, client):
    make_batch(tmp_path / "b", e, 4)
    fs = fsspec.filesystem("memory")
    for f in sorted((tmp_path / "b").iterdir()):
        fs.pipe(f"/bucket-{os.getpid()}/scans/{f.name}", f.read_bytes())
    fs.pipe(f"/bucket-{os.getpid()}/scans/truth.json", b"{}")
    url = f"memory://bucket-{os.getpid()}/scans"
    local, _ = count(tmp_path, e, "local", [tmp_path / "b"], workers=1)
    remote, s = count(tmp_path, e, "remote", [url], cluster=client)
    assert s.counted == 4 and [os.path.basename(p) for p in s.ignored] == ["truth.json"]
    assert [x[3:] for x in snapshot(remote)] == [x[3:] for x in snapshot(local)]
    assert next(remote.sheets()).pages[0].source == f"{url}/sheet-00001-front.png"


def test_a_sheet_whose_worker_keeps_dying_is_set_aside_as_reader_crashed(tmp_path, e):
    class Killed:
        def result(self, timeout=None):
            raise distributed.KilledWorker("sheet-1", "tcp://w", 3)

    class Readers:
        def __init__(self):
            self.forgotten = []

        def forget(self, future):
            self.forgotten.append(future)

        def set_aside(self, sheet, code, why):
            return (sheet, code)

    readers = Readers()
    assert _Result(Killed(), "the sheet", readers).result(1) == ("the sheet", "reader_crashed")
    assert len(readers.forgotten) == 1


def test_every_task_carries_the_election_itself_so_no_lost_worker_can_take_it_away(e):
    """A scattered election lived on the workers: when one died holding the only copy the scheduler knew of,
    every task still to run was cancelled ("lose scattered data, which can't be recovered"). No task may
    depend on data a worker holds."""

    class Client:
        def __init__(self):
            self.submitted = []

        def scheduler_info(self):
            return {"workers": {"w1": {"nthreads": 1}, "w2": {"nthreads": 1}}}

        def scatter(self, *a, **kw):
            raise AssertionError("nothing is scattered: a worker's death would take it away")

        def submit(self, fn, *args, **kw):
            self.submitted.append(args)
            return object()

    client = Client()
    readers = DaskReaders(client, e, fake_interpreter, timeout=60)
    sheet = SimpleNamespace(position=7)
    readers.submit(sheet)
    (args,) = client.submitted
    assert args[0] is e and args[2] is sheet


def crash_once(election, pages):
    """Kill this worker process the first time a ``CRASHONCE|<marker>|`` page is read; read it normally after."""
    out = []
    for data in pages:
        if data.startswith(b"CRASHONCE|"):
            _, marker, data = data.split(b"|", 2)
            if not os.path.exists(marker):
                Path(marker.decode()).touch()
                os._exit(3)
        out.append(data)
    return fake_interpreter(election, out)


def test_a_worker_lost_mid_batch_loses_nothing_its_sheets_are_read_again(tmp_path, e):
    make_batch(tmp_path / "b", e, 6)
    page = tmp_path / "b" / "sheet-00003-back.png"
    page.write_bytes(b"CRASHONCE|" + str(tmp_path / "crashed").encode() + b"|" + page.read_bytes())
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    try:
        with distributed.Client(cluster) as c:
            store = new_store(tmp_path / "s.db", e)
            summary = run_batch(
                store,
                e,
                store.open_batch("A", "election_day"),
                ScanPlan([tmp_path / "b"]),
                interpreter=crash_once,
                cluster=c,
            )
    finally:
        cluster.close()
    assert (tmp_path / "crashed").exists(), "no worker died: the test did not test anything"
    assert (summary.sheets_read, summary.counted, summary.balanced) == (6, 6, True)


def test_real_ballots_read_on_the_cluster_export_the_same_bytes_as_the_process_pool(
    tmp_path, monkeypatch, client, capsys
):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1830297600")
    folder = tmp_path / "scans"
    folder.mkdir()
    for f in sorted(SCANS.glob("sheet-0000[1-2]-*")):
        shutil.copy(f, folder / f.name)
    e = election()
    exports = {}
    for name, kw in (("pool", {"workers": 1}), ("dask", {"cluster": client})):
        store = new_store(tmp_path / f"{name}.db", e)
        run_batch(store, e, store.open_batch("b1", "election_day"), ScanPlan([folder]), **kw)
        store.close()
        for command, suffix in (("results", "csv"), ("cvr", "json"), ("manifest", "csv")):
            out = tmp_path / f"{name}-{command}.{suffix}"
            extra = ["--format", "csv"] if command == "results" else []
            assert main([command, "--db", str(tmp_path / f"{name}.db"), *extra, "--out", str(out)]) == 0
            exports[name, command] = out.read_bytes()
    for command in ("results", "cvr", "manifest"):
        assert exports["dask", command] == exports["pool", command], command


def test_a_cluster_address_that_is_not_one_is_a_one_line_error(tmp_path, e, capsys):
    make_batch(tmp_path / "b", e, 1)
    base = [
        "scan",
        str(tmp_path / "b"),
        "--election",
        str(ELECTION_PATH),
        "--db",
        str(tmp_path / "s.db"),
        "--batch",
        "A",
        "--vote-type",
        "election_day",
        "--no-progress",
    ]
    assert main([*base, "--cluster", "scheduler:8786"]) == 2
    assert "give local:N or a scheduler address" in capsys.readouterr().err
    assert main([*base, "--cluster", "local:0"]) == 2
    assert "N at least 1" in capsys.readouterr().err
