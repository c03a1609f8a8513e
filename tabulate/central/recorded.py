"""Read a stored sheet again with the reader it was scanned with: ours, or its template set (issue #11).

A recount (`tabulate recount`) and ``tabulate verify --images`` re-read the
stored images. A sheet read with a template set must be read again with
that set: our own reader finds no corner squares on a county's ballot and
would set every one aside as damaged. Each page's evidence names the set by
digest, and the journal records the set and the folder it was read from
(`tabulate.templates.recorded`). The folder is used when it still holds the
very same set (same digest); a set moved elsewhere is given again with
``--templates DIR``, and a set that cannot be found stops the re-reading
with one line naming it - never a silent fall back to our layout.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Mapping

from ..core.errors import TabulateError
from .interpret import Interpreter, TemplateInterpreter


class TemplateSetMissing(TabulateError):
    """Sheets were read with a template set whose folder is not at hand."""

    code = "template_set_missing"


def _digest_of(folder: str) -> str | None:
    from ..templates import TemplateError, load_set

    try:
        return load_set(folder).digest
    except (TemplateError, OSError, KeyError, ValueError, TypeError):
        return None


def _sheet_sets(store, sheet_ids: Iterable[int]) -> dict[int, str]:
    out = {}
    for sid in sheet_ids:
        evidence = store.evidence(sid) or {}
        digest = next((p.get("template_set") for p in evidence.get("pages", ()) if p.get("template_set")), None)
        if digest:
            out[sid] = digest
    return out


def template_interpreters(
    store, sheet_ids: Iterable[int], folders: Iterable[str | Path] = ()
) -> Mapping[int, Interpreter]:
    """For each of ``sheet_ids`` read with a template set, the interpreter that reads it with that set.

    ``folders`` (``--templates DIR``) are tried first, then the folder the journal recorded at scan time.
    Raises `TemplateSetMissing` naming a set neither holds, and `TemplatesWrongElection` for a set imported
    for another election than the store's (`tabulate.templates.bound`; a store scanned before that check).
    """
    from ..templates import JOURNAL_KIND

    by_sheet = _sheet_sets(store, sheet_ids)
    if not by_sheet:
        return {}
    found: dict[str, str] = {}
    for folder in folders:
        digest = _digest_of(str(folder))
        if digest is not None:
            found.setdefault(digest, str(Path(folder).resolve()))
    for e in store.journal():
        if e.kind == JOURNAL_KIND and isinstance(e.data.get("folder"), str) and e.data.get("sha256") not in found:
            if _digest_of(e.data["folder"]) == e.data.get("sha256"):
                found[e.data["sha256"]] = e.data["folder"]
    missing = sorted(set(by_sheet.values()) - found.keys())
    if missing:
        n = sum(d in missing for d in by_sheet.values())
        raise TemplateSetMissing(
            f"{n} sheet(s) were read with template set {missing[0][:12]}, whose folder is not where it was "
            "when they were scanned (or holds another set): give it with --templates DIR"
        )
    _same_election(store, {found[d] for d in set(by_sheet.values())})
    readers = {d: TemplateInterpreter(f) for d, f in found.items()}
    return {sid: readers[d] for sid, d in by_sheet.items()}


def _same_election(store, folders: Iterable[str]) -> None:
    """`TemplatesWrongElection` unless every set in ``folders`` was imported for the store's election."""
    from ..templates import check_election, load_set

    election = store.election()
    if election is None:
        return
    for folder in sorted(folders):
        check_election(election, load_set(folder))
