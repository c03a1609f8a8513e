"""Audits around the count.

- the hand-to-eye audit (31 KAR 4:230, KRS 117.383(8)) in `tabulate.audit.handeye`;
- the accuracy-test deck (31 KAR 2:020), recanvass (4:071, KRS 117.305) and
  recount (4:220, KRS 120.157).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import lazy_loader

# Eager, not lazy (it loads nothing heavy): a function has its submodule's name, and importing the submodule (anyone's
# ``import tabulate.audit.recanvass``) would otherwise leave the package's name bound to the module.
from .recanvass import Recanvass, last_snapshot, recanvass, record_snapshot

if TYPE_CHECKING:
    from .handeye import AuditError, AuditState, SelectionError, TallyError, audit_state, enter_tally, start_audit
    from .margins import AUTOMATIC_RECOUNT_OFFICES, RaceMargin, race_margin
    from .recount import BoardDecision, RecountBallot, RecountResult, recount_result, recount_sheets

#: Each submodule's public names, loaded on first use (`lazy_loader`, PEP 562).
_WHERE = {
    "handeye": [
        "AuditError",
        "AuditState",
        "SelectionError",
        "TallyError",
        "audit_state",
        "enter_tally",
        "start_audit",
    ],
    "margins": ["AUTOMATIC_RECOUNT_OFFICES", "RaceMargin", "race_margin"],
    "recount": ["BoardDecision", "RecountBallot", "RecountResult", "recount_result", "recount_sheets"],
}
__getattr__, __dir__, _ = lazy_loader.attach(__name__, submod_attrs=_WHERE)

__all__ = [
    "AUTOMATIC_RECOUNT_OFFICES",
    "AuditError",
    "AuditState",
    "BoardDecision",
    "RaceMargin",
    "Recanvass",
    "RecountBallot",
    "RecountResult",
    "SelectionError",
    "TallyError",
    "audit_state",
    "enter_tally",
    "last_snapshot",
    "race_margin",
    "recanvass",
    "recount_result",
    "recount_sheets",
    "record_snapshot",
    "start_audit",
]
