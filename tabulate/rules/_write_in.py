"""Whose vote a written name is: 31 KAR 6:030 Section 4, with the FWAB exceptions of 31 KAR 5:011.

`resolve_write_in` proposes a decision for the person reading a write-in; it
never guesses. Where the law decides (a first name alone, a shared surname, a
name already on the ballot) it says so with the clause; where a person must
judge (two candidates within a misspelling, an FWAB name that fits no one) it
says ``person_must_decide`` and names the candidates in question.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

from ..election import Contest, Election
from . import clauses as K
from ._names import close, normalise, split_name
from ._write_in_decision import WriteInDecision, _decision, _Filed, _filed, _slate_clause, _vote_for
from ._write_in_surname import _by_surname


def resolve_write_in(
    name: str, contest: Contest, election: Election | None = None, *, fwab: bool = False, sticker: bool = False
) -> WriteInDecision:
    """Decide whose write-in vote a written name is, citing 31 KAR 6:030 Section 4.

    Parameters
    ----------
    name
        The name as written; case, punctuation, accents and spacing do not matter.
    contest
        The candidate contest whose write-in line holds the name.
    election
        When given, a name that is a candidate in another contest is said so.
    fwab
        A federal write-in absentee ballot: 31 KAR 5:011 Section 2 suspends
        6:030 Section 4(1), (2) and (9), so a name on the ballot counts, a name
        of no filed candidate goes to a person, and other names beside a
        surname need not be filed variations.
    sticker
        The name is a sticker, label or rubber stamp (set by the reviewer;
        a typed name cannot show it).

    Returns
    -------
    WriteInDecision
    """
    if contest.type != "candidate":
        raise ValueError(f"contest {contest.id!r} is a question: it has no write-in line")
    written = normalise(name)
    if sticker:
        d = _decision("not_counted", (K.STICKER,), "a sticker, label or stamp is not a write-in vote (§4(3))")
    elif not written:
        d = _decision("not_counted", (K.WRITE_IN_VOTE, K.SCANNER_WRITE_IN), "no name is written in the write-in area")
    else:
        pool = _filed(contest)
        d = (
            _exact(written, pool, contest, fwab)
            or _initials(written, pool)
            or _by_surname(written, pool, contest, fwab)
            or _given_only(written, pool)
            or _no_one(written, contest, election, fwab)
        )
    return replace(d, written=written)


def _exact(written: str, pool: list[_Filed], contest: Contest, fwab: bool) -> WriteInDecision | None:
    """The name as filed, or one of its filed variations (Section 4(9)), or a running mate's name (4(10), 4(11))."""
    full = split_name(written).full
    hits: dict[str, tuple[_Filed, int]] = {}
    for entry in pool:
        for i, form in enumerate(entry.forms):
            if form.full == full:
                hits.setdefault(entry.candidate_id, (entry, i))
    if len(hits) > 1:
        return _decision(
            "person_must_decide",
            (K.MISSPELLING,),
            "more than one filed candidate has this exact name",
            candidates=tuple(hits),
        )
    if not hits:
        return None
    entry, i = next(iter(hits.values()))
    if entry.running_mate:
        return _vote_for(entry, (_slate_clause(contest),), f"{entry.name} is the running mate of the slate", fwab)
    if i:
        return _vote_for(entry, (K.OTHER_NAME,), f"a variation filed by {entry.name}", fwab)
    return _vote_for(entry, (K.SCANNER_WRITE_IN,), f"the name filed by {entry.name}", fwab)


def _initials(written: str, pool: list[_Filed]) -> WriteInDecision | None:
    """Section 4(7): "Writing in only the initials of a candidate shall not constitute a vote."

    Initials are words of one letter ("J. L. F."), or one short word that is
    the initials of a filed name and is no one's name ("JLF").
    """
    words = written.split()
    if all(len(w) == 1 for w in words):
        return _decision("not_counted", (K.INITIALS,), "only initials are written (§4(7))")
    if len(words) == 1 and 2 <= len(words[0]) <= 4:
        names = {w for e in pool for f in e.forms for w in f.given + (f.surname,)}
        meant = tuple(dict.fromkeys(e.candidate_id for e in pool for f in e.forms if f.initials == words[0]))
        if meant and words[0] not in names:
            return _decision("not_counted", (K.INITIALS,), "only initials are written (§4(7))", candidates=meant)
    return None


def _given_only(written: str, pool: list[_Filed]) -> WriteInDecision | None:
    """A given name or nickname with no surname: Sections 4(6) and 4(8).

    Section 4(6): "Writing in only the first name of an eligible candidate
    shall not constitute a valid vote." Section 1(3): a first name is "an
    individual's name or names given at birth", so a middle name alone is a
    first name too.

    Section 4(8): "Writing in only the nickname of an eligible candidate shall
    not constitute a valid vote." Section 1(5): a nickname is "a shortened
    version of an individual's name or a descriptive or alternative name". A
    word is taken for a nickname when it is the given name of a filed
    variation that is not the filed name ("Tom" of "Tom Whitaker" for Thomas),
    or shares its first three letters with a filed given name ("Tommy",
    "Jen"). Either way the name is not counted; only the clause cited differs.
    """
    words = [w for w in written.split() if len(w) > 1]
    if len(words) != 1:
        return None
    w = words[0]

    def who(test: Callable[[_Filed], bool]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(e.candidate_id for e in pool if test(e)))

    first = who(lambda e: w in e.forms[0].given)
    if first:
        return _decision(
            "not_counted", (K.FIRST_NAME,), f"only a first name ({w!r}) is written (§4(6))", candidates=first
        )
    nick = who(
        lambda e: (
            any(w in f.given for f in e.forms[1:])
            or any(len(g) >= 3 and len(w) >= 3 and g[:3] == w[:3] for f in e.forms for g in f.given)
        )
    )
    if nick:
        return _decision("not_counted", (K.NICKNAME,), f"only a nickname ({w!r}) is written (§4(8))", candidates=nick)
    slip = who(lambda e: any(len(g) > 1 and close(w, g) for g in e.forms[0].given))
    if slip:
        return _decision(
            "not_counted",
            (K.FIRST_NAME, K.MISSPELLING),
            f"only a first name ({w!r}, misspelt) is written (§4(6))",
            candidates=slip,
        )
    return None


def _no_one(written: str, contest: Contest, election: Election | None, fwab: bool) -> WriteInDecision:
    """Section 4(1): "Only votes cast for eligible write-in candidates as provided in KRS 117.265 shall be
    considered valid and counted." Suspended on an FWAB: there a person decides what to make of the name."""
    elsewhere = ""
    if election is not None:
        full = split_name(written).full
        for other in election.contests:
            if other.id != contest.id and any(split_name(c.name).full == full for c in other.candidates):
                elsewhere = f"; {written!r} is a candidate for {other.title}, not for this office"
                break
    if fwab:
        return _decision(
            "person_must_decide",
            (K.FWAB, K.ELIGIBLE_ONLY),
            f"the name is of no filed candidate for this office{elsewhere}; on a federal write-in "
            "absentee ballot §4(1) is suspended (31 KAR 5:011 §2), so the board decides how to "
            "record it",
        )
    return _decision(
        "not_counted",
        (K.ELIGIBLE_ONLY,),
        f"the name is of no eligible write-in candidate for this office{elsewhere} (§4(1))",
    )
