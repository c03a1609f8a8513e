"""The truth of a simulated sheet: what the voter meant, what was drawn, and what a reader should make of it.

The expected readings come from `tabulate.ballots.mark_kinds.MARK_KINDS` (31 KAR
6:030 §2(1) for the scanner, §3(1) for the hand count), and on a
connect-the-arrow target from `tabulate.ballots.arrows.ARROW_MARK_KINDS`
("connecting the arrow", §2(1)(a)); an arrow target's entry says so
(``"shape": "arrow"``). The reasons a person
should look use the codes of `tabulate.election.ADJUDICATION_REASONS`. The
format is documented in docs/simulator.md.
"""

from __future__ import annotations

from dataclasses import replace

from ..election.geometry import Rect
from ..election.layout import BallotLayout
from ..election.model import Election
from .arrows import mark_kind
from .mark_kinds import ANY_READING, MarkKind
from .marks import DrawnMark
from .plan import SheetPlan
from .scanner import SheetScan
from .voters import intended_votes

TRUTH_FORMAT = "tabulate-simulated-scans/1"


def _rect(r: Rect | None) -> list[float] | None:
    return None if r is None else [round(r.x, 4), round(r.y, 4), round(r.w, 4), round(r.h, 4)]


#: The mean darkening of a target's interior (0 = paper, 1 = black) of the lightest definite pencil fill
#: the simulator draws: a partial fill of 55 % of the interior (`marks._partial_fill`) with the voter's
#: lightest pencil, grey 130 (`plan.draw_pen`), whose grain 0.4 leaves on average 5 % of it bare:
#: 0.55 x (1 - 130/255) x 0.95 = 0.256.
FILLED_PENCIL_INK = 0.256
#: Erasure residue whose mean darkening of the interior is below this is within what a blank target's
#: interior shows in a scan from print, blur and noise alone (the benchmark's highest blank-target score
#: at 24,000 sheets: 0.041-0.058, on the same 0-1 scale of darkness).
ERASED_TO_NOTHING_INK = 0.05
#: A light pencil fill on a bitonal image whose interior came out black at more than this share of it
#: is, in the image, an oval filled in: "The majority of an oval ... is filled in" (§3(1)(a)).
FILLED_BY_THRESHOLD_SHARE = 0.5


def _accepts(kind: str, bitonal: bool, shape: str) -> tuple[str, ...]:
    # Bitonal scanning drops light gray: a light pencil fill may vanish entirely.
    if bitonal and kind == "light_pencil":
        return ANY_READING
    return mark_kind(kind, shape).scan_accepts


def expected_reading(kind: str, shape: str, ink: float, bitonal: bool, black_share: float | None = None) -> MarkKind:
    """What 31 KAR 6:030 says a reader should make of one drawn mark, given how dark it came out.

    The table (`MARK_KINDS`, `ARROW_MARK_KINDS`) labels a mark by what the
    voter drew; two kinds span tones on both sides of a line the regulation
    draws, and are relabelled here by their drawn ink:

    * A **light pencil fill** (the whole oval or box, in a light pencil) at
      least as dark as the lightest definite pencil fill (`FILLED_PENCIL_INK`)
      is "Filling in the oval or box" (§2(1)(a)) and "The majority of an
      oval, box, or space ... is filled in" (§3(1)(a)): ``marked`` (a reader
      may still send it to a person: ``marginal`` is accepted).
    * On a **bitonal** image the scanner's threshold decides what is left of
      a light pencil fill, whatever its drawn ink: where it turned the
      majority of the interior black (``black_share`` >
      `FILLED_BY_THRESHOLD_SHARE`, measured in the image by
      `tabulate.ballots.seen.interior_black`, dust streaks left out), the
      image shows "The majority of an oval ... is filled in" (§3(1)(a)),
      "Filling in the oval" (§2(1)(a)): no reader and no person looking at
      that image can tell it from a pencil vote, so it is ``marked``
      (``marginal`` accepted). Otherwise it keeps its label (any reading
      accepted: it may have vanished).
    * **Erasure residue** fainter than a blank target's own noise in a scan
      (`ERASED_TO_NOTHING_INK`) is nothing left: "the voter may erase the
      mark for the candidate the voter does not wish to select" (§3(3)(a)),
      and what is left cannot be told from a blank target: ``unmarked``, no
      vote (``marginal`` accepted).

    Whether a person should look (`review_reasons`) still follows what was
    drawn: the rule changes what counts as a wrong reading, not which sheets
    go to a person.
    """
    k = mark_kind(kind, shape)
    if kind == "light_pencil" and shape != "arrow" and bitonal:
        if black_share is not None and black_share > FILLED_BY_THRESHOLD_SHARE:
            return replace(
                k,
                scan="marked",
                scan_accepts=("marginal", "marked"),
                clause="6:030 §2(1)(a), §3(1)(a)",
                description="a light pencil fill the bitonal threshold turned black: the oval filled in, in the image",
            )
        return k
    if kind == "light_pencil" and shape != "arrow" and ink >= FILLED_PENCIL_INK:
        return replace(
            k,
            scan="marked",
            scan_accepts=("marginal", "marked"),
            clause="6:030 §2(1)(a), §3(1)(a)",
            description="a light pencil fill as dark as a pencil fill: the oval filled in",
        )
    if kind == "erasure" and ink < ERASED_TO_NOTHING_INK:
        return replace(
            k,
            scan="unmarked",
            scan_accepts=("unmarked", "marginal"),
            hand="no_vote",
            clause="6:030 §3(3)(a)",
            description="erasure residue fainter than a blank target's noise: nothing left",
        )
    return k


def target_entries(
    plan: SheetPlan,
    drawn: dict[tuple[str, str], DrawnMark],
    bitonal: bool,
    hands: dict[tuple[str, str], str],
    shapes: dict[tuple[str, str], str] | None = None,
    black_shares: dict[tuple[str, str], float] | None = None,
) -> list[dict]:
    """One entry per target that carries ink or a written name (every other target is ``none``).

    ``shapes`` gives each target's shape where it is not an oval or box: a
    mark on an arrow reads by `tabulate.ballots.arrows.ARROW_MARK_KINDS`.
    ``black_shares`` gives, for light pencil fills on a bitonal image, the
    share of the interior the threshold turned black (`expected_reading`).
    """
    out = []
    for m in plan.marks:
        shape = (shapes or {}).get((m.contest_id, m.option_id), "oval")
        d = drawn.get((m.contest_id, m.option_id))
        share = (black_shares or {}).get((m.contest_id, m.option_id))
        k = expected_reading(m.kind, shape, d.interior_ink if d else 0.0, bitonal, share)
        relabelled = k != mark_kind(m.kind, shape)
        e = {
            "page": m.page,
            "contest": m.contest_id,
            "option": m.option_id,
            "kind": m.kind,
            "scan": k.scan,
            "scan_accepts": list(k.scan_accepts if relabelled else _accepts(m.kind, bitonal, shape)),
            "hand": k.hand,
            "ink": round(d.interior_ink, 4) if d else 0.0,
            "cover": round(d.interior_cover, 4) if d else 0.0,
            "extent_in": _rect(d.extent_in) if d else None,
        }
        if relabelled:  # the ink put the mark on the other side of a line the regulation draws
            e["rule"] = k.clause
        if share is not None:
            e["black_share"] = round(share, 4)
        if shape == "arrow":
            e["shape"] = shape
        if m.write_in:
            w = m.write_in
            e["write_in"] = {
                "name": w.name,
                "how": w.how,
                "candidate": w.candidate,
                "marked": w.marked,
                "hand": hands.get((m.contest_id, m.option_id)),
            }
        out.append(e)
    return out


def contest_entries(election: Election, plan: SheetPlan, targets: list[dict]) -> dict[str, dict]:
    """Per contest on the ballot: the voter's intent and the expected readings' selections."""
    intent = plan.intent
    out = {}
    for c in election.style_contests(intent.style_id):
        choice = intent.choice(c.id)
        selections = tuple(intent.straight_party) if c.id == "straight-party" else choice.selections
        here = [t for t in targets if t["contest"] == c.id]
        votes, via = (
            intended_votes(election, intent, c)
            if c.id != "straight-party"
            else ((selections if len(selections) <= 1 else ()), False)
        )
        scan_marked = [t["option"] for t in here if t["scan"] == "marked"]
        hand_votes = [t["option"] for t in here if t["hand"] == "vote"]
        out[c.id] = {
            "vote_for": c.vote_for,
            "selections": list(selections),
            "write_ins": [t["write_in"] | {"option": t["option"]} for t in here if "write_in" in t],
            "intended_votes": list(votes),
            "via_straight_party": via,
            "overvote": len(selections) > c.vote_for,
            "scan_marked": scan_marked,
            "hand_votes": hand_votes,
            "ambiguous": any(t["scan"] == "ambiguous" or t["hand"] == "ambiguous" for t in here),
        }
    return out


def review_reasons(targets: list[dict], contests: dict[str, dict]) -> list[dict]:
    """Why a person should look at the sheet (empty: no reason)."""
    reasons = []
    for t in targets:
        k = mark_kind(t["kind"], t.get("shape", "oval"))
        if k.scan == "ambiguous" or k.hand == "ambiguous":
            reasons.append({"code": "marginal_mark", "contest": t["contest"], "option": t["option"], "kind": t["kind"]})
        elif k.needs_review:
            reasons.append(
                {"code": "scan_hand_disagreement", "contest": t["contest"], "option": t["option"], "kind": t["kind"]}
            )
        if "write_in" in t:
            code = "marked_write_in" if k.selects else "unmarked_write_in"
            reasons.append({"code": code, "contest": t["contest"], "option": t["option"], "kind": t["kind"]})
    for cid, c in contests.items():
        if c["overvote"]:
            reasons.append({"code": "overvote", "contest": cid, "option": None, "kind": None})
    if is_blank(targets):
        reasons.append({"code": "blank_ballot", "contest": None, "option": None, "kind": None})
    return reasons


def is_blank(targets: list[dict]) -> bool:
    """No target reads as anything but empty under either rule, and no name is written."""
    return not any(t["scan"] != "unmarked" or t["hand"] != "no_vote" or "write_in" in t for t in targets)


def sheet_truth(
    election: Election,
    layout: BallotLayout,
    plan: SheetPlan,
    drawn: dict,
    hands: dict,
    strays: list[tuple[int, Rect | None]],
    scan: SheetScan,
    *,
    index: int,
    dpi: float,
    population: str,
    scan_profile: str,
    black_shares: dict[tuple[str, str], float] | None = None,
) -> dict:
    """The truth record of one simulated sheet (see docs/simulator.md)."""
    bitonal = scan.params[0].bitonal
    shapes = {(t.contest_id, t.option_id): t.shape for p in layout.pages for t in p.targets if t.shape == "arrow"}
    targets = target_entries(plan, drawn, bitonal, hands, shapes, black_shares)
    contests = contest_entries(election, plan, targets)
    reasons = review_reasons(targets, contests)
    page = layout.pages[0]
    intent = plan.intent
    return {
        "sheet": index + 1,
        "style": intent.style_id,
        "precinct": intent.precinct_id,
        "population": population,
        "archetype": intent.archetype,
        "lean": intent.lean,
        "straight_party": list(intent.straight_party),
        "habit": plan.habit,
        "pen": {"kind": plan.pen.kind, "gray": round(plan.pen.gray, 1), "width_in": round(plan.pen.width_in, 4)},
        "images": [
            {
                "side": side,
                "page": pg,
                "bitonal": p.bitonal,
                "scan_profile": scan_profile,
                "transform": p.to_dict(page.width_in, page.height_in, dpi),
            }
            for side, pg, p in zip(("front", "back"), scan.pages, scan.params)
        ],
        "contests": contests,
        "targets": targets,
        "strays": [{"page": pg, "extent_in": _rect(r)} for pg, r in strays if r is not None],
        "blank": is_blank(targets),
        "needs_review": bool(reasons),
        "review_reasons": reasons,
    }
