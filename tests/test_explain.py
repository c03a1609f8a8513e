"""Why did ballot X count for Y? ``tabulate explain`` for any ballot, and counts that agree everywhere."""

from __future__ import annotations

import csv
import io
import json

import pytest
from test_adjudicate_support import (  # noqa: F401
    BOTH,
    DAMAGED,
    MARGINAL,
    OVERVOTE,
    WRITE_IN,
    board,
    env,
    fast_passwords,
    machine_entry,
    pg_template,
    team,
    template_store,
)

from tabulate.adjudicate import decisions, hand_entry, leases, queue, recording
from tabulate.adjudicate.explanation import BallotNotFound, explain_ballot, find_sheet
from tabulate.adjudicate.recording import DECIDED, ESCALATED
from tabulate.cli import main
from tabulate.core.vocabulary import REASON_WORDS, ballot_reference, parse_reference, reason_words

CLEAN = "9"  # a clean ballot, counted as read (see test_adjudicate_support)


def _decide(env):
    """Alice and Bob agree on the write-in and disagree on the light mark, which the board then decides."""
    queue.sync(env.conn, env.source)
    t = team(env, "alice", "bob")
    write_in = machine_entry(
        env, WRITE_IN, write_ins=[("president", "write-in-1", "Al Monroe", "pres-wi-monroe")], note="clearly Al Monroe"
    )
    leases.lease(env.conn, WRITE_IN, t, env.users["alice"].id)
    for who in ("alice", "bob"):
        result = recording.record_entry(env.conn, env.source, t, env.users[who], write_in)
    assert result.status == DECIDED
    vote = machine_entry(env, MARGINAL, mark=[("us-senate", "sen-brennan")], note="a light pencil fill")
    no_vote = machine_entry(env, MARGINAL, note="only a smudge")
    leases.lease(env.conn, MARGINAL, t, env.users["alice"].id)
    recording.record_entry(env.conn, env.source, t, env.users["alice"], vote)
    assert recording.record_entry(env.conn, env.source, t, env.users["bob"], no_vote).status == ESCALATED
    b = board(env)
    leases.lease(env.conn, MARGINAL, b, env.users["board1"].id)
    for who in ("board1", "board2"):
        result = recording.record_entry(env.conn, env.source, b, env.users[who], vote)
    assert result.status == DECIDED
    decisions.apply_pending(env.conn, env.source)


def _explain(env, capsys, ballot, *extra) -> str:
    assert main(["explain", "--db", str(env.db), ballot, *extra]) == 0
    return capsys.readouterr().out


def test_a_ballot_reference_is_batch_and_position_and_parses_back():
    assert ballot_reference("abs-1", 7) == "abs-1 · 7"
    for typed in ("abs-1 · 7", "abs-1·7", "abs-1:7", "abs-1 #7"):
        assert parse_reference(typed) == ("abs-1", 7)
    assert parse_reference("7aa171f9") is None


def test_every_reason_code_has_plain_words_and_unknown_codes_stay_readable():
    from tabulate.election import ADJUDICATION_REASONS

    assert set(ADJUDICATION_REASONS) <= set(REASON_WORDS)
    assert reason_words("scan_hand_disagreement") == "Scanner and hand reading differ"
    assert reason_words("some_new_code") == "Some new code"


def test_a_ballot_is_found_by_reference_sheet_id_or_hash_prefix(env):
    sheet = env.store.sheet(int(OVERVOTE))
    assert find_sheet(env.store, ballot_reference(sheet.batch.name, sheet.position)) == sheet.id
    assert find_sheet(env.store, OVERVOTE) == sheet.id
    assert find_sheet(env.store, sheet.identity[:10]) == sheet.id
    with pytest.raises(BallotNotFound, match="no sheet at position 99"):
        find_sheet(env.store, f"{sheet.batch.name}·99")
    with pytest.raises(BallotNotFound, match="not a ballot reference"):
        find_sheet(env.store, "zz")


def test_explain_a_ballot_never_flagged_says_it_counted_as_read_with_the_clause(env, capsys):
    sheet = env.store.sheet(int(CLEAN))
    out = _explain(env, capsys, ballot_reference(sheet.batch.name, sheet.position))
    assert f"Ballot {sheet.label}" in out
    assert "counted as the scanner read it (never flagged)" in out
    # 31 KAR 6:030 §2(1)(a): "Filling in the oval ... next to the candidate's name" is a vote.
    assert '31 KAR 6:030 §2(1)(a): "Filling in the oval or box' in out
    assert f'ImprintedId "{sheet.label}"' in out


def test_explain_a_flagged_ballot_awaiting_review_gives_the_reason_in_words(env, capsys):
    out = _explain(env, capsys, OVERVOTE)
    assert "awaiting review" in out
    assert "- Overvote: U.S. Representative" in out
    assert "(31 KAR 6:030 §1(6))" in out


def test_explain_a_set_aside_ballot_is_not_in_the_cvr(env, capsys):
    out = _explain(env, capsys, DAMAGED)
    assert "set aside, not counted: Style code unreadable" in out
    assert "set aside with no votes" in out and "not in the NIST CVR" in out


@BOTH
def test_explain_a_decided_ballot_shows_entries_the_disagreement_and_the_board_decision(env, capsys):
    _decide(env)
    out = _explain(env, capsys, MARGINAL)
    assert "counted as people decided" in out
    assert "counts:  Maria Brennan   <- changed by people" in out
    assert "alice (REP)" in out and "bob (DEM)" in out and "board1 (REP)" in out
    assert "entries disagree on: round 1: United States Senator" in out
    assert "note: only a smudge" in out
    assert "decided by the board: board1 (REP) & board2 (DEM)" in out
    doc = json.loads(_explain(env, capsys, MARGINAL, "--json"))
    senate = next(c for c in doc["contests"] if c["contest_id"] == "us-senate")
    assert senate["changed_by_people"] and senate["machine"] == "no vote"
    assert [t["scan"] for t in senate["targets"] if t["option_id"] == "sen-brennan"] == ["marginal"]
    assert doc["cvr"]["imprinted_id"] == doc["reference"]


def test_explain_refuses_what_it_cannot_find_in_one_line(env, capsys):
    assert main(["explain", "--db", str(env.db), "no-such-batch·3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no sheet at position 3 of batch 'no-such-batch'" in err


def _status(env, capsys) -> dict:
    main(["status", "--db", str(env.db), "--json"])
    return json.loads(capsys.readouterr().out)["totals"]


@BOTH
def test_counts_agree_across_status_results_unofficial_cvr_and_manifest_after_review(env, capsys, tmp_path):
    _decide(env)
    hand_entry.set_aside_for_hand_entry(env.conn, env.source, DAMAGED, actor="board1", attempts_confirmed=True)
    status = _status(env, capsys)
    assert main(["results", "--db", str(env.db), "--format", "json"]) == 0
    results = json.loads(capsys.readouterr().out)["ballots"]["total"]
    assert main(["unofficial", "--db", str(env.db), "--format", "json"]) == 0
    unofficial = json.loads(capsys.readouterr().out)["ballots"]
    assert main(["cvr", "--db", str(env.db), "--out", str(tmp_path / "cvr.json")]) == 0
    nist = json.loads((tmp_path / "cvr.json").read_text())["CVR"]
    assert main(["cvr", "--db", str(env.db), "--format", "dominion", "--out", str(tmp_path / "cvr.csv")]) == 0
    dominion = list(csv.reader(io.StringIO((tmp_path / "cvr.csv").read_text())))[4:]
    assert main(["manifest", "--db", str(env.db), "--out", str(tmp_path / "m.csv")]) == 0
    manifest = sum(int(r["Number of Ballots"]) for r in csv.DictReader(io.StringIO((tmp_path / "m.csv").read_text())))
    # Two decisions: 4 clean + 2 decided counted, 4 still awaiting review.
    assert (status["counted"], status["needs_review"], status["decided"]) == (6, 4, 2)
    assert (results["counted"], results["awaiting_review"]) == (status["counted"], status["needs_review"])
    assert (unofficial["counted"], unofficial["awaiting_review"]) == (status["counted"], status["needs_review"])
    live = status["counted"] + status["needs_review"]
    paper = live + status["rejected"]  # the Dominion CVR has a row for every sheet of paper, set aside or not
    assert len(nist) == live and len(dominion) == manifest == paper
    assert sum(r[7].startswith("set aside: ") for r in dominion) == status["rejected"]
    assert sum(any(s["Type"] == "modified" for s in c["CVRSnapshot"]) for c in nist) == status["decided"]
    # explain names each sheet's place in the CVR as the export numbers it (Dominion CvrNumber).
    assert explain_ballot(env.store, env.conn, int(DAMAGED)).cvr["votes"] is False  # set aside, not entered yet
    for sheet_id in (MARGINAL, WRITE_IN, OVERVOTE, CLEAN, DAMAGED):
        place = explain_ballot(env.store, env.conn, int(sheet_id)).cvr
        row = next(r for r in dominion if r[4] == place["imprinted_id"])
        assert (int(row[0]), place["of"]) == (place["cvr_number"], paper)


def test_status_text_uses_the_reason_words_and_says_a_sheet_may_have_several(env, capsys):
    _decide(env)
    assert main(["status", "--db", str(env.db)]) == 0
    out = capsys.readouterr().out
    assert "sheets (a sheet may have several reasons)" in out
    assert "Overvote 2" in out and "overvote" not in out.replace("Overvote", "")
    assert "counted includes 2 sheet(s) decided by people" in out
    assert "Marginal mark" not in out  # decided: no longer in the queue's breakdown


def test_explanation_model_answers_for_every_sheet_of_the_store(env):
    for sheet in env.store.sheets():
        exp = explain_ballot(env.store, env.conn, sheet.id)
        assert exp.reference == sheet.label and exp.outcome
