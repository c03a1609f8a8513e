"""A written name with the surname of a filed candidate: 31 KAR 6:030 Section 4(4), 4(5), 4(9), 4(10) and 4(11).

With the FWAB exception of 31 KAR 5:011 Section 2 (Section 4(9) suspended).
`tabulate.rules._write_in.resolve_write_in` tries this after the exact name
and the initials.
"""

from __future__ import annotations

from typing import Iterator

from ..election import Contest
from . import clauses as K
from ._names import PersonName, close, split_name
from ._write_in_decision import WriteInDecision, _decision, _Filed, _slate_clause, _vote_for


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
