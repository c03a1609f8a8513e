"""Every page's sample points kept on disk, signed (`tabulate.central.layouts_cache`): trusted only when verified.

A stale or tampered cache is rebuilt, never trusted, and a sheet reads the
same with points loaded from the cache as with points built in the process.
"""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest
from test_scan_support import ELECTION_PATH

from tabulate.central import layouts_cache, readers
from tabulate.central.interpret import interpret_sheet
from tabulate.detect import template
from tabulate.election import load_election


@pytest.fixture
def election(tmp_path, monkeypatch):
    monkeypatch.setenv(layouts_cache.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(layouts_cache, "_PREPARED", {})
    monkeypatch.setattr(template, "_CACHE", {})
    return load_election(ELECTION_PATH)


def _pages(election) -> dict:
    return {(s.id, p): (s.id, p) for s in election.ballot_styles for p in (1, 2)}


def _same_points(a, b) -> bool:
    return all(
        np.array_equal(getattr(a, f.name), getattr(b, f.name))
        and (not isinstance(getattr(a, f.name), np.ndarray) or getattr(a, f.name).dtype == getattr(b, f.name).dtype)
        for f in dataclasses.fields(a)
    )


def _built(election) -> dict:
    """The templates built in this process, without any cache."""
    template._CACHE.clear()
    layouts_cache.build(election)
    out = dict(template._CACHE)
    template._CACHE.clear()
    return out


def _seeded(election) -> dict:
    """The templates a worker gets: seeded from what the parent prepared, nothing built."""
    template._CACHE.clear()
    made = layouts_cache.prepared(election)
    assert made is not None
    assert layouts_cache.seed(election, made) == len(_pages(election))
    return dict(template._CACHE)


def test_the_first_scan_builds_the_cache_and_later_ones_load_the_same_points(election):
    assert layouts_cache.ensure(election) == "built"
    built = dict(template._CACHE)
    assert len(built) == len(_pages(election))
    layouts_cache._PREPARED.clear()
    assert layouts_cache.ensure(election) == "cached"
    seeded = _seeded(election)
    assert seeded.keys() == built.keys()
    for key, tpl in built.items():
        got = seeded[key]
        assert got.page == tpl.page and got.dpi == tpl.dpi == 200 and _same_points(got.points, tpl.points)
        arrays = [a for a in dataclasses.astuple(got.points) if isinstance(a, np.ndarray)]
        assert all(a.flags.writeable and a.flags.aligned and a.flags.c_contiguous for a in arrays)  # numba's types


def test_a_tampered_cache_is_rebuilt_never_trusted_and_the_reading_is_unchanged(election):
    assert layouts_cache.ensure(election) == "built"
    made = layouts_cache.prepared(election)
    path = layouts_cache.cache_path(election)
    good = path.read_bytes()
    sheet = _simulated_sheet(election)
    before = interpret_sheet(election, sheet)  # points built in this process
    # One bit of one sample point's coordinate changed: a valid-looking file whose signature no longer holds.
    index_len = int.from_bytes(good[72:80], "little")
    at = 72 + 8 + index_len + 8  # inside the first page's outline points
    tampered = bytearray(good)
    tampered[at] ^= 0x01
    path.write_bytes(bytes(tampered))
    layouts_cache._PREPARED.clear()
    assert layouts_cache.verified_payload(election) is None
    assert layouts_cache.prepared(election) is None  # the readers would build the points, not trust the file
    assert layouts_cache.seed(election, made) == 0  # nor would a worker handed the file before it was changed
    assert layouts_cache.ensure(election) == "built"
    assert path.read_bytes() == good  # rebuilt: the same points, signed again
    _seeded(election)
    after = interpret_sheet(election, sheet)  # points from the rebuilt cache
    assert after == before


def test_a_file_signed_with_another_folders_key_or_cut_short_is_not_trusted(election, tmp_path, monkeypatch):
    layouts_cache.ensure(election)
    path = layouts_cache.cache_path(election)
    data = path.read_bytes()
    for bad in (data[: len(data) // 2], b"0" * 64 + data[64:], b"", data[:50]):
        path.write_bytes(bad)
        assert layouts_cache.verified_payload(election) is None
    path.write_bytes(data)
    other = tmp_path / "other-cache"
    monkeypatch.setenv(layouts_cache.CACHE_ENV, str(other))
    (other / "layouts").mkdir(parents=True)
    (other / "key").write_bytes(b"k" * 32)  # another folder's key: the copied file does not verify
    (other / "layouts" / path.name).write_bytes(data)
    assert layouts_cache.verified_payload(election) is None


def test_a_stale_cache_is_never_found_the_code_names_a_new_file(election, monkeypatch):
    layouts_cache.ensure(election)
    old = layouts_cache.cache_path(election)
    monkeypatch.setattr(layouts_cache, "code_fingerprint", lambda: "the drawing code changed")
    layouts_cache._PREPARED.clear()
    assert layouts_cache.cache_path(election) != old
    assert layouts_cache.prepared(election) is None
    assert layouts_cache.ensure(election) == "built"


def test_an_election_without_a_hash_is_not_cached_and_an_unwritable_folder_hands_the_points_over_in_memory(
    election, tmp_path, monkeypatch
):
    assert layouts_cache.ensure(dataclasses.replace(election, hash="")) == "off"
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv(layouts_cache.CACHE_ENV, str(blocked))
    built = _built(election)
    assert layouts_cache.ensure(election) == "memory"  # the parent's build, handed to the workers from memory
    made = layouts_cache.prepared(election)
    assert made.path is None and made.payload
    seeded = _seeded(election)
    assert all(_same_points(seeded[k].points, tpl.points) for k, tpl in built.items())


def test_a_worker_seeded_by_its_initializer_builds_no_page(election, monkeypatch):
    layouts_cache.ensure(election)
    made = layouts_cache.prepared(election)
    template._CACHE.clear()
    monkeypatch.setattr(template, "render_page", lambda *a, **k: pytest.fail("a page was built, not loaded"))
    monkeypatch.setattr(readers, "init_worker", lambda *a: None)
    readers.init_reader(election, interpret_sheet, 0, made)
    for style_id, page in _pages(election):
        tpl = template.page_template(election, style_id, page, 200)
        assert tpl.points.n_targets == len(tpl.page.targets) and tpl.page.page == page


def test_the_cache_key_is_owner_only(election):
    layouts_cache.ensure(election)
    assert (layouts_cache.cache_dir() / "key").stat().st_mode & 0o077 == 0


def _simulated_sheet(election) -> list[bytes]:
    from tabulate.ballots.simulate import simulate_sheet

    return [cv2.imencode(".png", page)[1].tobytes() for page in simulate_sheet(election, 3, 17).pages]
