"""A simulated sheet-fed duplex scanner: skew, shift, scale, upside-down feeds, optics, sensor and dust.

`draw_scan` draws the scanner's settings for one sheet from a `ScanProfile`;
`scan_page` applies them to a page image. The page-to-image transform is
recorded exactly (`ScanParams.page_to_image`), so a reader's registration can
be checked against it.

Coordinates: page positions in inches (x right, y down, origin at the
paper's top-left corner); image positions in continuous pixels (col, row)
where pixel ``[r, c]`` covers ``[c, c+1) x [r, r+1)``, so its centre is
``(c + 0.5, r + 0.5)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import lru_cache

import cv2
import numpy as np

from ._splat import NO_CUT, finish_thresholded, splat_darkness


@dataclass(frozen=True)
class ScanProfile:
    """Ranges the scanner's settings are drawn from (sizes in inches or in pixels at 200 dpi)."""

    name: str = "default"
    rotation_sd_deg: float = 0.8
    rotation_max_deg: float = 3.0
    scale_max: float = 0.02
    shift_max_in: float = 0.10
    #: Scanned area beyond each paper edge (the scanner's backing shows there), so skew never cuts the corner marks.
    overscan_in: float = 0.2
    p_flipped: float = 0.05  # fed upside down: both pages turned 180 degrees
    p_swapped: float = 0.03  # fed face down: the back page comes out first
    blur_sigma_px: tuple[float, float] = (0.4, 1.2)
    noise_sd: tuple[int, ...] = (0, 1, 1, 2)
    paper: tuple[float, float] = (226.0, 250.0)
    black: tuple[float, float] = (8.0, 35.0)
    tone: tuple[float, float] = (0.0, 0.04)  # smooth brightness variation across the page
    p_streak: float = 0.15
    threshold_offset: float = 15.0


SCAN_PROFILES: dict[str, ScanProfile] = {
    "default": ScanProfile(),
    # Square, clean, well-lit: for first tests of a reader.
    "clean": ScanProfile(
        "clean",
        rotation_sd_deg=0.0,
        rotation_max_deg=0.0,
        scale_max=0.0,
        shift_max_in=0.0,
        overscan_in=0.0,
        p_flipped=0.0,
        p_swapped=0.0,
        blur_sigma_px=(0.0, 0.0),
        noise_sd=(0,),
        paper=(255.0, 255.0),
        black=(0.0, 0.0),
        tone=(0.0, 0.0),
        p_streak=0.0,
        threshold_offset=0.0,
    ),
    # Everything at the edge of what the design promises (±3°, ±2 %, heavy blur and noise, many streaks).
    "rough": ScanProfile(
        "rough",
        rotation_sd_deg=2.0,
        shift_max_in=0.15,
        p_flipped=0.25,
        p_swapped=0.1,
        blur_sigma_px=(0.8, 1.6),
        noise_sd=(4, 6, 8),
        paper=(205.0, 240.0),
        black=(20.0, 60.0),
        tone=(0.03, 0.08),
        p_streak=0.6,
        threshold_offset=25.0,
    ),
}


@dataclass(frozen=True)
class ScanParams:
    """The settings one page image was made with (all that `scan_page` needs besides the page)."""

    rotation_deg: float = 0.0  # counter-clockwise as the image is viewed
    scale: float = 1.0
    shift_in: tuple[float, float] = (0.0, 0.0)  # added after rotation and scale, before a flip
    flipped: bool = False  # the whole image turned 180 degrees
    blur_sigma_px: float = 0.0
    noise_sd: int = 0
    noise_offset: int = 0
    paper: float = 255.0  # gray of blank paper in the image
    black: float = 0.0  # gray of full-black print in the image
    tone: float = 0.0
    tone_seed: int = 0
    streaks: tuple[tuple[int, int, int], ...] = ()  # (column, width px, gray change)
    bitonal: bool = False
    threshold: float | None = None
    overscan_in: float = 0.0

    def image_size(self, width_in: float, height_in: float, dpi: float) -> tuple[int, int]:
        """(columns, rows) of the image of a page of the given size."""
        m = 2 * self.overscan_in
        return round((width_in + m) * dpi), round((height_in + m) * dpi)

    def page_to_image(self, width_in: float, height_in: float, dpi: float) -> np.ndarray:
        """2x3 matrix taking page inches (x, y, 1) to image pixels (col, row), continuous coordinates.

        The page is turned by ``rotation_deg`` and scaled by ``scale`` about
        its centre, moved by ``shift_in`` (and ``overscan_in`` from the
        image's edge), then, if ``flipped``, the image is turned 180 degrees.
        """
        th = np.deg2rad(self.rotation_deg)
        c, s = np.cos(th) * self.scale, np.sin(th) * self.scale
        a = np.array([[c, s], [-s, c]]) * dpi
        centre = np.array([width_in / 2, height_in / 2])
        t = dpi * (centre + self.overscan_in + np.asarray(self.shift_in)) - a @ centre
        m = np.column_stack([a, t])
        if self.flipped:
            m = -m
            m[:, 2] += np.array(self.image_size(width_in, height_in, dpi), dtype=np.float64)
        return m

    def to_dict(self, width_in: float, height_in: float, dpi: float) -> dict:
        d = {f.name: getattr(self, f.name) for f in fields(self)}  # flat: asdict deep-copies every tuple
        d["shift_in"] = [round(v, 5) for v in self.shift_in]
        d["streaks"] = [list(s) for s in self.streaks]
        d["page_to_image"] = [[round(float(v), 6) for v in row] for row in self.page_to_image(width_in, height_in, dpi)]
        d["image_size"] = list(self.image_size(width_in, height_in, dpi))
        for k in ("rotation_deg", "scale", "blur_sigma_px", "paper", "black", "tone"):
            d[k] = round(float(d[k]), 5)
        return d


@dataclass(frozen=True)
class SheetScan:
    """A sheet's two page settings, in scan order, and which page each image shows."""

    params: tuple[ScanParams, ScanParams]
    pages: tuple[int, int] = field(default=(1, 2))

    @property
    def swapped(self) -> bool:
        return self.pages == (2, 1)


def draw_scan(
    rng: np.random.Generator,
    profile: ScanProfile = ScanProfile(),
    *,
    bitonal: bool = False,
    dpi: float = 200.0,
    page_size_in: tuple[float, float] = (8.5, 11.0),
) -> SheetScan:
    """Draw one sheet's scanner settings.

    The back camera sees the same physical skew mirrored, so the back page's
    rotation and horizontal shift are the front's negated (plus a little
    noise); both pages share the flip, optics and paper.
    """
    p = profile
    rot = 0.0
    if p.rotation_sd_deg:
        rot = float(np.clip(rng.normal(0, p.rotation_sd_deg), -p.rotation_max_deg, p.rotation_max_deg))
    scale = 1.0 + float(rng.uniform(-p.scale_max, p.scale_max))
    dx, dy = rng.uniform(-p.shift_max_in, p.shift_max_in, 2)
    flipped = bool(rng.random() < p.p_flipped)
    swapped = bool(rng.random() < p.p_swapped)
    blur = float(rng.uniform(*p.blur_sigma_px)) * dpi / 200.0
    if bitonal:
        blur *= 0.5  # bitonal scanners sharpen before thresholding, or thin print breaks up
    noise = int(p.noise_sd[int(rng.integers(len(p.noise_sd)))])
    paper = float(rng.uniform(*p.paper))
    black = float(rng.uniform(*p.black))
    tone = float(rng.uniform(*p.tone))
    # A threshold nearer the paper than the ink: print and pen survive, light pencil mostly does not.
    threshold = (
        black + 0.6 * (paper - black) + float(rng.uniform(-p.threshold_offset, p.threshold_offset)) if bitonal else None
    )

    width_px = round((page_size_in[0] + 2 * p.overscan_in) * dpi)

    def one(rotation: float, shift: tuple[float, float]) -> ScanParams:
        streaks = []
        if rng.random() < p.p_streak:
            for _ in range(int(rng.integers(1, 4))):
                col = int(rng.integers(0, width_px))
                delta = int(rng.integers(-110, -25)) if rng.random() < 0.75 else int(rng.integers(10, 40))
                streaks.append((col, int(rng.integers(1, 4)), delta))
        return ScanParams(
            rotation,
            scale,
            (float(shift[0]), float(shift[1])),
            flipped,
            blur,
            noise,
            int(rng.integers(0, 1 << 20)),
            paper,
            black,
            tone,
            int(rng.integers(0, 2**31)),
            tuple(streaks),
            bitonal,
            threshold,
            p.overscan_in,
        )

    front = one(rot, (dx, dy))
    back = one(-rot + float(rng.normal(0, 0.05)) if rot else 0.0, (-dx, dy))
    return SheetScan((front, back), (2, 1) if swapped else (1, 2))


def blur_kernel(sigma: float) -> int:
    """The odd Gaussian kernel size the scanner model uses for ``sigma`` (0: no blur)."""
    return 2 * int(np.ceil(2.5 * sigma)) + 1 if sigma > 0.05 else 0


@lru_cache(maxsize=8)
def _noise_pool(sd: int, size: int) -> np.ndarray:
    """Gaussian sensor noise in whole gray levels (int8), from a fixed seed per level, sliced at a random offset
    per page: drawing fresh normals for every 200-dpi page would cost 70 ms; this costs nothing."""
    z = np.random.default_rng(sd).standard_normal(size + (1 << 20), dtype=np.float32) * sd
    return np.clip(z, -127, 127).round().astype(np.int8)


def _tone_rows(shape: tuple[int, int], params: ScanParams) -> np.ndarray:
    """The paper's gray (uint8) at every 8th row of the image, each as wide as the image: ``paper`` dimmed by
    up to ``tone``, varying smoothly. `_splat.finish` blends the two nearest rows for each image row."""
    h, w = shape
    rows = max(2, h // 8)
    if params.tone <= 0:
        return np.full((2, w), int(params.paper + 0.5), np.uint8)
    rng = np.random.default_rng(params.tone_seed)
    grid = (1.0 - params.tone * rng.random((6, 5))).astype(np.float32)
    # Smooth at 1/8 size in float, then stretched across only (a full-size map was a pass over 4 M pixels).
    small = cv2.resize(grid, (max(2, w // 8), rows), interpolation=cv2.INTER_CUBIC)
    small = np.clip(small * params.paper + 0.5, 0, 255).astype(np.uint8)
    return cv2.resize(small, (w, rows), interpolation=cv2.INTER_LINEAR)


def to_cv_matrix(m: np.ndarray) -> np.ndarray:
    """A continuous-pixel affine map as OpenCV wants it (pixel centres at integers)."""
    out = m.copy()
    out[:, 2] += out[:, 0] * 0.5 + out[:, 1] * 0.5 - 0.5
    return out


def _darkness(page: np.ndarray, params: ScanParams, m_px: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The page's darkness (255 - gray, uint8) as the image sees it: moved, levelled and blurred.

    The levels map print black to ``black`` and keep paper at 255, which is
    scaling darkness by ``(255 - black) / 255``: done in the splat's gain.
    """
    w, h = size
    cv = to_cv_matrix(m_px)
    out = np.zeros((h, w), np.uint8)
    splat_darkness(page, cv, (255.0 - params.black) / 255.0, out)
    k = blur_kernel(params.blur_sigma_px)
    return _blur_inked(out, k, params.blur_sigma_px) if k else out


#: Rows per band of the blur: small enough that the blank rows between contests are skipped, large enough
#: that OpenCV's per-call cost (and the band's 2 x radius rows of overlap) stays small.
BLUR_BAND = 96


def _blur_inked(dark: np.ndarray, k: int, sigma: float) -> np.ndarray:
    """``cv2.GaussianBlur(dark, (k, k), sigma)``, byte for byte, computed only where some darkness is near.

    The image is cut into bands of `BLUR_BAND` rows; a band whose rows (and
    the kernel's radius beyond) hold no darkness stays 0, which is what the
    blur of zeros is. Any other band is blurred from a slice reaching the
    radius beyond its rows and twice the radius beyond its inked columns, and
    only the pixels whose whole kernel lies in the slice (or meets the image's
    own edge, where the border rule is the same) are kept: each kept pixel is
    the same weighted sum of the same bytes (OpenCV's 8-bit Gaussian is
    bit-exact fixed point). Which rows and columns hold darkness comes from
    two vectorised max-reductions (~0.15 ms each a page).
    """
    h, w = dark.shape
    r = k // 2
    out = np.zeros_like(dark)
    inked = dark.max(axis=1) > 0
    for y0 in range(0, h, BLUR_BAND):
        y1 = min(h, y0 + BLUR_BAND)
        a, b = max(0, y0 - r), min(h, y1 + r)
        if not inked[a:b].any():
            continue
        cols = np.flatnonzero(dark[a:b].max(axis=0))
        c0, c1 = int(cols[0]), int(cols[-1])
        s0, s1 = max(0, c0 - 2 * r), min(w, c1 + 2 * r + 1)
        k0, k1 = max(0, c0 - r), min(w, c1 + r + 1)
        band = cv2.GaussianBlur(dark[a:b, s0:s1], (k, k), sigma)
        out[y0:y1, k0:k1] = band[y0 - a : y1 - a, k0 - s0 : k1 - s0]
    return out


@lru_cache(maxsize=2)
def _silence(size: int) -> np.ndarray:
    """No sensor noise: a pool of zeros, so `finish` has one loop and no branch."""
    return np.zeros(size + (1 << 20), np.int8)


def _finish(dark: np.ndarray, params: ScanParams) -> np.ndarray:
    """Paper tone, dust streaks and sensor noise in one pass over the image, then the bitonal threshold."""
    h, w = dark.shape
    streak = np.zeros(w, np.int16)
    for col, width, delta in params.streaks:  # dust on the glass: a line down the whole feed
        streak[col : col + width] += delta
    noise = _noise_pool(params.noise_sd, h * w) if params.noise_sd > 0 else _silence(h * w)
    out = np.empty((h, w), np.uint8)
    cut = NO_CUT
    if params.bitonal:
        # As `cv2.threshold(img, thr, 255, THRESH_BINARY)` on 8-bit images: black up to floor(thr), white above.
        thr = params.threshold if params.threshold is not None else (params.black + params.paper) / 2
        cut = min(max(int(np.floor(thr)), -1), 255)
    finish_thresholded(dark, _tone_rows((h, w), params), streak, noise, params.noise_offset % (1 << 20), out, cut)
    return out


def scan_page(page: np.ndarray, params: ScanParams, *, dpi: float) -> np.ndarray:
    """One page as the scanner delivers it: uint8 (0/255 only if bitonal), `ScanParams.image_size` big.

    ``page`` is the page as printed and marked, at ``dpi``, one pixel per
    1/dpi inch from the paper's top-left corner. The page's darkness is moved
    into the image by forward splatting (`_splat.splat_darkness`: only the
    ~6 % of the page that is not paper costs anything), levelled, blurred by
    the optics, then the paper's tone, dust and noise go on in one pass. The
    tone multiplies after the blur: it varies over inches, so the order
    changes a pixel by at most a grey level.
    """
    ph, pw = page.shape
    w, h = params.image_size(pw / dpi, ph / dpi, dpi)
    m = params.page_to_image(pw / dpi, ph / dpi, dpi)
    # The page image's own pixels are at dpi per inch: convert the inch matrix to a pixel one.
    m_px = m.copy()
    m_px[:, :2] /= dpi
    untouched = params.blur_sigma_px <= 0.05 and params.black <= 0 and params.paper >= 255 and params.noise_sd <= 0
    if untouched and (w, h) == (pw, ph) and np.allclose(m_px, [[1, 0, 0], [0, 1, 0]]):
        if not (params.streaks or params.bitonal):
            return page.copy()  # the `clean` profile: the marked page itself
    return _finish(_darkness(page, params, m_px, (w, h)), params)
