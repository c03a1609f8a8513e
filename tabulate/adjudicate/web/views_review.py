"""Deciding one ballot: the review page, the preview (write-in names resolved), recording, reopening."""

from __future__ import annotations

from starlette.responses import RedirectResponse, Response

from ...rules import CLAUSE_TEXT, cite
from .. import decisions, leases, queue, recording
from ..ballot_history import ballot_entries, disagreements
from ..entries import NOT_COUNTED, DecisionError, Entry, decided_votes
from ..explain import contest_outcome, option_label
from ..leases import LeaseLost
from ..panels import BOARD, Panel
from ..queue import QueueRow
from ..recording import DECIDED, ESCALATED, NO_MAJORITY
from ..users import User
from . import ballot_view, forms
from .context import Ctx, endpoint, forbidden
from .views_queue import refresh


def _acting(ctx: Ctx, panel: Panel, row: QueueRow, again: bool) -> tuple[User | None, set[int]]:
    """Whose entry this screen records next: the first person at it without one (or, again, the asker)."""
    entered = recording.entered_by(ctx.conn, row.sheet_id, row.round, panel)
    members = [m for m in ctx.session.members if m.id in {p.id for p in panel.members}]
    if again:
        wanted = ctx.request.query_params.get("member") or ctx.form.get("member")
        for m in members:
            if str(m.id) == str(wanted) or wanted is None:
                return m, entered
    for m in members:
        if m.id not in entered:
            return m, entered
    return None, entered


def _open(ctx: Ctx, sheet_id: str) -> tuple[QueueRow | None, Panel | None, Response | None]:
    """The queue row and panel for deciding ``sheet_id``, leased to the panel; or a page saying why not."""
    row = queue.queue_row(ctx.conn, sheet_id)
    if row is None:
        return None, None, forbidden(ctx, f"Ballot {sheet_id} is not in the review queue.", 404)
    if row.state == "decided":
        return row, None, RedirectResponse(f"/ballot/{sheet_id}/decided", status_code=303)
    panel = ctx.panel()
    if panel is None:
        return row, None, RedirectResponse("/queue?m=Form+a+team+first.", status_code=303)
    try:
        leases.lease(ctx.conn, sheet_id, panel, ctx.user.id)
    except LeaseLost as e:
        return row, panel, forbidden(ctx, f"{e}.", 409)
    return queue.queue_row(ctx.conn, sheet_id), panel, None


def _is_manual(ctx: Ctx, sheet_id: str) -> bool:
    r = ctx.conn.execute("SELECT manual FROM adj_ballots WHERE sheet_id = ?", (sheet_id,)).fetchone()
    return bool(r and r[0])


def _review(
    ctx: Ctx,
    sheet_id: str,
    row: QueueRow,
    panel: Panel,
    member: User,
    entered: set[int],
    *,
    form: dict | None = None,
    problems: list[str] | None = None,
    status: int = 200,
) -> Response:
    election = ctx.source.election()
    sheet = ctx.source.sheet(sheet_id)
    manual = _is_manual(ctx, sheet_id)
    previous = recording.my_entry(ctx.conn, sheet_id, row.round, panel, member)
    if manual:
        src = form if form is not None else ctx.request.query_params
        style = src.get("style") or (previous.style_id if previous else None)
        precinct = src.get("precinct") or (previous.precinct_id if previous else None)
    else:
        style, precinct = sheet.style_id, sheet.precinct_id
    view = ballot_view.build(
        election, sheet, manual=manual, style_id=style, precinct_id=precinct, previous=previous, form=form
    )
    precincts = election.style(style).precincts if style else ()
    # The board decides a disagreement seeing both team entries and what they disagreed on.
    team_entries = ()
    if panel.kind == BOARD:
        team_entries = tuple(
            e for e in ballot_entries(ctx.conn, election, sheet_id) if e.round < row.round or e.panel != panel.key
        )
    return ctx.render(
        "review.html",
        status_code=status,
        view=view,
        row=row,
        panel=panel,
        member=member,
        team_entries=team_entries,
        disagreements=disagreements(team_entries),
        entered=len(entered),
        needed=panel.needed,
        problems=problems or [],
        precincts=precincts,
        note=(form or {}).get("note", previous.note if previous else ""),
        shared=ctx.session.partner is not None,
    )


@endpoint("decide")
def ballot_page(ctx: Ctx, sheet_id: str) -> Response:
    refresh(ctx)
    row, panel, stop = _open(ctx, sheet_id)
    if stop is not None:
        return stop
    member, entered = _acting(ctx, panel, row, ctx.request.query_params.get("again") == "1")
    if member is None:
        return ctx.render("waiting.html", row=row, panel=panel, entered=len(entered), needed=panel.needed)
    return _review(ctx, sheet_id, row, panel, member, entered)


def _member_from_form(ctx: Ctx, panel: Panel) -> User | None:
    wanted = str(ctx.form.get("member", ""))
    for m in ctx.session.members:
        if str(m.id) == wanted and m.id in {p.id for p in panel.members}:
            return m
    return None


def _parse(ctx: Ctx, sheet_id: str, row: QueueRow):
    election = ctx.source.election()
    sheet = ctx.source.sheet(sheet_id)
    try:
        round_ = int(ctx.form.get("round", ""))
    except ValueError:
        round_ = -1
    if round_ != row.round:
        return election, sheet, None, ["this ballot was reopened or decided since the page was loaded: reload it"]
    entry, problems = forms.parse_entry(election, sheet, ctx.form, round_=round_, manual=_is_manual(ctx, sheet_id))
    return election, sheet, entry, problems


def _preview_model(election, sheet, entry: Entry) -> dict:
    decided = decided_votes(election, sheet, entry, require_outcomes=False)
    shown = dict(decided.write_ins)  # confirmed outcomes, else the proposals
    for key, p in decided.proposals.items():
        if key not in shown and p.outcome != "person_must_decide":
            shown[key] = p.candidate_id if p.outcome == "candidate" else None
    contests = []
    for cv in decided.votes.contests:
        contest = election.contest(cv.contest_id)
        after = contest_outcome(contest, cv, shown)
        before = ""
        if sheet.interpreted is not None:
            try:
                before = contest_outcome(contest, sheet.interpreted.contest(cv.contest_id), {})
            except KeyError:
                before = ""
        contests.append(
            {
                "title": contest.title,
                "after": after,
                "before": before,
                "changed": bool(sheet.interpreted) and before != after,
                "cite": cite(cv.clauses),
            }
        )
    write_ins = []
    for (cid, oid), p in decided.proposals.items():
        contest = election.contest(cid)
        reading = entry.reading(cid, oid)
        choices = [(w.id, w.name + " (declared write-in)") for w in contest.declared_write_ins]
        if sheet.fwab:
            choices += [(c.id, c.name + " (on the ballot; FWAB)") for c in contest.candidates]
        choices.append((NOT_COUNTED, "Not counted"))
        chosen = (
            reading.outcome
            if reading and reading.outcome
            else (p.candidate_id if p.outcome == "candidate" else (NOT_COUNTED if p.outcome == "not_counted" else None))
        )
        write_ins.append(
            {
                "field": forms.outcome_field(cid, oid),
                "contest": contest.title,
                "line": option_label(contest, oid),
                "name": reading.name if reading else "",
                "sticker": bool(reading and reading.sticker),
                "proposal": p,
                "proposal_words": {
                    "candidate": "a vote for " + option_label(contest, p.candidate_id) if p.candidate_id else "",
                    "not_counted": "not counted",
                    "person_must_decide": "you decide",
                }[p.outcome],
                "clause_text": CLAUSE_TEXT.get(p.clause, ""),
                "choices": choices,
                "chosen": chosen,
            }
        )
    return {"contests": contests, "write_ins": write_ins, "notes": decided.notes}


@endpoint("decide")
def preview(ctx: Ctx, sheet_id: str) -> Response:
    row, panel, stop = _open(ctx, sheet_id)
    if stop is not None:
        return stop
    member = _member_from_form(ctx, panel)
    if member is None:
        return forbidden(ctx, "This entry is not for anyone signed in at this screen.", 400)
    entered = recording.entered_by(ctx.conn, sheet_id, row.round, panel)
    election, sheet, entry, problems = _parse(ctx, sheet_id, row)
    if entry is not None:
        try:
            model = _preview_model(election, sheet, entry)
        except DecisionError as e:
            problems = e.problems
    if problems:
        return _review(ctx, sheet_id, row, panel, member, entered, form=ctx.form, problems=problems, status=400)
    return ctx.render(
        "preview.html",
        row=row,
        panel=panel,
        member=member,
        sheet=sheet,
        hidden=forms.entry_fields(entry, election),
        problems=[],
        **model,
    )


@endpoint("decide")
def edit(ctx: Ctx, sheet_id: str) -> Response:
    """Back from the preview to the review page, with the entry as it was."""
    row, panel, stop = _open(ctx, sheet_id)
    if stop is not None:
        return stop
    member = _member_from_form(ctx, panel)
    if member is None:
        return forbidden(ctx, "This entry is not for anyone signed in at this screen.", 400)
    entered = recording.entered_by(ctx.conn, sheet_id, row.round, panel)
    return _review(ctx, sheet_id, row, panel, member, entered, form=ctx.form)


@endpoint("decide")
def record(ctx: Ctx, sheet_id: str) -> Response:
    row, panel, stop = _open(ctx, sheet_id)
    if stop is not None:
        return stop
    member = _member_from_form(ctx, panel)
    if member is None:
        return forbidden(ctx, "This entry is not for anyone signed in at this screen.", 400)
    election, sheet, entry, problems = _parse(ctx, sheet_id, row)
    if entry is not None:
        try:
            result = recording.record_entry(
                ctx.conn, ctx.source, panel, member, entry, shared_screen=ctx.session.partner is not None
            )
        except DecisionError as e:
            problems = e.problems
        except LeaseLost as e:
            return forbidden(ctx, f"{e}.", 409)
    if problems:
        model = (
            _preview_model(election, sheet, entry)
            if entry is not None
            else {"contests": [], "write_ins": [], "notes": ()}
        )
        return ctx.render(
            "preview.html",
            status_code=400,
            row=row,
            panel=panel,
            member=member,
            sheet=sheet,
            hidden=forms.entry_fields(entry, election) if entry else [],
            problems=problems,
            **model,
        )
    if result.status == DECIDED:
        decisions.apply_pending(ctx.conn, ctx.source)
    return RedirectResponse(f"/ballot/{sheet_id}/done?s={result.status}", status_code=303)


@endpoint("decide")
def done(ctx: Ctx, sheet_id: str) -> Response:
    status = ctx.request.query_params.get("s", "")
    row = queue.queue_row(ctx.conn, sheet_id)
    if row is None:
        return forbidden(ctx, f"Ballot {sheet_id} is not in the review queue.", 404)
    panel = ctx.panel()
    next_member = None
    if panel is not None and row.state != "decided" and status not in (ESCALATED,):
        next_member, _ = _acting(ctx, panel, row, False)
    return ctx.render(
        "done.html",
        row=row,
        status=status,
        next_member=next_member,
        escalated=status == ESCALATED,
        no_majority=status == NO_MAJORITY,
    )


@endpoint("decide")
def release(ctx: Ctx, sheet_id: str) -> Response:
    panel = ctx.panel()
    if panel is not None:
        leases.release(ctx.conn, sheet_id, panel)
    return RedirectResponse("/queue?m=The+ballot+went+back+to+the+queue.", status_code=303)
