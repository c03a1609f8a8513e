"""Properties of the rules over random ballots of the sample election (Hypothesis, seeded)."""

from pathlib import Path

from hypothesis import given, seed, settings
from hypothesis import strategies as st

from tabulate.election import load_election
from tabulate.rules import BallotMarks, OptionMark, apply_rules

ROOT = Path(__file__).resolve().parents[1]
GENERAL = load_election(ROOT / "samples" / "general" / "election.json")
SETTINGS = settings(max_examples=100, deadline=None, derandomize=True)

mark = st.builds(
    OptionMark,
    scan=st.sampled_from(("marked", "marginal", "unmarked")),
    hand=st.sampled_from((None, "marked", "unmarked")),
    write_in_ink=st.booleans(),
)


@st.composite
def ballots(draw, fwab=st.booleans()):
    style = draw(st.sampled_from([s.id for s in GENERAL.ballot_styles]))
    marks = {}
    for contest in GENERAL.style_contests(style):
        options = [o for o in contest.options]
        chosen = draw(st.lists(st.sampled_from(options), unique=True, max_size=len(options)))
        marks[contest.id] = {
            o.id: draw(mark) if o.kind == "write_in" else OptionMark(draw(mark).scan, draw(mark).hand) for o in chosen
        }
    return BallotMarks("p", style, marks, fwab=draw(fwab))


@seed(20281107)
@SETTINGS
@given(ballots())
def test_every_contest_accounts_for_every_vote_slot(marks):
    """len(selections) + overvotes + undervotes == vote_for, in every contest of every ballot."""
    votes = apply_rules(GENERAL, marks)
    assert [c.contest_id for c in votes.contests] == list(GENERAL.style(marks.style_id).contests)
    for c in votes.contests:
        assert len(c.selections) + c.overvotes + c.undervotes == GENERAL.contest(c.contest_id).vote_for
        assert len(set(c.selections)) == len(c.selections)


@seed(20281107)
@SETTINGS
@given(ballots())
def test_an_overvoted_contest_credits_no_option(marks):
    for c in apply_rules(GENERAL, marks).contests:
        if c.status == "overvote":
            assert c.selections == () and c.overvotes == GENERAL.contest(c.contest_id).vote_for
        else:
            assert c.overvotes == 0


@seed(20281107)
@SETTINGS
@given(ballots(), st.sampled_from(("REP", "DEM", "LIB")))
def test_straight_party_never_creates_an_overvote(marks, party):
    """§5(2): "Straight party voting shall not be considered an overvote"."""
    without = dict(marks.marks)
    without["straight-party"] = {}
    with_party = dict(marks.marks)
    with_party["straight-party"] = {party: OptionMark("marked")}
    plain = apply_rules(GENERAL, BallotMarks("p", marks.style_id, without, fwab=marks.fwab))
    straight = apply_rules(GENERAL, BallotMarks("p", marks.style_id, with_party, fwab=marks.fwab))
    assert straight.straight_party == party
    for a, b in zip(plain.contests, straight.contests):
        assert (b.status == "overvote") == (a.status == "overvote"), a.contest_id
        if not GENERAL.contest(a.contest_id).partisan:
            assert a == b  # questions and nonpartisan contests are never touched


@seed(20281107)
@SETTINGS
@given(ballots(), st.randoms(use_true_random=False))
def test_results_do_not_depend_on_the_order_of_contests_or_options_in_the_marks(marks, rnd):
    contests = list(marks.marks.items())
    rnd.shuffle(contests)
    shuffled = {}
    for cid, options in contests:
        items = list(options.items())
        rnd.shuffle(items)
        shuffled[cid] = dict(items)
    again = BallotMarks(marks.ballot_id, marks.style_id, shuffled, fwab=marks.fwab)
    assert apply_rules(GENERAL, again) == apply_rules(GENERAL, marks)


@seed(20281107)
@SETTINGS
@given(ballots())
def test_needs_review_is_exactly_a_queued_reason(marks):
    votes = apply_rules(GENERAL, marks)
    assert votes.needs_review == any(r.code in GENERAL.adjudication.reasons for r in votes.reasons)
    assert votes.blank == ("blank_ballot" in [r.code for r in votes.reasons])
