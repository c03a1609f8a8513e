"""Adjudication: the review queue, bipartisan teams and the board, decisions, and the audit log.

When the machine cannot tell what a voter meant, people decide: a team of two
reviewers registered with different parties who must agree (31 KAR 4:220
§7(1)), or the county board by majority (4:220 §9(12)(a)). The web app that
they use is `tabulate.adjudicate.web` (``tabulate review serve``); everything
here works without it. See docs/adjudication.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import lazy_loader

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

#: Each submodule's public names, loaded on first use (`lazy_loader`, PEP 562).
_WHERE = {
    "auditlog": ["Verification", "verify"],
    "decisions": ["Decision", "apply_pending", "reopen"],
    "entries": ["NOT_COUNTED", "DecidedVotes", "DecisionError", "Entry", "WriteInReading", "decided_votes"],
    "leases": ["LeaseLost", "lease", "lease_next"],
    "panels": ["Panel", "Team", "TeamError"],
    "queue": ["QueueFilter", "list_queue", "progress", "sync"],
    "recording": ["RecordResult", "record_entry"],
    "records": ["adjudicated_counts", "adjudicated_records"],
    "schema": ["connect", "migrate"],
    "source": ["ReviewSheet", "SourceError", "StoreSource"],
    "users": ["LoginFailed", "User", "UserError", "add_user", "authenticate"],
}
__getattr__, __dir__, _ = lazy_loader.attach(__name__, submod_attrs=_WHERE)

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
