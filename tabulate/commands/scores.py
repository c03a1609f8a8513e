"""``tabulate scores``: the fill-score histogram of a store's sheets, with the thresholds (issue #11)."""

from __future__ import annotations

from pathlib import Path

from .errors import UsageError


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "scores",
        help="histogram of fill scores per template or contest, thresholds drawn",
        description="Draw every target's fill score from the store's readings, per ballot "
        "style and page (or per contest), with the marginal and definite "
        "thresholds: the gap between marks and blanks before trusting a "
        "new ballot design.",
    )
    p.add_argument("--db", required=True, metavar="FILE", help="the store written by `tabulate scan`")
    p.add_argument("--batch", metavar="NAME", help="one batch (default: every batch)")
    p.add_argument("--by", choices=("template", "contest"), default="template", help="group by (default template)")
    p.add_argument(
        "--templates",
        type=Path,
        metavar="DIR",
        help="a template set whose thresholds to draw (default: the set the store records the sheets were "
        "read with, else the election's)",
    )
    p.add_argument("--out", required=True, type=Path, metavar="PNG", help="the picture to write")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..report.scores import histogram_png, scores_from_evidence
    from ..store import StoreError, open_store

    try:
        store = open_store(str(args.db), create=False)
    except StoreError as e:
        raise UsageError(str(e)) from None
    try:
        election = store.election()
        batch_id = None
        if args.batch is not None:
            match = [b for b in store.batches() if b.name == args.batch]
            if not match:
                raise UsageError(f"no batch {args.batch!r} in {args.db}")
            batch_id = match[0].id
        evidence = [store.evidence(s.id) or {} for s in store.sheets(batch_id=batch_id)]
        groups = scores_from_evidence(evidence, args.by)
        recorded = _recorded_thresholds(store, evidence)
    finally:
        store.close()
    th = election.thresholds
    marginal, definite, whose = th.marginal, th.definite, "the election's"
    if recorded is not None:
        marginal, definite, whose = recorded
    if args.templates is not None:
        from .templates import reader_for

        t = reader_for(args.templates).thresholds
        marginal, definite, whose = t.marginal, t.definite, f"those of {args.templates}"
    args.out.write_bytes(histogram_png(groups, marginal, definite))
    n = sum(len(v) for v in groups.values())
    print(
        f"wrote {args.out}: {n} target scores in {len(groups)} groups; thresholds {marginal:.3f} / {definite:.3f} ({whose})"
    )
    return 0


def _recorded_thresholds(store, evidence: list[dict]) -> tuple[float, float, str] | None:
    """The thresholds of the one template set the sheets were read with, as the store's journal
    records it (`tabulate scan --templates`); None for our own ballots or a mix."""
    from ..report.scores import scores_by_reader
    from ..templates import JOURNAL_KIND, recorded_sets

    readers = list(scores_by_reader(evidence))
    if len(readers) != 1 or readers[0] is None:
        return None
    tset = recorded_sets(e for e in store.journal() if e.kind == JOURNAL_KIND).get(readers[0])
    if tset is None:
        return None
    return tset.marginal, tset.definite, f"template set {tset.digest[:12]}, as the store records it"
