"""How a scanner changes a page, for `templates_variants.py`: each a `Scan`, (image, scan dpi, rng) -> (image,
2x3 map of the old pixels to the new, still bitonal?). Applied to the simulated scans, never to the blanks.

The first three rounds (another resolution, JPEG, bitonal thresholds, scale, skew, quarter turns, the black
background, uneven light, the vendors' export strips, an imprinter, tinted stock) and the fourth (what real
central scanners do next: JPEG at 150 DPI, error-diffusion bitonal, a feed stretched along its length, torn
corners, staple holes, a double feed).
"""

from __future__ import annotations

import io
from collections.abc import Callable

import cv2
import numpy as np
from PIL import Image

from tabulate.detect.decode import decode_page, headers

#: A scan change: (image, scan dpi, rng) -> (image, 2x3 map of old pixels to new, still bitonal?).
Scan = Callable[[np.ndarray, int, np.random.Generator], tuple[np.ndarray, np.ndarray, bool]]


def _identity() -> np.ndarray:
    return np.array([[1.0, 0, 0], [0, 1.0, 0]])


def resample(to_dpi: int) -> Scan:
    """The scanner set to another resolution than the one the blanks were printed (and imported) at."""

    def f(img, dpi, rng):
        k = to_dpi / dpi
        out = cv2.resize(img, None, fx=k, fy=k, interpolation=cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR)
        return out, np.array([[k, 0, 0], [0, k, 0]]), False

    return f


def colour_jpeg(img, dpi, rng):
    """A colour scanner's RGB JPEG (cream paper, blue-black ink), decoded as `tabulate read` decodes it."""
    bgr = np.dstack([img * 0.86, img * 0.95, img * 0.98 + 4]).clip(0, 255).astype(np.uint8)
    ok, data = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, 80])
    raw = bytes(data)
    return decode_page(raw, headers(raw)[0]), _identity(), False


def jpeg(quality: int) -> Scan:
    """A grey JPEG at ``quality`` (40: heavy compression, 8 x 8 blocks and ringing round every stroke)."""

    def f(img, dpi, rng):
        ok, data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
        raw = bytes(data)
        return decode_page(raw, headers(raw)[0]), _identity(), False

    return f


def black_border(margin_in: float, shift_in: tuple[float, float] = (0.0, 0.0)) -> Scan:
    """The page on a scanner's black background ``margin_in`` wide all round, moved by ``shift_in`` (inches):
    a shift past the margin cuts that edge of the page (and any timing mark on it) off the image."""

    def f(img, dpi, rng):
        h, w = img.shape
        m = round(margin_in * dpi)
        dx, dy = round((margin_in + shift_in[0]) * dpi), round((margin_in + shift_in[1]) * dpi)
        canvas = np.full((h + 2 * m, w + 2 * m), 18, np.uint8)
        step = np.array([[1.0, 0, dx], [0, 1.0, dy]])
        out = cv2.warpAffine(img, step, (w + 2 * m, h + 2 * m), flags=cv2.INTER_NEAREST, borderValue=255)
        inside = cv2.warpAffine(np.full_like(img, 255), step, (w + 2 * m, h + 2 * m), flags=cv2.INTER_NEAREST)
        return np.where(inside > 0, out, canvas), step, False

    return f


def illumination(darkest: float) -> Scan:
    """Uneven light: the page darkens smoothly from its top-left corner to ``darkest`` x at the bottom-right."""

    def f(img, dpi, rng):
        h, w = img.shape
        ramp = 1.0 - (1.0 - darkest) * (np.add.outer(np.arange(h) / h, np.arange(w) / w) / 2)
        return (img * ramp).astype(np.uint8), _identity(), False

    return f


def threshold(level: int) -> Scan:
    """A bitonal scan: black where darker than ``level`` (low: a light setting, marks thin; high: dark)."""

    def f(img, dpi, rng):
        return np.where(img < level, 0, 255).astype(np.uint8), _identity(), True

    return f


def audit_strip(height_in: float) -> Scan:
    """A Dominion-style image export: the page, then a strip ``height_in`` tall appended below it holding the
    machine's interpretation as text ("AuditMark"): the image is taller than the paper, with print below it."""

    def f(img, dpi, rng):
        h, w = img.shape
        strip = np.full((round(height_in * dpi), w), 255, np.uint8)
        lines = ["AuditMark", "Ballot ID: 00042-07-0123  Tabulator 7  Batch 42", "Ballot Style: 2"]
        lines += [f"Contest {n}: Candidate {n * 7 % 11}  (Vote for 1)" for n in range(1, 9)]
        scale, step = dpi / 300 * 0.9, round(0.16 * dpi)
        for n, text in enumerate(lines):
            y = round(0.25 * dpi) + n * step
            if y + step > strip.shape[0]:
                break
            cv2.putText(strip, text, (round(0.3 * dpi), y), cv2.FONT_HERSHEY_SIMPLEX, scale, 0, max(1, dpi // 150))
        return np.vstack([img, strip]), _identity(), False

    return f


def scan_area(extra_in: float, value: int) -> Scan:
    """The scanner set to a longer page than the paper: ``extra_in`` beyond its bottom edge at ``value``
    (18: the black background; 255: a white one)."""

    def f(img, dpi, rng):
        h, w = img.shape
        return np.vstack([img, np.full((round(extra_in * dpi), w), value, np.uint8)]), _identity(), False

    return f


def imprint(img, dpi, rng):
    """A central scanner's imprinter: a line of small text (batch, sequence, date) printed along the page's
    leading edge as it is fed, so on the voted scans and never on the blanks."""
    out = img.copy()
    text = f"BATCH 0042  SEQ {int(rng.integers(1, 99999)):06d}  11/07/2028  TAB 7"
    cv2.putText(out, text, (round(2.0 * dpi), round(0.11 * dpi)), cv2.FONT_HERSHEY_SIMPLEX, dpi / 400, 0, 1)
    return out, _identity(), False


def tinted(grey: int) -> Scan:
    """Ballots printed on tinted stock (a party's colour in a primary): the paper scans at ``grey``, not white;
    the blanks are the white PDF."""

    def f(img, dpi, rng):
        return (img.astype(np.float32) * (grey / 255.0)).astype(np.uint8), _identity(), False

    return f


def affine(scale: float = 1.0, angle: float = 0.0) -> Scan:
    """Paper stretched or shrunk by ``scale`` and turned ``angle`` degrees about the page's centre."""

    def f(img, dpi, rng):
        h, w = img.shape
        m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, scale)
        out = cv2.warpAffine(img, m, (w, h), flags=cv2.INTER_LINEAR, borderValue=255)
        return out, m, False

    return f


def quarter(k: int) -> Scan:
    def f(img, dpi, rng):
        h, w = img.shape
        m = {1: [[0, 1, 0], [-1, 0, w - 1]], 2: [[-1, 0, w - 1], [0, -1, h - 1]], 3: [[0, -1, h - 1], [1, 0, 0]]}[k]
        return np.ascontiguousarray(np.rot90(img, k)), np.array(m, dtype=float), False

    return f


# The fourth round: what real central scanners do next.


def chain(*scans: Scan) -> Scan:
    """Several changes one after the other (the maps composed)."""

    def f(img, dpi, rng):
        m, bitonal = np.vstack([_identity(), [0, 0, 1]]), False
        for s in scans:
            img, step, b = s(img, dpi, rng)
            m, bitonal = np.vstack([step, [0, 0, 1]]) @ m, bitonal or b
            dpi = round(dpi * float(np.hypot(step[0, 0], step[1, 0])))  # a resample changes the resolution
        return img, m[:2], bitonal

    return f


def dither(to_dpi: int) -> Scan:
    """A bitonal scan in the scanner's "halftone" / error-diffusion mode at ``to_dpi``: every grey (shading,
    paper grain, a pencil mark, a felt pen's bleed) becomes a pattern of black dots (Floyd-Steinberg, Pillow)."""

    def f(img, dpi, rng):
        k = to_dpi / dpi
        small = cv2.resize(img, None, fx=k, fy=k, interpolation=cv2.INTER_AREA) if k != 1 else img
        dots = np.asarray(Image.fromarray(small).convert("1"), dtype=np.uint8) * 255
        return dots, np.array([[k, 0, 0], [0, k, 0]]), True

    return f


def stretch(along: float) -> Scan:
    """The feed's rollers slipping or running fast: the page ``along`` x longer down the feed, not across it."""

    def f(img, dpi, rng):
        h, w = img.shape
        out = cv2.resize(img, (w, round(h * along)), interpolation=cv2.INTER_LINEAR)
        return out, np.array([[1.0, 0, 0], [0, along, 0]]), False

    return f


def torn_corner(size_in: float, corner: int, value: int = 18) -> Scan:
    """A corner torn off (the triangle of legs ``size_in``), the scanner's background (``value``) showing
    through: corner 0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left."""

    def f(img, dpi, rng):
        h, w = img.shape
        s = round(size_in * dpi)
        x0, y0 = (0, w - 1, w - 1, 0)[corner], (0, 0, h - 1, h - 1)[corner]
        sx, sy = (s, -s, -s, s)[corner], (s, s, -s, -s)[corner]
        tri = np.array([[x0, y0], [x0 + sx, y0], [x0, y0 + sy]], np.int32)
        # A tear is ragged: the edge wanders a few hundredths of an inch.
        mid = np.array([[x0 + sx // 2 + int(rng.integers(-dpi // 40, dpi // 40 + 1)), y0 + sy // 2]], np.int32)
        out = img.copy()
        cv2.fillPoly(out, [np.vstack([tri[:2], mid, tri[2:]])], int(value))
        return out, _identity(), False

    return f


def staple_holes(value: int = 18) -> Scan:
    """A staple pulled out of the top-left corner: two holes 0.5 in apart, 0.05 in across, the paper torn
    between them, the scanner's background showing through."""

    def f(img, dpi, rng):
        out = img.copy()
        a = (round(0.3 * dpi), round(0.35 * dpi))
        b = (round(0.65 * dpi), round(0.7 * dpi))
        for c in (a, b):
            cv2.circle(out, c, max(2, round(0.025 * dpi)), int(value), -1)
        cv2.line(out, a, b, int(value), max(1, round(0.01 * dpi)))
        return out, _identity(), False

    return f


def double_feed(offset_in: float, value: int = 18) -> Scan:
    """Two sheets fed stacked, the lower ``offset_in`` behind: the image shows the upper sheet whole and the
    lower one's last ``offset_in`` below it (here a sheet of the same style: the page itself again), on the
    scanner's black background. The lower sheet's votes are not on the image at all."""

    def f(img, dpi, rng):
        h, w = img.shape
        off = round(offset_in * dpi)
        out = np.full((h + off, w), value, np.uint8)
        out[off:] = img
        out[:h] = img
        return out, _identity(), False

    return f


# The fifth round: what is left of the paper, and what a scanner's crop leaves off.


def stub(height_in: float) -> Scan:
    """A numbered stub still attached above the page (the voter or the poll worker did not tear it off): white
    paper ``height_in`` tall with the stub's serial number and a bar code, and the perforation between them a
    row of holes the scanner's black background shows through."""

    def f(img, dpi, rng):
        h, w = img.shape
        top = np.full((round(height_in * dpi), w), 250, np.uint8)
        serial = f"No. {int(rng.integers(1, 99999)):06d}"
        for n, text in enumerate(("STUB - TO BE REMOVED BY THE ELECTION OFFICER", serial)):
            y = round((0.35 + 0.3 * n) * dpi)
            cv2.putText(top, text, (round(0.5 * dpi), y), cv2.FONT_HERSHEY_SIMPLEX, dpi / 250, 0, max(1, dpi // 120))
        bars = rng.integers(0, 2, 40)  # a plain bar code: the serial as thick and thin bars
        x = round(5.5 * dpi)
        for b in bars:
            bw = max(1, round((0.02 if b else 0.01) * dpi))
            top[round(0.25 * dpi) : round(0.6 * dpi), x : x + bw] = 0
            x += bw + max(1, round(0.012 * dpi))
        holes = top[-max(2, round(0.03 * dpi)) :]
        pitch, r = max(3, round(0.08 * dpi)), max(1, round(0.012 * dpi))
        for cx in range(pitch // 2, w, pitch):
            holes[:, max(0, cx - r) : cx + r] = 18
        m = np.array([[1.0, 0, 0], [0, 1.0, float(top.shape[0])]])
        return np.vstack([top, img]), m, False

    return f


def crop_edge(top_in: float) -> Scan:
    """The scanner's automatic crop set too tight: the image starts ``top_in`` below the paper's top edge (a
    row of timing marks 0.22 in from the edge cut through or off)."""

    def f(img, dpi, rng):
        cut = round(top_in * dpi)
        return np.ascontiguousarray(img[cut:]), np.array([[1.0, 0, 0], [0, 1.0, -float(cut)]]), False

    return f


# The sixth round: what a county's central-count exports do next.


def levels(paper: int, ink: int) -> Scan:
    """A scan whose contrast the scanner stretched per page: paper at ``paper``, black print at ``ink``, not at
    255 and 0 (a linear map of every grey)."""

    def f(img, dpi, rng):
        out = ink + img.astype(np.float32) * ((paper - ink) / 255.0)
        return np.clip(np.rint(out), 0, 255).astype(np.uint8), _identity(), False

    return f


def anisotropic(x_dpi: float, y_dpi: float) -> Scan:
    """A page scanned at another resolution across the feed than along it (204 x 196: a fax-like export).

    Written as the scanner writes it, a PNG whose ``pHYs`` states both resolutions, and decoded as `tabulate read`
    decodes it (`decode_page`: since branch aniso7, made square at the finer resolution)."""

    def f(img, dpi, rng):
        kx, ky = x_dpi / dpi, y_dpi / dpi
        out = cv2.resize(img, None, fx=kx, fy=ky, interpolation=cv2.INTER_AREA)
        buf = io.BytesIO()
        Image.fromarray(out).save(buf, format="PNG", dpi=(x_dpi, y_dpi))
        raw = buf.getvalue()
        page = decode_page(raw, headers(raw)[0])
        sx, sy = kx * page.shape[1] / out.shape[1], ky * page.shape[0] / out.shape[0]
        return page, np.array([[sx, 0, 0], [0, sy, 0]]), False

    return f
