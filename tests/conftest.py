"""Every test run keeps tabulate's on-disk caches in a folder of its own, never the user's ``~/.cache``."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True, scope="session")
def _private_cache_dir(tmp_path_factory):
    """``TABULATE_CACHE_DIR`` for this session (and the commands it runs): the signed layouts cache."""
    old = os.environ.get("TABULATE_CACHE_DIR")
    os.environ["TABULATE_CACHE_DIR"] = str(tmp_path_factory.mktemp("tabulate-cache"))
    yield
    if old is None:
        os.environ.pop("TABULATE_CACHE_DIR", None)
    else:
        os.environ["TABULATE_CACHE_DIR"] = old
