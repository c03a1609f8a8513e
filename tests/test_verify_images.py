"""``tabulate verify --images``: a recount from the evidence catches an image replaced on disk."""

from __future__ import annotations

import shutil

import pytest

from tabulate.cli import main
from tabulate.commands.review_sample import SCRIPT, build_sample_store


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_verify_images_re_reads_every_sheet_and_names_a_replaced_image(tmp_path, capsys, backend):
    if backend == "postgresql":
        from pg_server import new_database

        db = new_database()
    else:
        db = str(tmp_path / "s.db")
    build_sample_store(db, tmp_path / "img", script=SCRIPT[:1], clean=1, dpi=100, read=True).close()
    assert main(["verify", "--db", db, "--images"]) == 0
    assert "re-read 2 sheets from their images: every reading matches the store" in capsys.readouterr().out
    # The attacker swaps the first ballot's front for the clean ballot's front.
    shutil.copy(tmp_path / "img" / "sample-002-1.png", tmp_path / "img" / "sample-001-1.png")
    assert main(["verify", "--db", db]) == 0  # the store itself is intact ...
    capsys.readouterr()
    assert main(["verify", "--db", db, "--images"]) == 1  # ... the evidence is not
    err = capsys.readouterr().err
    assert "sheet 1 (sample · 1) page 1: the image" in err and "is not the one scanned" in err
