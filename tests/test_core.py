"""The bottom layer: one canonical JSON, one votes converter, one hash chain, one error base."""

from __future__ import annotations

import hashlib
import importlib
import inspect
import json
import pkgutil

import tabulate
from tabulate.core import (
    GENESIS,
    AdjudicationReason,
    BallotVotes,
    ContestVotes,
    TabulateError,
    body_hash,
    canonical_json,
    canonical_text,
    contest_votes_from_dict,
    contest_votes_to_dict,
    link_hash,
    votes_from_dict,
    votes_to_dict,
)

VOTES = BallotVotes(
    "b-1",
    "1",
    (
        ContestVotes("governor", "valid", ("gov-a",), 0, 0, True, ("31 KAR 6:030 §5(1)",)),
        ContestVotes("council", "overvote", (), 3, 0, False, ("31 KAR 6:030 §1(6)",)),
    ),
    precinct_id="A101",
    straight_party="dem",
    reasons=(AdjudicationReason("overvote", "council", None, "3 marks for 2 seats"),),
    needs_review=True,
    fwab=True,
)


def test_canonical_json_sorts_keys_drops_spaces_and_keeps_non_ascii():
    assert canonical_json({"b": 1, "a": ["é", None]}) == '{"a":["é",null],"b":1}'.encode()
    assert canonical_text({"b": 1, "a": 2}) == '{"a":2,"b":1}'


def test_the_election_hash_still_uses_the_same_bytes():
    """Older stores hold election hashes: the canonical form must not drift."""
    from tabulate.election.model import election_hash

    doc = {"z": "Żółć", "a": [1, 2]}
    expected = hashlib.sha256(
        json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    ).hexdigest()
    assert election_hash(doc) == expected


def test_both_chain_shapes_are_the_ones_stored_logs_were_written_with():
    content = {"seq": 1, "data": {"k": "v"}}
    assert link_hash(GENESIS, content) == hashlib.sha256((GENESIS + '{"data":{"k":"v"},"seq":1}').encode()).hexdigest()
    assert (
        body_hash({**content, "prev": GENESIS})
        == hashlib.sha256(('{"data":{"k":"v"},"prev":"' + GENESIS + '","seq":1}').encode()).hexdigest()
    )
    assert link_hash("1" * 64, content) != link_hash(GENESIS, content)


def test_contest_votes_round_trip_through_their_dict_form():
    for c in VOTES.contests:
        d = contest_votes_to_dict(c)
        assert list(d) == [
            "contest_id",
            "status",
            "selections",
            "overvotes",
            "undervotes",
            "from_straight_party",
            "clauses",
        ]
        assert contest_votes_from_dict(json.loads(json.dumps(d))) == c


def test_votes_to_dict_is_what_dataclasses_asdict_gave_before():
    """`tabulate votes --json` printed ``asdict`` output; the one converter keeps its keys and order."""
    from dataclasses import asdict

    d = asdict(VOTES)
    for c in d["contests"]:
        c["selections"], c["clauses"] = list(c["selections"]), list(c["clauses"])
    assert json.dumps(votes_to_dict(VOTES)) == json.dumps(d)


def test_decided_votes_come_back_without_reasons_and_not_needing_review():
    back = votes_from_dict(json.loads(json.dumps(votes_to_dict(VOTES))))
    assert back.contests == VOTES.contests and back.fwab and back.straight_party == "dem"
    assert back.reasons == () and back.needs_review is False


def _error_classes() -> list[type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(tabulate.__path__, "tabulate."):
        if info.name.endswith(".web.app") or ".web." in info.name:
            continue
        module = importlib.import_module(info.name)
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if issubclass(obj, BaseException) and obj.__module__ == info.name:
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return list(found.values())


def test_every_error_of_ours_derives_from_tabulate_error_with_its_own_stable_code():
    classes = _error_classes()
    assert len(classes) >= 18
    stray = [c.__qualname__ for c in classes if not issubclass(c, TabulateError)]
    assert stray == []
    codes = {c.__qualname__ + "@" + c.__module__: c.code for c in classes if c is not TabulateError}
    assert all(code and code != "tabulate" for code in codes.values()), codes
    assert len(set(codes.values())) == len(codes), "two error classes share a code"
    # The two SourceErrors are told apart by their codes.
    from tabulate.adjudicate.source import SourceError as ReviewSourceError
    from tabulate.central import SourceError as ScanSourceError

    assert (ReviewSourceError.code, ScanSourceError.code) == ("review_source", "scan_source")


def test_old_base_classes_still_catch_what_they_caught():
    from tabulate.election import ElectionError
    from tabulate.store import StoreError

    assert issubclass(ElectionError, ValueError) and issubclass(ElectionError, TabulateError)
    assert issubclass(StoreError, TabulateError) and StoreError("x").code == "store"
    assert TabulateError("one line\nmore").message == "one line"


def test_any_tabulate_error_is_one_line_on_the_command_line_with_exit_2(tmp_path, capsys):
    from tabulate.cli import main

    code = main(["results", "--db", str(tmp_path / "none.db")])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("tabulate: ") and err.count("\n") == 1 and "Traceback" not in err
