"""The PostgreSQL store has the SQLite store's schema, migration for migration, and fails in one line.

(The store's behaviour is tested on both backends in tests/test_store.py.)
"""

from __future__ import annotations

import sqlite3

import pytest
from pg_server import pg_url  # noqa: F401 - a fixture

from tabulate.store import StoreError, _pg_schema, _schema, open_store
from tabulate.store.pgconn import to_pg
from tabulate.store.postgres import display_url


def test_both_backends_know_the_same_migrations():
    assert _pg_schema.SCHEMA_VERSION == _schema.SCHEMA_VERSION


def test_a_postgresql_store_has_the_same_tables_and_columns_as_a_sqlite_store(tmp_path, pg_url):
    lite = open_store(tmp_path / "s.db")
    pg = open_store(pg_url)
    try:
        tables = [
            r[0]
            for r in lite._db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
        assert "sheets" in tables and "events" in tables
        for table in tables:
            ours = [r[1] for r in lite._db.execute(f"PRAGMA table_info({table})")]
            theirs = [
                r[0]
                for r in pg._db.execute(
                    "SELECT column_name FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position",
                    (table,),
                )
            ]
            assert theirs == ours, table
        assert pg._db.execute("SELECT version FROM schema_version").fetchone()[0] == _schema.SCHEMA_VERSION
    finally:
        lite.close()
        pg.close()


def test_a_database_without_a_store_is_not_made_one_by_a_reading_command(pg_url):
    with pytest.raises(StoreError, match="no store at"):
        open_store(pg_url, create=False)


def test_a_server_that_cannot_be_reached_is_one_line_without_the_password(tmp_path):
    with pytest.raises(StoreError, match="cannot connect") as e:
        open_store(f"postgresql://clerk:s3cret@/county?host={tmp_path}&connect_timeout=2")
    assert "\n" not in str(e.value) and "s3cret" not in str(e.value)


def test_the_dialect_layer_only_changes_the_parameter_style():
    assert (
        to_pg("SELECT 1 FROM sheets WHERE identity = ? AND code LIKE 'a%'")
        == "SELECT 1 FROM sheets WHERE identity = %s AND code LIKE 'a%%'"
    )
    assert display_url("postgresql://clerk:s3cret@db.county/count") == "postgresql://clerk:***@db.county/count"


def test_sqlite_is_still_the_default_for_a_file(tmp_path):
    store = open_store(tmp_path / "county.db")
    assert isinstance(store._db, sqlite3.Connection)
    store.close()
