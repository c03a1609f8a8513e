"""The template sets a store's journal records: which layout each template-set page was read with.

``tabulate scan --templates DIR`` writes the set's document into the
journal once (`JOURNAL_KIND`, hash-chained like every entry), and every
page it reads names the set by digest (`tabulate.detect.PageReading.template_set`).
So the review app's crops, ``explain``, the audit's pictures and ``scores``
find the template page a sheet was read with in the store itself: no
``--templates`` again, and a moved or edited set folder cannot change what
a recorded page meant.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from ..election.layout import PageLayout
from .model import JOURNAL_KIND, TemplateError, TemplateSet, set_from_journal


def recorded_sets(journal: Iterable[Any]) -> dict[str, TemplateSet]:
    """Every template set recorded in ``journal`` (a store's `journal()` entries), by digest."""
    out: dict[str, TemplateSet] = {}
    for entry in journal:
        if entry.kind != JOURNAL_KIND or not isinstance(entry.data, Mapping):
            continue
        digest = entry.data.get("sha256")
        if isinstance(digest, str) and digest not in out:
            try:
                out[digest] = set_from_journal(entry.data)
            except (TemplateError, KeyError, TypeError, ValueError):
                continue  # an entry we cannot read names no set; its pages say so when asked
    return out


def style_pages(tset: TemplateSet, style_id: str) -> tuple[PageLayout, ...]:
    """The set's page layouts of one style, front first."""
    return tuple(p.layout for p in sorted(tset.pages, key=lambda p: p.page) if p.style_id == style_id)
