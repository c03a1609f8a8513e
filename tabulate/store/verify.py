"""Prove a count from its store: the journal's chain, every sealed row, and the rules re-applied.

`verify_store` is the one verifier. It checks, in order, and stops at the
first problem, which it names in one line:

1. the journal's hash chain and every entry's signature (from the first
   station registered on, each entry is signed by a registered station:
   `tabulate.store.journal_signing`), and, given ``from_head``, that the journal
   still holds a head published earlier (truncation and rewritten tails);
2. that every row a result depends on matches the entry that sealed it, and
   that no such row exists unsealed: the store's own rows (`Store.facts`) and
   the rows of the layers above it, passed in as ``more_facts`` (adjudication's
   decisions), so each owner answers for its rows without the store knowing
   their tables;
3. unless ``fast``, that re-applying 31 KAR 6:030 (`tabulate.rules.apply_rules`)
   to each live sheet's stored marks gives its stored votes.

Every report verifies in the fast mode (1 and 2) before it counts anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Sequence

from ..rules import MarksError, apply_rules
from .base import LIVE_STATUSES, Store, StoredSheet
from .journal import ChainCheck, bound_facts, first_broken_fact
from .records import marks_from_json

#: The fact key prefixes the store answers for.
STORE_FACTS = ("election", "batch:", "sheet:")


@dataclass(frozen=True)
class FactSource:
    """Rows sealed by a layer above the store: the key prefixes it owns and its current digests."""

    prefixes: tuple[str, ...]
    facts: Callable[[], Iterable[tuple[str, str]]]
    #: Turns a fact key into words a clerk can find (``decision 4 (sheet 12)``).
    describe: Callable[[str], str] = str


@dataclass(frozen=True)
class Verified:
    """The outcome: ``ok``, the journal's size and head, and otherwise the first problem in one line."""

    ok: bool
    entries: int
    head_seq: int
    head_hash: str
    problem: str = ""
    sheets_checked: int = 0
    #: The chain check itself: who signed (``signed_from``, ``stations``), or None when not run.
    chain: ChainCheck | None = None

    @property
    def unsigned_warning(self) -> str:
        """One line when the journal registers no station, so nothing in it is signed (empty otherwise)."""
        if self.chain is None or self.chain.signed_from is not None or not self.entries:
            return ""
        return (
            f"warning: the journal's {self.entries} entries are unsigned (no station key is registered in this "
            "store), so someone who can write the database could have added entries that chain; see "
            "docs/security.md (tabulate keys register)"
        )


def describe_store_fact(store: Store, key: str) -> str:
    """``sheet:12`` -> ``sheet 12 (batch 'b1' #3)`` where the row still says where the paper is."""
    kind, _, ident = key.partition(":")
    if kind == "sheet" and ident.isdigit():
        try:
            return f"sheet {ident} ({store.sheet(int(ident)).label})"
        except (KeyError, ValueError, TypeError, AttributeError):
            return f"sheet {ident}"
    return f"{kind} {ident}".strip()


def _rules_problem(store: Store, sheets: Iterator[StoredSheet]) -> tuple[str | None, int]:
    """Re-apply the rules to every live sheet's marks; the first whose votes differ, and how many were checked."""
    election = store.election()
    n = 0
    for sheet in sheets:
        if sheet.status not in LIVE_STATUSES or sheet.interpreted is None or not sheet.marks:
            continue
        n += 1
        try:
            again = apply_rules(
                election, marks_from_json(sheet.marks, sheet.ballot_id, sheet.style_id or "", sheet.precinct_id)
            )
        except (MarksError, KeyError, ValueError) as e:
            return f"sheet {sheet.id} ({sheet.label}): its stored marks cannot be re-read by the rules: {e}", n
        if tuple(again.contests) != tuple(sheet.interpreted.contests):
            for a, b in zip(again.contests, sheet.interpreted.contests):
                if a != b:
                    return (
                        f"sheet {sheet.id} ({sheet.label}): re-applying the rules to its marks gives "
                        f"{a.status} {list(a.selections)} in {a.contest_id}, the store holds "
                        f"{b.status} {list(b.selections)}"
                    ), n
            return f"sheet {sheet.id} ({sheet.label}): re-applying the rules gives other contests", n
    return None, n


def head_problem(store: Store, seq: int, digest: str, what: str) -> str | None:
    """Whether the journal still holds entry ``seq`` with hash ``digest``, the head ``what`` (a signed export)
    was made from: a truncated journal, or an older copy of the whole store, ends before it."""
    last = 0
    for entry in store.journal():
        last = entry.seq
        if entry.seq == seq:
            if entry.hash != digest:
                return (
                    f"journal entry {seq} is not the head {what} was made from ({digest[:16]}...): "
                    "the journal was rewritten from there"
                )
            return None
    return (
        f"the store is older than {what}, which was made at journal entry {seq}: its journal ends at entry "
        f"{last} (truncated, or an older copy of the store)"
    )


def verify_store(
    store: Store,
    *,
    from_head: str | None = None,
    more_facts: Sequence[FactSource] = (),
    fast: bool = False,
    county_key: str | None = None,
    against: tuple[int, str, str] | None = None,
) -> Verified:
    """Check the store's journal, its sealed rows and (unless ``fast``) its votes; see the module docstring."""
    chain = store.verify_journal(from_head=from_head, county_key=county_key)
    if not chain.ok:
        return Verified(False, chain.entries, chain.head_seq, chain.head_hash, chain.problem, chain=chain)

    def fail(problem: str, sheets: int = 0) -> Verified:
        return Verified(False, chain.entries, chain.head_seq, chain.head_hash, problem, sheets, chain)

    if against is not None:
        problem = head_problem(store, *against)
        if problem is not None:
            return fail(problem)

    bound = bound_facts(store.journal())
    broken = first_broken_fact(bound, dict(store.facts()), STORE_FACTS)
    if broken is not None:
        return fail(f"{describe_store_fact(store, broken[0])} {broken[1]}")
    for source in more_facts:
        broken = first_broken_fact(bound, dict(source.facts()), source.prefixes)
        if broken is not None:
            return fail(f"{source.describe(broken[0])} {broken[1]}")
    if fast:
        return Verified(True, chain.entries, chain.head_seq, chain.head_hash, chain=chain)
    problem, n = _rules_problem(store, store.sheets())
    if problem is not None:
        return fail(problem, n)
    return Verified(True, chain.entries, chain.head_seq, chain.head_hash, sheets_checked=n, chain=chain)
