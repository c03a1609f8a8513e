"""The fill-score histogram: marks and blanks per template (or contest), with the thresholds drawn on it.

Before trusting a new ballot design a clerk looks at the gap between the
blank targets (scores near 0) and the marks (near 1): every target whose
score falls between the marginal and definite thresholds goes to a person.
Drawn with matplotlib's Agg backend (no display needed), on a log count
axis so the few marks between the thresholds stay visible beside thousands
of blanks. Same readings in, same PNG bytes out (no date in the file).
"""

from __future__ import annotations

import io
from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable

import numpy as np

BINS = np.linspace(0.0, 1.0, 101)


def scores_from_evidence(evidence: Iterable[dict], by: str = "template") -> dict[str, list[float]]:
    """Scores grouped by ``template`` (style and page) or ``contest``, from sheets' evidence
    (`tabulate.detect.SheetReading.to_dict`); rejected pages are left out."""
    merged: dict[str, list[float]] = defaultdict(list)
    for groups in scores_by_reader(evidence, by).values():
        for key, scores in groups.items():
            merged[key].extend(scores)
    return dict(sorted(merged.items()))


def scores_by_reader(evidence: Iterable[dict], by: str = "template") -> dict[str | None, dict[str, list[float]]]:
    """`scores_from_evidence` per layout the pages were read with: the template set's digest
    (``template_set`` in a page's evidence), or None for our own ballots. Each reader has its own
    thresholds, so each gets its own picture."""
    readers: dict[str | None, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for sheet in evidence:
        for page in sheet.get("pages", ()):
            if not page.get("ok"):
                continue
            code = page.get("style_code") or {}
            groups = readers[page.get("template_set")]
            for t in page.get("targets", ()):
                key = f"style {code.get('style_id')} page {code.get('page')}" if by == "template" else t["contest_id"]
                groups[key].append(float(t["score"]))
    return {
        r: dict(sorted(g.items())) for r, g in sorted(readers.items(), key=lambda kv: (kv[0] is not None, kv[0] or ""))
    }


@dataclass(frozen=True)
class ScoreRow:
    """One group's targets on either side of the thresholds: the histogram as a table (accessibility)."""

    group: str
    targets: int
    below_marginal: int
    between: int
    definite: int


def score_rows(groups: dict[str, list[float]], marginal: float, definite: float) -> list[ScoreRow]:
    """Per group: below ``marginal`` (unmarked), between the thresholds (a person looks), at or above
    ``definite`` (marked) - the same cuts as `tabulate.detect.classify`."""
    rows = []
    for key, scores in groups.items():
        a = np.asarray(scores, dtype=np.float64)
        rows.append(
            ScoreRow(
                key,
                len(a),
                int((a < marginal).sum()),
                int(((a >= marginal) & (a < definite)).sum()),
                int((a >= definite).sum()),
            )
        )
    return rows


def histogram_png(groups: dict[str, list[float]], marginal: float, definite: float, *, title: str = "") -> bytes:
    """The histogram of every group's fill scores, thresholds marked, as PNG bytes."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4.8), dpi=100)
    try:
        if groups:
            ax.hist(list(groups.values()), bins=BINS, stacked=True, label=list(groups), log=True)
        ax.axvspan(marginal, definite, color="orange", alpha=0.12, lw=0)
        ax.axvline(marginal, color="orange", ls="--", lw=1.5, label=f"marginal {marginal:.3f}")
        ax.axvline(definite, color="green", ls="-", lw=1.5, label=f"definite {definite:.3f}")
        n = sum(len(v) for v in groups.values())
        between = sum(marginal <= s < definite for v in groups.values() for s in v)
        ax.set_xlabel("fill score (0 = paper, 1 = ink)")
        ax.set_ylabel("targets (log scale)")
        ax.set_xlim(0, 1)
        ax.set_title(title or f"{n} targets; {between} between the thresholds go to a person")
        ax.legend(fontsize=7, loc="upper center", ncol=2)
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png", metadata={"Software": None})
        return buf.getvalue()
    finally:
        plt.close(fig)
