"""The fill-score histogram on the progress page (issue #11): the picture `tabulate scores` draws.

The page lists one picture per way the sheets were read (our own layout,
each template set), each with its thresholds, alt text and a table of the
same numbers; the PNG is served here, drawn by matplotlib from the store's
readings (`tabulate.adjudicate.scores`). No ballot is shown: only counts of
fill scores, so every role that sees progress sees it.
"""

from __future__ import annotations

from starlette.responses import Response

from ..scores import BY, picture_png, score_pictures
from .context import Ctx, endpoint, forbidden


def by_of(ctx: Ctx) -> str:
    by = ctx.request.query_params.get("by", "template")
    return by if by in BY else "template"


@endpoint("progress")
def scores_png(ctx: Ctx, key: str) -> Response:
    by = by_of(ctx)
    picture = next((p for p in score_pictures(ctx.source, by) if p.key == key), None)
    if picture is None:
        return forbidden(ctx, "No such picture: no sheets were read that way.", 404)
    png = picture_png(ctx.source, picture, by)
    return Response(png, media_type="image/png", headers={"Cache-Control": "private, no-store"})
