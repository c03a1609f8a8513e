"""``tabulate verify``: prove a count from its store, and the check every report runs first.

``tabulate verify --db F`` checks the journal's chain, every sealed row
(sheets, batches, the election, adjudication's decisions), re-applies the
rules to the stored marks and each decision's entry, and with ``--images``
re-reads every image (a recount from the evidence). The chain's check
includes every entry's signature (`tabulate.store.journal_signing`).
``--from-head HASH`` proves the store extends a head published earlier,
``--against MANIFEST`` the head a signed export was made from (a truncated
journal or an older copy of the store ends before it), and ``--county-key``
pins the key that registered the stations to the county's published one.
It exits 1 and names the first bad fact in one line; 0 prints the head to
publish (and warns, on stderr, when no station signs the journal).

`gate` is what every report and export calls before counting: the fast
check (chain, signatures and sealed rows), refusing a broken store in one line (exit 2)
unless ``--unverified`` is given, which the report then says on itself.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from .errors import UsageError
from .templates import add_moved_set_option


@dataclass(frozen=True)
class Gate:
    """What the reports were told about the store: verified, or overridden with the problem found."""

    verified: bool
    head_seq: int
    head_hash: str
    problem: str = ""

    @property
    def banner(self) -> str:
        """One line for a report made from a store that did not verify (empty when it did)."""
        if self.verified:
            return ""
        return f"UNVERIFIED: made with --unverified from a store that does not verify: {self.problem}"


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "verify",
        help="prove the count: the journal, every sealed row, the rules re-applied (--images: re-read)",
        description="Check the store's journal and every row the results depend on; re-apply the rules to the "
        "stored marks and decisions; with --images re-read every image. Exit 1 naming the first "
        "bad fact.",
    )
    p.add_argument("--db", required=True, metavar="FILE", help="the store written by `tabulate scan`")
    p.add_argument("--images", action="store_true", help="also re-read every image (a recount from the evidence)")
    p.add_argument("--from-head", metavar="HASH", help="a head hash published earlier that the journal must hold")
    p.add_argument(
        "--against",
        type=Path,
        metavar="MANIFEST",
        help="an export's signed manifest (F.manifest.json) kept by the board: the store must still hold the "
        "journal head it was made from (catches a truncated journal or an older copy of the store)",
    )
    p.add_argument(
        "--county-key",
        type=Path,
        metavar="county.pub",
        help="the county's published public key: the stations must be registered by it, and --against's "
        "manifest signed by it",
    )
    add_moved_set_option(p, when=", for --images")
    p.add_argument(
        "--fast", action="store_true", help="only the chain, its signatures and the sealed rows (what reports run)"
    )
    p.set_defaults(func=run_verify)


def _open(db: str):
    from ..adjudicate.schema import connect
    from ..store import StoreError, open_store

    try:
        store = open_store(db, create=False)
        if store.election() is None:
            store.close()
            raise UsageError(f"{db} holds no election yet; scan a batch first")
    except StoreError as e:
        raise UsageError(str(e)) from None
    try:
        return store, connect(db)
    except StoreError as e:
        store.close()
        raise UsageError(str(e)) from None


def check(
    store,
    conn,
    *,
    fast: bool,
    from_head: str | None = None,
    county_key: str | None = None,
    against: tuple[int, str, str] | None = None,
):
    """`tabulate.store.verify.verify_store` with adjudication's decisions (and, not fast, the hand-to-eye
    audit's rows), then (not fast) the decisions re-derived."""
    from dataclasses import replace

    from ..adjudicate.proof import check_decisions, check_modifications, decision_facts_source, user_facts_source
    from ..adjudicate.source import StoreSource
    from ..audit.handeye.sealing import handeye_fact_source
    from ..store.verify import verify_store

    sources = [decision_facts_source(conn)]
    if not fast:
        # The accounts (the way into the review app) and the hand-to-eye audit's rows (the check on
        # the count): no result reads them, so the reports' fast gate leaves them out and a full
        # `verify` names an edited role, party, password hash, tally, tape or finding.
        sources += [user_facts_source(conn), handeye_fact_source(conn)]
    try:
        result = verify_store(
            store, from_head=from_head, more_facts=sources, fast=fast, county_key=county_key, against=against
        )
    except ValueError as e:
        raise UsageError(str(e)) from None
    if result.ok and not fast:
        problem = check_decisions(conn, StoreSource(store)) or check_modifications(conn, store)
        if problem is not None:
            result = replace(result, ok=False, problem=problem)
    return result


def gate(db: str, *, unverified: bool) -> Gate:
    """Verify ``db`` (fast) before a report; refuse in one line unless ``unverified``."""
    store, conn = _open(db)
    try:
        result = check(store, conn, fast=True)
    finally:
        conn.close()
        store.close()
    if result.ok:
        return Gate(True, result.head_seq, result.head_hash)
    if not unverified:
        raise UsageError(
            f"{db} does not verify, so no report is made from it: {result.problem} "
            "(see `tabulate verify`; --unverified overrides and says so on the report)"
        )
    print(
        f"tabulate: WARNING: {db} does not verify ({result.problem}); reporting anyway (--unverified)", file=sys.stderr
    )
    return Gate(False, result.head_seq, result.head_hash, result.problem)


def _county_key(args: argparse.Namespace) -> str | None:
    from ..core.keys import KeyFileError, load_public_key

    try:
        return load_public_key(args.county_key) if args.county_key else None
    except KeyFileError as e:
        raise UsageError(str(e)) from None


def _signed_export(path: Path, county: str | None, store) -> tuple[int, str, str]:
    """The head a signed export's manifest names, as ``(entry, hash, what)``, once its signature checks out
    against the county's key (given, else the one that registered the store's stations)."""
    from ..report.manifest import ManifestError, read_manifest, signed_head

    expected = county or store.journal_registry().county_key
    try:
        check_, doc = read_manifest(path, public_key_hex=expected)
        if not check_.ok:
            raise UsageError(f"--against: {check_.problem}")
        seq, digest = signed_head(doc)
    except ManifestError as e:
        raise UsageError(f"--against: {e}") from None
    if expected is None:
        print(
            f"tabulate: note: {path.name} is signed by the key inside it ({check_.signed_by[:16]}...); "
            "give --county-key county.pub to check that it is the county's",
            file=sys.stderr,
        )
    files = ", ".join(f.get("name", "?") for f in doc.get("files", [])) or path.name
    return seq, digest, f"the signed export {files}"


def run_verify(args: argparse.Namespace) -> int:
    county = _county_key(args)
    store, conn = _open(args.db)
    try:
        against = _signed_export(args.against, county, store) if args.against else None
        result = check(store, conn, fast=args.fast, from_head=args.from_head, county_key=county, against=against)
        since = _since_head(store, args.from_head) if result.ok and args.from_head else None
        if result.ok and against is not None:
            since = _since_head(store, against[1], f"since {against[2]} (entry {against[0]})")
        if result.ok and args.images:
            from ..central.recorded import TemplateSetMissing, template_interpreters
            from ..central.reread import reread_problem

            try:  # sheets scanned with a template set are read again with it (issue #11)
                readers = template_interpreters(store, [s.id for s in store.sheets()], args.templates)
            except TemplateSetMissing as e:
                raise UsageError(str(e)) from None
            problem, n = reread_problem(store, interpreters=readers)
            if problem is not None:
                print(f"tabulate: verify failed: {problem}", file=sys.stderr)
                return 1
            print(f"re-read {n} sheets from their images: every reading matches the store")
    finally:
        conn.close()
        store.close()
    if not result.ok:
        print(f"tabulate: verify failed: {result.problem}", file=sys.stderr)
        return 1
    what = (
        "chain, signatures and sealed rows"
        if args.fast
        else (f"chain, signatures, sealed rows, rules re-applied to {result.sheets_checked} sheets and every decision")
    )
    print(f"verified {args.db}: {what}")
    print(f"journal: {result.entries} entries, head {result.head_seq} {result.head_hash}")
    if result.chain is not None and result.chain.signed_from is not None:
        print(_signatures(result))
    if since is not None:
        print(since)
    if result.unsigned_warning:
        print(f"tabulate: {result.unsigned_warning}", file=sys.stderr)
    return 0


def _signatures(result) -> str:
    """Who signed the journal, in one line."""
    chain = result.chain
    before = (
        f"; entries 1-{chain.signed_from - 1} were written before it, vouched for by its county signature"
        if chain.unsigned_before
        else ""
    )
    return (
        f"signatures: every entry from {chain.signed_from} on is signed by a station the county key "
        f"{chain.county_key[:16]}... registered ({', '.join(chain.stations)}) or by the county key{before}"
    )


def _since_head(store, head: str, label: str = "") -> str:
    """What was added after a published head, by kind: the head proves nothing was lost, not that
    nothing was added (extending the chain needs no secret), so the board reads what was."""
    from collections import Counter

    kinds: Counter = Counter()
    seen = None
    for entry in store.journal():
        if seen is not None:
            kinds[entry.kind] += 1
        elif entry.hash == head:
            seen = entry.seq
    label = label or f"since the published head (entry {seen})"
    if not kinds:
        return f"{label}: nothing added"
    added = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
    total = sum(kinds.values())
    return (
        f"{label}: {total} {'entry' if total == 1 else 'entries'} added ({added}); "
        f"read them on the review app's log page (/admin/log) before certifying"
    )
