"""Text a clerk reads after a batch (`format_summary`) and for a whole store (`format_status`)."""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Mapping

from ..core.vocabulary import SEVERAL_REASONS_NOTE, reason_counts_words, reason_words
from ..election import Election
from ..store.base import BatchCounts
from .pipeline import RunSummary
from .vanish import BatchWarning


def _reasons(by_reason: Mapping[tuple[str, str], int], status: str) -> str:
    items = sorted(((code, n) for (st, code), n in by_reason.items() if st == status), key=lambda x: (-x[1], x[0]))
    return reason_counts_words(items)


def _shorten(paths: Iterable[str], limit: int = 5) -> str:
    paths = list(paths)
    text = ", ".join(paths[:limit])
    return text + (f" and {len(paths) - limit} more" if len(paths) > limit else "")


def format_summary(s: RunSummary) -> str:
    """The end-of-run summary: every sheet read, and where each went."""
    b = s.batch
    rate = s.sheets_read / s.seconds if s.seconds > 0 else 0.0
    head = f"Batch {b.name!r} ({b.vote_type}" + (f", precinct {b.precinct_id}" if b.precinct_id else "") + ")"
    lines = [head, f"  sheets read       {s.sheets_read:6d}   in {s.seconds:.1f} s ({rate:.1f} sheets/s)"]
    rows = (
        ("counted", s.counted, ""),
        ("needs review", s.needs_review, _reasons(s.by_reason, "needs_review")),
        ("rejected", s.rejected, _reasons(s.by_reason, "rejected")),
        ("duplicates", s.duplicate, _reasons(s.by_reason, "duplicate")),
        ("already in store", s.already, "recorded by an earlier run" if s.already else ""),
    )
    for label, n, detail in rows:
        lines.append(f"  {label:<17} {n:6d}" + (f"   {detail}" if detail else ""))
    check = "=" if s.balanced else "!="
    lines.append(
        f"  accounted for: {s.counted} + {s.needs_review} + {s.rejected} + {s.duplicate} + {s.already} "
        f"{check} {s.sheets_read}"
    )
    if s.totals is not None:
        t = s.totals
        lines.append(
            f"  batch in store: {t.sheets} sheets ({t.counted} counted, {t.needs_review} needs review, "
            f"{t.rejected} rejected, {t.duplicate} duplicates)"
        )
    if s.ignored:
        lines.append(f"  ignored (not image files): {_shorten(s.ignored)}")
    if s.waiting:
        lines.append(f"  waiting for their other side (not recorded; the batch stays open): {_shorten(s.waiting)}")
    return "\n".join(lines)


def format_warnings(warnings: Iterable[BatchWarning]) -> str:
    """One ``WARNING`` line per batch-level warning (empty text when there is none)."""
    return "\n".join(f"  WARNING [{w.code}]: {w.message}" for w in warnings)


def _totals(counts: Iterable[BatchCounts]) -> tuple[Counter, Counter]:
    status, reasons = Counter(), Counter()
    for c in counts:
        status.update(counted=c.counted, needs_review=c.needs_review, rejected=c.rejected, duplicate=c.duplicate)
        reasons.update(c.by_reason)
    return status, reasons


def status_dict(
    path: str,
    election: Election | None,
    counts: list[BatchCounts],
    events: int | None,
    chain_error: str | None,
    head: tuple[int, str] | None = None,
    warnings: Iterable[BatchWarning] = (),
) -> dict:
    """`format_status` as JSON-ready data."""
    status, reasons = _totals(counts)
    by_batch: dict[str, list[dict]] = {}
    for w in warnings:
        by_batch.setdefault(w.batch, []).append({"code": w.code, "message": w.message})
    return {
        "store": path,
        "election": None if election is None else {"title": election.title, "hash": election.hash},
        "batches": [
            {
                "name": c.batch.name,
                "vote_type": c.batch.vote_type,
                "precinct_id": c.batch.precinct_id,
                "operator": c.batch.operator,
                "tabulator": c.batch.tabulator,
                "started_at": c.batch.started_at,
                "ended_at": c.batch.ended_at,
                "sheets": c.sheets,
                "counted": c.counted,
                "needs_review": c.needs_review,
                "rejected": c.rejected,
                "duplicate": c.duplicate,
                "decided": c.decided,
                "reasons": [
                    {"status": st, "code": code, "words": reason_words(code), "sheets": n}
                    for (st, code), n in sorted(c.by_reason.items())
                ],
                "warnings": by_batch.get(c.batch.name, []),
            }
            for c in counts
        ],
        "totals": {
            "sheets": sum(status.values()),
            **{k: status[k] for k in ("counted", "needs_review", "rejected", "duplicate")},
            "decided": sum(c.decided for c in counts),
        },
        "reasons_note": SEVERAL_REASONS_NOTE,
        "event_log": {"entries": events, "intact": chain_error is None, "error": chain_error},
        "journal": {
            "entries": events,
            "intact": chain_error is None,
            "error": chain_error,
            "head_entry": head[0] if head else None,
            "head_hash": head[1] if head else None,
        },
    }


def format_status(
    path: str,
    election: Election | None,
    counts: list[BatchCounts],
    events: int | None,
    chain_error: str | None,
    journal_head: tuple[int, str] | None = None,
    warnings: Iterable[BatchWarning] = (),
) -> str:
    """The store's batches as a table, the review queue and set-aside sheets by reason, the log's state."""
    lines = [f"Store {path}"]
    lines.append(f"  election: {election.title} (hash {election.hash[:12]})" if election else "  election: none yet")
    if not counts:
        lines.append("  no batches yet")
    else:
        head = (
            f"  {'batch':<16} {'vote type':<28} {'precinct':<10} {'sheets':>7} {'counted':>8} "
            f"{'review':>7} {'rejected':>9} {'dup':>5}  state"
        )
        lines += ["", head]
        for c in counts:
            b = c.batch
            state = "done" if b.ended_at else "open (interrupted? run the scan again)"
            lines.append(
                f"  {b.name:<16} {b.vote_type:<28} {b.precinct_id or '-':<10} {c.sheets:7d} "
                f"{c.counted:8d} {c.needs_review:7d} {c.rejected:9d} {c.duplicate:5d}  {state}"
            )
        status, reasons = _totals(counts)
        lines.append(
            f"  {'total':<56} {sum(status.values()):7d} {status['counted']:8d} "
            f"{status['needs_review']:7d} {status['rejected']:9d} {status['duplicate']:5d}"
        )
        decided = sum(c.decided for c in counts)
        if decided:
            lines.append(f"  counted includes {decided} sheet(s) decided by people (review or entry by hand)")
        lines.append("")
        lines.append(f"  by reason, in {SEVERAL_REASONS_NOTE}:")
        lines.append("  review queue: " + (_reasons(reasons, "needs_review") or "empty"))
        lines.append("  set aside:    " + (_reasons(reasons, "rejected") or "none"))
        text = format_warnings(warnings)
        if text:
            lines.append(text)
    lines.append(
        "  journal:      "
        + (f"{events} entries, hash chain intact" if chain_error is None else f"BROKEN: {chain_error}")
    )
    if journal_head is not None:
        # Published (a notice, the minutes), the head lets `tabulate verify --from-head` catch a truncation later.
        lines.append(
            f"  head:         entry {journal_head[0]} {journal_head[1]}  (publish this; `tabulate verify` checks rows)"
        )
    return "\n".join(lines)
