"""Many reviewers deciding at once (threads, each with its own connections): nothing lost, nothing doubled."""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from types import SimpleNamespace

import pytest
from test_adjudicate_support import Env, fast_passwords, machine_entry  # noqa: F401

from tabulate.adjudicate import auditlog, decisions, leases, panels, queue, recording
from tabulate.adjudicate.entries import NOT_COUNTED
from tabulate.adjudicate.leases import LeaseLost
from tabulate.commands.review_sample import SCRIPT, build_sample_store

TEAMS = (("alice", "bob"), ("carol", "dave"), ("erin", "frank"), ("gina", "hal"))
COPIES = 5  # 6 flagged ballots per copy of the script


@pytest.fixture(params=["sqlite", "postgresql"])
def crowd(request, tmp_path, fast_passwords):
    """The crowd's store: a SQLite file, or a PostgreSQL database (every thread a connection of its own)."""
    if request.param == "postgresql":
        from pg_server import new_database

        db = new_database()
    else:
        db = tmp_path / "crowd.db"
    script = tuple(b for b in SCRIPT if not b.rejected) * COPIES
    build_sample_store(db, tmp_path / "img", script=script, clean=0, dpi=30).close()
    e = Env(db)
    from tabulate.adjudicate import users

    users.add_user(e.conn, "frank", "reviewer", "pw-frank-0123456789", party="DEM")
    for name, party in (("gina", "REP"), ("hal", "DEM")):
        users.add_user(e.conn, name, "reviewer", f"pw-{name}-0123456789", party=party)
    queue.sync(e.conn, e.source)
    yield e
    e.close()


def _entry(env, sheet_id, disagree: bool):
    """What a reviewer enters: the machine reading with every light mark taken as a vote and names confirmed.

    On every fifth ballot the second reviewer of a team reads the light mark the other way.
    """
    sheet = env.source.sheet(sheet_id)
    marks = [
        (r.contest_id, r.option_id)
        for r in sheet.reasons
        if r.code in ("marginal_mark", "scan_hand_disagreement") and not disagree
    ]
    names = {("president", "write-in-1"): ("Al Monroe", "pres-wi-monroe")}
    write_ins = []
    for cid, options in sheet.marks.marks.items() if sheet.marks else ():
        for oid, m in options.items():
            if m.write_in_ink:
                name, outcome = names.get((cid, oid), ("Someone Else", NOT_COUNTED))
                write_ins.append((cid, oid, name, outcome))
    return machine_entry(env, sheet_id, mark=marks, write_ins=write_ins)


def _work(env, panel, member, disagree_every: int, errors: list):
    conn, source = env.connect()
    mine = SimpleNamespace(source=source, election=env.election)  # this thread's own store connection
    try:
        while True:
            sheet_id = leases.lease_next(conn, panel, member.id)
            if sheet_id is None:
                return
            row = queue.queue_row(conn, sheet_id)
            if member.id in recording.entered_by(conn, sheet_id, row.round, panel):
                time.sleep(0.002)  # wait for the partner (or the board majority)
                continue
            second = member.id == panel.members[-1].id and panel.kind == "team"
            entry = _entry(mine, sheet_id, disagree=second and int(sheet_id) % disagree_every == 0)
            try:
                recording.record_entry(conn, source, panel, member, entry)
            except LeaseLost:
                continue
    except Exception as e:
        errors.append(e)
    finally:
        conn.close()
        source.store.close()


def _run(env, jobs):
    errors: list = []
    threads = [threading.Thread(target=_work, args=(env, panel, member, 5, errors)) for panel, member in jobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    assert not any(t.is_alive() for t in threads)


def test_many_reviewers_at_once_lose_nothing_and_double_nothing(crowd):
    env = crowd
    flagged = {r.sheet_id for r in queue.list_queue(env.conn, limit=1000)}
    assert len(flagged) == 6 * COPIES
    team_panels = []
    for a, b in TEAMS:
        panels.invite(env.conn, env.users.get(a) or panels_user(env, a), env.users.get(b) or panels_user(env, b))
        panels.accept(env.conn, panels_user(env, b), panels_user(env, a))
        team_panels.append(panels.panel_for(env.conn, panels_user(env, a)))
    _run(env, [(p, m) for p in team_panels for m in p.members])
    escalated = {r.sheet_id for r in queue.list_queue(env.conn, states=("board",), limit=1000)}
    assert escalated, "some teams should have disagreed"
    board = panels.board_panel(env.conn)
    _run(env, [(board, m) for m in board.members])

    decided = decisions.decisions(env.conn)
    assert sorted(d.sheet_id for d in decided) == sorted(flagged)  # every ballot decided exactly once
    assert {d.sheet_id for d in decided if d.decided_by == "board"} == escalated
    assert queue.progress(env.conn).decided == len(flagged)
    # No ballot got entries from two teams: one team (and then perhaps the board) per ballot.
    teams_per_sheet = defaultdict(set)
    for sheet_id, panel in env.conn.execute("SELECT sheet_id, panel FROM adj_entries WHERE panel != 'board'"):
        teams_per_sheet[sheet_id].add(panel)
    assert all(len(p) == 1 for p in teams_per_sheet.values())
    assert set(teams_per_sheet) == flagged
    # Every decision reached the store, once each, and the log chain survived the crowd.
    decisions.apply_pending(env.conn, env.source)
    assert all(d.applied for d in decisions.decisions(env.conn))
    assert sum(1 for s in env.store.sheets() if s.modified) == len(flagged)
    check = auditlog.verify(env.conn)
    assert check.ok, check.problem
    assert len(list(auditlog.entries(env.conn, action="decision"))) == len(flagged)


def panels_user(env, name):
    from tabulate.adjudicate import users

    return env.users.get(name) or users.find_user(env.conn, name)
