"""The rules skip an option whose mark is the same as no mark (`_contest._quiet`): nothing a ballot's votes
or reasons show may change by it (docs/perf.md, "This round (branch g4target7)")."""

import dataclasses
from pathlib import Path
from unittest import mock

from hypothesis import given, seed, settings
from hypothesis import strategies as st

from tabulate.election import load_election
from tabulate.rules import BallotMarks, OptionMark, _contest, apply_rules

ROOT = Path(__file__).resolve().parents[1]
GENERAL = load_election(ROOT / "samples" / "general" / "election.json")
SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)

# Quiet marks are drawn often (most targets of a real sheet are), the others too.
mark = st.builds(
    OptionMark,
    scan=st.sampled_from(("unmarked", "unmarked", "marked", "marginal")),
    hand=st.sampled_from((None, "unmarked", "marked", "marginal")),
    write_in_ink=st.booleans(),
    score=st.sampled_from((None, 0.0, 0.0123)),
)


@st.composite
def ballots(draw):
    style = draw(st.sampled_from([s.id for s in GENERAL.ballot_styles]))
    marks = {}
    for contest in GENERAL.style_contests(style):
        options = list(contest.options)
        chosen = draw(st.lists(st.sampled_from(options), unique=True, max_size=len(options)))
        marks[contest.id] = {o.id: draw(mark) for o in chosen}
    return BallotMarks("q", style, marks, fwab=draw(st.booleans()))


@seed(20281107)
@SETTINGS
@given(ballots())
def test_skipping_quiet_marks_gives_the_votes_and_reasons_of_reading_every_option(marks):
    """Every option read in full (the skip turned off) against the skip: the same `BallotVotes`, field for field."""
    fast = apply_rules(GENERAL, marks)
    with mock.patch.object(_contest, "_quiet", lambda mark, option: False):
        full = apply_rules(GENERAL, marks)
    assert fast == full


def test_a_name_on_a_write_in_line_is_never_quiet():
    """31 KAR 6:030 Section 2(1)(b): a vote is made by "Writing in the name of an eligible candidate in the
    designated write-in space and filling in the oval": a name beside an empty target is no vote, but a person
    is told (``unmarked_write_in``); on a federal write-in absentee ballot the name counts alone (31 KAR 5:011
    Section 2). Ink on a candidate's line is no write-in: that mark is quiet."""
    contest = next(c for c in GENERAL.contests if c.write_ins)
    write_in = next(o for o in contest.options if o.kind == "write_in")
    candidate = next(o for o in contest.options if o.kind == "candidate")
    name_only = OptionMark("unmarked", None, True)
    assert not _contest._quiet(name_only, write_in)
    assert _contest._quiet(name_only, candidate)
    assert not _contest._quiet(OptionMark("unmarked", "marked"), candidate)  # a hand count's §3(1) mark
    assert not _contest._quiet(OptionMark("marginal"), candidate)
    style = next(s.id for s in GENERAL.ballot_styles if contest.id in s.contests)
    plain = apply_rules(GENERAL, BallotMarks("q", style, {contest.id: {write_in.id: name_only}}))
    assert [r.code for r in plain.reasons if r.contest_id == contest.id][0] == "unmarked_write_in"
    fwab = apply_rules(GENERAL, BallotMarks("q", style, {contest.id: {write_in.id: name_only}}, fwab=True))
    assert next(c for c in fwab.contests if c.contest_id == contest.id).selections == (write_in.id,)


def test_an_elections_contests_and_options_are_built_once_and_equal_a_fresh_build():
    """The cached look-ups (`Contest.options`, `Election.style_contests`, the straight-party contest) are
    those a fresh copy of the same election builds, and an unknown style is still refused every time."""
    style = GENERAL.ballot_styles[0].id
    first = GENERAL.style_contests(style)
    assert GENERAL.style_contests(style) is first
    assert first[0].options is first[0].options
    fresh = dataclasses.replace(GENERAL)
    assert fresh.style_contests(style) == first
    assert [c.options for c in fresh.style_contests(style)] == [tuple(dataclasses.replace(c).options) for c in first]
    if GENERAL.straight_party:
        assert fresh.straight_party_contest == GENERAL.straight_party_contest
    for _ in range(2):
        try:
            GENERAL.style_contests("no-such-style")
        except KeyError:
            pass
        else:
            raise AssertionError("an unknown style was accepted")
