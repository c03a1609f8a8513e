"""Audits after the count: the hand-to-eye audit (31 KAR 4:230) in `tabulate.audit.handeye`."""

from .handeye import AuditError, AuditState, SelectionError, TallyError, audit_state, enter_tally, start_audit

__all__ = ["AuditError", "AuditState", "SelectionError", "TallyError", "audit_state", "enter_tally", "start_audit"]
