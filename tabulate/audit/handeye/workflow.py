"""The steps of a hand-to-eye audit, each checked and logged: select, tally, tape, determine, sign, annotate.

The command line (`tabulate audit ...`) and the review app's audit pages both
call these, so the rules hold whichever is used.
"""

from __future__ import annotations

from typing import Mapping

from ...store import Store
from ...store.sqldb import Connection
from . import book
from .selection import Selection, select_announced, select_by_seed
from .tallies import Attempt, TallyEntry, TallyError, check_counter, current_attempt, matched_tally, parse_counts
from .workbench import audit_pool, prediction_for


def start_audit(
    store: Store,
    conn: Connection,
    *,
    actor: str,
    seed: str | None = None,
    tabulator: str | None = None,
    contest_id: str | None = None,
) -> tuple[book.Audit, Selection]:
    """Draw the scanner and race from ``seed``, or record the announced ``tabulator`` and ``contest_id``.

    The selection, the seed, the lists it chose from and the prediction made
    from the store at this moment are stored and logged.
    """
    pool = audit_pool(store, conn)
    if seed is not None:
        selection = select_by_seed(pool, seed)
    elif tabulator is not None and contest_id is not None:
        selection = select_announced(pool, tabulator, contest_id)
    else:
        raise TallyError("give --seed, or both --tabulator and --contest")
    prediction = prediction_for(store, conn, selection.tabulator, selection.contest_id)
    audit = book.create_audit(conn, actor, selection.to_dict(), prediction.to_dict())
    return audit, selection


def enter_tally(
    store: Store,
    conn: Connection,
    audit_id: int,
    *,
    counter: str,
    party: str,
    counts: Mapping[str, int] | list[tuple[str, str]],
    actor: str,
) -> Attempt:
    """Record one counter's tally in the current attempt and return the attempt as it now stands.

    A new attempt starts when the last one is complete and did not match: the
    pile is recounted and both counters enter again. Once two tallies match,
    no more are taken.
    """
    audit = book.get_audit(conn, audit_id)
    election = store.election()
    contest = election.contest(audit.contest_id)
    entries = book.tallies(conn, audit_id)
    done = matched_tally(entries)
    if done is not None:
        raise TallyError(f"the tallies of attempt {done.number} already match; nothing more to enter")
    attempt = current_attempt(entries)
    party_id = check_counter(election, attempt, counter, party)
    if not isinstance(counts, Mapping):
        counts = parse_counts(contest, counts)
    else:
        counts = parse_counts(contest, [(k, str(v)) for k, v in counts.items()])
    entry = TallyEntry(attempt.number, " ".join(counter.split()), party_id, counts, book.now(), actor)
    book.add_tally(conn, audit_id, entry, actor=actor)
    now = Attempt(attempt.number, attempt.entries + (entry,))
    if now.complete:
        book.log_attempt_outcome(conn, audit_id, now.number, now.differences, actor=actor)
    return now


def sign(store: Store, conn: Connection, audit_id: int, *, member: str, party: str, actor: str) -> None:
    """A board member signs the findings; from the first signature the audit can only be annotated."""
    if matched_tally(book.tallies(conn, audit_id)) is None:
        raise book.AuditError("the two tallies have not matched yet: there is nothing to sign")
    book.add_finding(
        conn, audit_id, "signature", member, "signed the determinations and findings", party=party, actor=actor
    )
