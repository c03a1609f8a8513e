"""Ballots read by the real reader (`tabulate.central.interpret_sheet`), then reviewed: the whole way through."""

from __future__ import annotations

import numpy as np
import pytest
from test_adjudicate_support import Browser, Env, fast_passwords, password  # noqa: F401

from tabulate.adjudicate import hand_entry, queue
from tabulate.commands.review_sample import SCRIPT, build_sample_store


@pytest.fixture
def scanned(tmp_path, fast_passwords):
    script = SCRIPT[:1] + SCRIPT[-1:]  # a light mark, and a sheet whose corner (and registration mark) is torn
    build_sample_store(tmp_path / "scanned.db", tmp_path / "img", script=script, clean=0, dpi=100, read=True).close()
    e = Env(tmp_path / "scanned.db")
    yield e
    e.close()


def test_a_scanned_sheet_is_reviewed_with_the_readers_transform_and_evidence(scanned):
    env = scanned
    assert queue.sync(env.conn, env.source) == 1
    sheet = env.source.sheet("1")
    assert [p.layout_page for p in sheet.pages] == [1, 2]
    assert np.allclose(sheet.pages[0].affine[:, :2], np.diag([100.0, 100.0]), atol=2.0)  # page inches -> pixels
    assert ("us-senate", "sen-brennan") in sheet.targets and "features" in sheet.targets[("us-senate", "sen-brennan")]
    rejected = hand_entry.hand_entry_candidates(env.conn, env.source)
    assert [s.sheet_id for s in rejected] == ["2"]

    from tabulate.adjudicate.web.app import create_app

    br = Browser(create_app(env.db))
    br.login("alice")
    br.submit(br.get("/queue").text, "/team/join", {"name": "bob", "password": password("bob")})
    page = br.get("/ballot/1")
    zoom = br.get("/img/1/1/contest/us-senate.png")
    assert zoom.status_code == 200 and zoom.content[:4] == b"\x89PNG"
    assert "Maria Brennan" in page.text
    for _ in range(2):
        page = br.get("/ballot/1")
        # The reader may flag more than the script meant (a stray speck): those are "no vote".
        preview = br.submit(page.text, "/preview", {"m|us-senate|sen-brennan": "1"}, undecided="0")
        assert preview.status_code == 200, preview.text
        done = br.submit(preview.text, "/record")
    assert "Ballot 1 is decided" in done.text
    assert env.store.sheet(1).modified["us-senate"].selections == ("sen-brennan",)
