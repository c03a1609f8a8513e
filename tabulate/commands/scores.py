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
        help="the template set the sheets were read with (its thresholds; default the election's)",
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
        groups = scores_from_evidence((store.evidence(s.id) or {} for s in store.sheets(batch_id=batch_id)), args.by)
    finally:
        store.close()
    th = election.thresholds
    marginal, definite = th.marginal, th.definite
    if args.templates is not None:
        from .templates import reader_for

        t = reader_for(args.templates).thresholds
        marginal, definite = t.marginal, t.definite
    args.out.write_bytes(histogram_png(groups, marginal, definite))
    n = sum(len(v) for v in groups.values())
    print(f"wrote {args.out}: {n} target scores in {len(groups)} groups; thresholds {marginal:.3f} / {definite:.3f}")
    return 0
