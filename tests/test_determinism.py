"""The same images and election give the same results, byte for byte, every run."""

import shutil
from pathlib import Path

from tabulate.cli import main

ROOT = Path(__file__).resolve().parents[1]
SCANS = ROOT / "samples" / "general" / "scans"
ELECTION = ROOT / "samples" / "general" / "election.json"


def _count(tmp: Path, name: str, files: list[Path]) -> dict[str, bytes]:
    folder = tmp / f"{name}-scans"
    folder.mkdir()
    for f in files:
        shutil.copy(f, folder / f.name)
    db = tmp / f"{name}.db"
    assert (
        main(
            [
                "scan",
                str(folder),
                "--election",
                str(ELECTION),
                "--db",
                str(db),
                "--batch",
                "b1",
                "--vote-type",
                "election_day",
                "--workers",
                "1",
                "--no-progress",
            ]
        )
        == 0
    )
    outputs = {}
    for command, extra, suffix in (
        ("results", ["--format", "csv"], "csv"),
        ("cvr", [], "json"),
        ("election-results", [], "json"),
        ("manifest", [], "csv"),
    ):
        out = tmp / f"{name}-{command}.{suffix}"
        assert main([command, "--db", str(db), *extra, "--out", str(out)]) == 0
        outputs[command] = out.read_bytes()
    return outputs


def test_two_counts_of_the_same_ballots_export_identical_bytes(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1830297600")
    files = sorted(SCANS.glob("sheet-0000[1-4]-*"))
    assert len(files) == 8
    first = _count(tmp_path, "first", files)
    second = _count(tmp_path, "second", files)
    for command in first:
        assert first[command] == second[command], command
    assert b"2028-01-01T00:00:00Z" in first["cvr"]
