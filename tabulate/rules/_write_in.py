"""Whose vote a written name is: 31 KAR 6:030 Section 4, with the FWAB exceptions of 31 KAR 5:011.

`resolve_write_in` proposes a decision for the person reading a write-in; it
never guesses. Where the law decides (a first name alone, a shared surname, a
name already on the ballot) it says so with the clause; where a person must
judge (two candidates within a misspelling, an FWAB name that fits no one) it
says ``person_must_decide`` and names the candidates in question.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Iterator, Literal

from ..election import Contest, Election
from . import _clauses as K
from ._names import PersonName, close, normalise, split_name

Outcome = Literal["candidate", "not_counted", "person_must_decide"]


@dataclass(frozen=True)
class WriteInDecision:
    """What a written name is worth in one contest.

    ``clause`` is the provision that decides it, ``clauses`` every provision
    cited (``clause`` first); ``candidate_id`` is set for ``candidate``;
    ``candidates`` lists the candidates in question (the one meant, those who
    share a surname, those a misspelling could mean). ``written`` is the name
    as normalised for comparison.
    """

    outcome: Outcome
    clause: str
    explanation: str
    candidate_id: str | None = None
    candidates: tuple[str, ...] = ()
    clauses: tuple[str, ...] = ()
    written: str = ""


@dataclass(frozen=True)
class _Filed:
    """One person filed for the office: a candidate on the ballot, a running mate, or a declared write-in."""

    candidate_id: str
    name: str
    forms: tuple[PersonName, ...]  # the name as filed, then its filed variations (KRS 117.265(2))
    on_ballot: bool
    running_mate: bool = False


def _decision(
    outcome: Outcome,
    clauses: tuple[str, ...],
    explanation: str,
    candidate_id: str | None = None,
    candidates: tuple[str, ...] = (),
) -> WriteInDecision:
    return WriteInDecision(outcome, clauses[0], explanation, candidate_id, candidates, clauses)


def _filed(contest: Contest) -> list[_Filed]:
    out = []
    for c in contest.candidates:
        out.append(_Filed(c.id, c.name, (split_name(c.name),), True))
        if c.running_mate:
            out.append(_Filed(c.id, c.running_mate, (split_name(c.running_mate),), True, True))
    for w in contest.declared_write_ins:
        out.append(_Filed(w.id, w.name, tuple(split_name(n) for n in (w.name,) + w.variations), False))
        if w.running_mate:
            out.append(_Filed(w.id, w.running_mate, (split_name(w.running_mate),), False, True))
    return out


def _slate_clause(contest: Contest) -> str:
    """The slate clause for the contest's office, never guessed from its title.

    31 KAR 6:030 Section 4(10): "Writing in the surname of the candidate for Governor or the surname of the
    candidate for Lieutenant Governor shall be sufficient to cast a write-in vote for the slate." Section
    4(11): the same for President and Vice President. The election definition refuses a slate contest
    whose ``office`` is neither.
    """
    clause = {"president": K.PRESIDENT_SLATE, "governor": K.GOVERNOR_SLATE}.get(contest.office or "")
    if clause is None:  # the election loader refuses such a contest; a hand-built one is a bug
        raise ValueError(f"slate contest {contest.id!r} has office {contest.office!r}, not president or governor")
    return clause


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


def _vote_for(entry: _Filed, clauses: tuple[str, ...], why: str, fwab: bool) -> WriteInDecision:
    """A name that means ``entry``: a vote for them, unless they are on the ballot already.

    31 KAR 6:030 Section 4(2): "A write-in vote for a candidate whose name
    already appears on the ballot as a candidate shall not be counted as a
    vote". Suspended for an FWAB (31 KAR 5:011 Section 2), whose voter writes
    every choice, on-ballot candidates included.
    """
    if entry.on_ballot and not fwab:
        return _decision(
            "not_counted",
            (K.ALREADY_ON_BALLOT,) + clauses,
            f"{why}; {entry.name} is already on the ballot for this office, so a write-in for them "
            "is not counted (§4(2))",
            candidates=(entry.candidate_id,),
        )
    if entry.on_ballot:
        clauses += (K.FWAB,)
        why += "; on a federal write-in absentee ballot §4(2) is suspended (31 KAR 5:011 §2)"
    return _decision("candidate", clauses, why, entry.candidate_id, (entry.candidate_id,))


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


def _surname_hits(surname: str, pool: list[_Filed]) -> tuple[dict[str, list[tuple[_Filed, int]]], bool]:
    """Filed names with this surname, by candidate; failing any, those it is a minor misspelling of."""
    for fuzzy in (False, True):
        hits: dict[str, list[tuple[_Filed, int]]] = {}
        for entry in pool:
            for i, form in enumerate(entry.forms):
                if form.surname and (form.surname == surname if not fuzzy else close(surname, form.surname)):
                    hits.setdefault(entry.candidate_id, []).append((entry, i))
        if hits:
            return hits, fuzzy
    return {}, False


def _readings(written: str) -> Iterator[PersonName]:
    """Ways to read a name as given names and a surname, the usual one first."""
    person = split_name(written)
    if len(person.surname) < 2:
        return
    yield person
    words = written.split()
    if len(person.given) >= 1 and len(person.given[-1]) > 1:
        # "O'Neal Price" for the filed "O'Neal-Price": two words of one surname.
        yield PersonName(person.given[:-1], person.given[-1] + person.surname.replace(" ", ""))
    if len(words) > 1 and len(words[0]) > 1:
        # "Foster Jenna": the surname written first, without a comma.
        yield PersonName(tuple(words[1:]), words[0])


#: Filed candidates whose names a written name matched: candidate id -> (entry, form index) pairs.
_Hits = dict[str, list[tuple["_Filed", int]]]


def _by_surname(written: str, pool: list[_Filed], contest: Contest, fwab: bool) -> WriteInDecision | None:
    """A name with the surname of a filed candidate: Section 4(5), with 4(4), 4(9), 4(10) and 4(11).

    Section 4(5): "Writing in only the surname of an eligible candidate shall
    constitute a valid vote, unless there is more than one (1) filed candidate
    with the same surname for that office." Candidates on the ballot are filed
    candidates for the office too.

    Section 4(4): "Any minor misspelling of the name of a candidate shall be
    disregarded ... as long as the intended candidate may be clearly
    determined": a surname within `misspelling_allowance` of exactly one
    filed surname means that candidate; of two, a person decides.
    """
    for person in _readings(written):
        hits, fuzzy = _surname_hits(person.surname, pool)
        if hits:
            break
    else:
        return None
    if fuzzy and not person.given and any(person.surname in f.given for e in pool for f in e.forms):
        return None  # exactly a filed given name ("Mark"), not a misspelt surname ("Marks"): see _given_only
    ids = tuple(hits)
    surnames = {e.forms[i].surname for es in hits.values() for e, i in es}
    if fuzzy and len(surnames) > 1:
        return _decision(
            "person_must_decide",
            (K.MISSPELLING,),
            f"{person.surname!r} could be a misspelling of more than one filed surname",
            candidates=ids,
        )
    if not person.given:
        return _surname_only(person, hits, fuzzy, contest, fwab)
    return _with_other_names(person, hits, fuzzy, contest, fwab)


def _surname_only(person: PersonName, hits: _Hits, fuzzy: bool, contest: Contest, fwab: bool) -> WriteInDecision:
    ids = tuple(hits)
    if len(ids) > 1:
        return _decision(
            "not_counted",
            (K.SURNAME,) + ((K.MISSPELLING,) if fuzzy else ()),
            f"more than one filed candidate for this office has the surname {person.surname!r}"
            + (" (misspelt)" if fuzzy else "")
            + ": the surname alone is not a vote (§4(5))",
            candidates=ids,
        )
    entries = hits[ids[0]]
    entry = entries[0][0]
    slate = all(e.running_mate for e, _ in entries)
    clauses = ((K.MISSPELLING,) if fuzzy else ()) + ((_slate_clause(contest),) if slate else (K.SURNAME,))
    why = (
        f"the surname of {entry.name}"
        + (", running mate on the slate" if slate else "")
        + (" (a minor misspelling)" if fuzzy else "")
        + ", the only filed candidate with it"
    )
    return _vote_for(entry, clauses, why, fwab)


def _given_fit(written: tuple[str, ...], filed: tuple[str, ...]) -> int:
    """2: the written given names are the filed ones (in order, first one kept, some left out); 1: with a
    minor misspelling; 0: not the filed names. An initial must match exactly."""

    def fits(tolerant: bool) -> bool:
        j = 0
        for k, w in enumerate(written):
            while j < len(filed) and not (
                w == filed[j] or (tolerant and len(w) > 1 and len(filed[j]) > 1 and close(w, filed[j]))
            ):
                if k == 0:
                    return False  # the first name written must be the first name filed
                j += 1
            if j == len(filed):
                return False
            j += 1
        return True

    if not filed:
        return 0
    return 2 if fits(False) else 1 if fits(True) else 0


def _with_other_names(person: PersonName, hits: _Hits, fuzzy: bool, contest: Contest, fwab: bool) -> WriteInDecision:
    """Given names beside a filed surname.

    Section 4(9): "If the voter writes in any other name along with the surname
    of an eligible write-in candidate, the other name written by the voter
    shall comply with the variations of names listed by the candidate on the
    declaration of intent ... to constitute a valid vote." The given names
    comply when they are those of the filed name or a filed variation, in
    order, keeping the first and perhaps leaving out a middle name or initial
    ("Jenna Foster" for "Jenna L. Foster"), spelt right or with a minor
    misspelling (4(4)). A nickname that is no filed variation ("Tommy
    Whitaker") does not comply.
    """
    fit: dict[str, tuple[int, _Filed, int]] = {}
    for cid, entries in hits.items():
        best = max(((_given_fit(person.given, e.forms[i].given), e, i) for e, i in entries), key=lambda t: t[0])
        if best[0]:
            fit[cid] = best
    chosen = [cid for cid, f in fit.items() if f[0] == 2] or list(fit)
    if len(chosen) > 1:
        return _decision(
            "person_must_decide",
            (K.MISSPELLING,),
            "the name fits more than one filed candidate",
            candidates=tuple(chosen),
        )
    if chosen:
        level, entry, i = fit[chosen[0]]
        slip = fuzzy or level == 1
        base = _slate_clause(contest) if entry.running_mate else K.OTHER_NAME
        filed_as = " ".join(entry.forms[i].given + (entry.forms[i].surname,))
        return _vote_for(
            entry,
            ((K.MISSPELLING,) if slip else ()) + (base,),
            f"the name filed as {filed_as!r} by {entry.name}" + (" (a minor misspelling)" if slip else ""),
            fwab,
        )
    if fwab:
        return _fwab_other_names(person, hits)
    ids = tuple(hits)
    filed_entries = list(dict.fromkeys(entry for es in hits.values() for entry, _ in es))
    if all(e.on_ballot for e in filed_entries):
        return _decision(
            "not_counted",
            (K.ALREADY_ON_BALLOT, K.OTHER_NAME),
            "the surname is that of a candidate already on the ballot for this office (§4(2))",
            candidates=ids,
        )
    filed = "; ".join(
        f"{e.name}: " + ", ".join(repr(f.full) for f in e.forms) for e in filed_entries if not e.on_ballot
    )
    return _decision(
        "not_counted",
        (K.OTHER_NAME,),
        f"the other name written with the surname is not among the filed variations ({filed}) (§4(9))",
        candidates=ids,
    )


def _fwab_other_names(person: PersonName, hits: _Hits) -> WriteInDecision:
    """On an FWAB, Section 4(9) is suspended (31 KAR 5:011 Section 2): other names need not be filed.

    The surname then decides as Section 4(5) says. Where the given name looks
    like no filed form of the candidate's (not even its first letter), or the
    surname is shared, a person decides: the given name is evidence, not proof.
    """
    initial = person.given[0][0]
    ids = tuple(hits)
    alike = tuple(
        cid for cid, es in hits.items() if any(g.startswith(initial) for e, i in es for f in e.forms for g in f.given)
    )
    if len(ids) == 1 and alike:
        entry = hits[ids[0]][0][0]
        clauses = (K.SURNAME, K.FWAB)
        why = (
            f"the surname of {entry.name}, the only filed candidate with it; on a federal write-in absentee "
            "ballot the other names need not be filed variations (31 KAR 5:011 §2 suspends §4(9))"
        )
        return _decision("candidate", clauses, why, entry.candidate_id, ids)
    if len(ids) == 1:
        return _decision(
            "person_must_decide",
            (K.FWAB, K.SURNAME),
            f"the surname is that of {hits[ids[0]][0][0].name}, but {' '.join(person.given)!r} looks "
            "like none of their filed names",
            candidates=ids,
        )
    return _decision(
        "person_must_decide",
        (K.FWAB, K.SURNAME),
        f"more than one filed candidate has the surname {person.surname!r}; on a federal write-in "
        f"absentee ballot the given name {' '.join(person.given)!r} need not be a filed variation and "
        "may show which one is meant",
        candidates=alike or ids,
    )


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
