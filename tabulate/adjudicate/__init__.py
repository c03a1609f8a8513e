"""Adjudication: the review queue, bipartisan teams and the board, decisions, and the audit log.

When the machine cannot tell what a voter meant, people decide: a team of two
reviewers registered with different parties who must agree (31 KAR 4:220
§7(1)), or the county board by majority (4:220 §9(12)(a)). The web app that
they use is `tabulate.adjudicate.web` (``tabulate review serve``); everything
here works without it. See docs/adjudication.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.lazy import lazy_names

if TYPE_CHECKING:
    from .auditlog import Verification, verify
    from .decisions import Decision, apply_pending, reopen
    from .entries import NOT_COUNTED, DecidedVotes, DecisionError, Entry, WriteInReading, decided_votes
    from .leases import LeaseLost, lease, lease_next
    from .panels import Panel, Team, TeamError
    from .queue import QueueFilter, list_queue, progress, sync
    from .recording import RecordResult, record_entry
    from .records import adjudicated_counts, adjudicated_records
    from .schema import connect, migrate
    from .source import ReviewSheet, SourceError, StoreSource
    from .users import LoginFailed, User, UserError, add_user, authenticate

#: Where each public name lives: loaded on first use (`tabulate.core.lazy`).
_WHERE = {
    "Verification": "auditlog",
    "verify": "auditlog",
    "Decision": "decisions",
    "apply_pending": "decisions",
    "reopen": "decisions",
    "NOT_COUNTED": "entries",
    "DecidedVotes": "entries",
    "DecisionError": "entries",
    "Entry": "entries",
    "WriteInReading": "entries",
    "decided_votes": "entries",
    "LeaseLost": "leases",
    "lease": "leases",
    "lease_next": "leases",
    "Panel": "panels",
    "Team": "panels",
    "TeamError": "panels",
    "QueueFilter": "queue",
    "list_queue": "queue",
    "progress": "queue",
    "sync": "queue",
    "RecordResult": "recording",
    "record_entry": "recording",
    "adjudicated_counts": "records",
    "adjudicated_records": "records",
    "connect": "schema",
    "migrate": "schema",
    "ReviewSheet": "source",
    "SourceError": "source",
    "StoreSource": "source",
    "LoginFailed": "users",
    "User": "users",
    "UserError": "users",
    "add_user": "users",
    "authenticate": "users",
}
__getattr__, __dir__ = lazy_names(__name__, _WHERE)

__all__ = [
    "NOT_COUNTED",
    "DecidedVotes",
    "Decision",
    "DecisionError",
    "Entry",
    "LeaseLost",
    "LoginFailed",
    "Panel",
    "QueueFilter",
    "RecordResult",
    "ReviewSheet",
    "SourceError",
    "StoreSource",
    "Team",
    "TeamError",
    "User",
    "UserError",
    "Verification",
    "WriteInReading",
    "add_user",
    "adjudicated_counts",
    "adjudicated_records",
    "apply_pending",
    "authenticate",
    "connect",
    "decided_votes",
    "lease",
    "lease_next",
    "list_queue",
    "migrate",
    "progress",
    "record_entry",
    "reopen",
    "sync",
    "verify",
]
