"""The hand-to-eye audit (KRS 117.383(8), 31 KAR 4:230): select, tally twice, compare, explain, find.

After every election one ballot scanner and one race tabulated on it are
selected at random (`selection`); two poll workers not of the same party each
hand-tally that scanner's ballots for the race on a tally sheet like Form SBE
90 (`forms`), entered separately until the two agree (`tallies`, `workflow`);
the matched tally is compared with the store's count and the scanner's tape
(`compare`, `tape`); every difference is set against the ballots the store
says a hand count reads differently (`explain`, made before the count as a
prediction); the county board records its determinations and findings on a
document like Form SBE 91 (`findings`). Every step is in the audit log
(`book`). See docs/audit.md.
"""

from .book import AuditError, migrate
from .explain import Explanation, Prediction, explain, predict
from .selection import Selection, SelectionError, candidates, draw, select_announced, select_by_seed
from .state import AuditState, audit_state
from .tallies import Attempt, TallyEntry, TallyError
from .tape import TAPE_FORMATS, read_tape
from .workflow import enter_tally, sign, start_audit

__all__ = [
    "TAPE_FORMATS",
    "Attempt",
    "AuditError",
    "AuditState",
    "Explanation",
    "Prediction",
    "Selection",
    "SelectionError",
    "TallyEntry",
    "TallyError",
    "audit_state",
    "candidates",
    "draw",
    "enter_tally",
    "explain",
    "migrate",
    "predict",
    "read_tape",
    "select_announced",
    "select_by_seed",
    "sign",
    "start_audit",
]
