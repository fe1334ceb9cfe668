"""Bland-Altman plots as PNG with Pillow (installed with scikit-image, functions/requirements-dev.txt).

J. M. Bland and D. G. Altman, "Statistical methods for assessing agreement between two methods of clinical
measurement", Lancet 327(8476), 1986: the difference (reported - truth) against the mean of the two, with
the mean difference (bias) and the 95 % limits of agreement (bias +- 1.96 SD).
"""

import pathlib
import statistics

from PIL import Image, ImageDraw

W, H = 520, 380
MARGIN_L, MARGIN_R, MARGIN_T, MARGIN_B = 64, 16, 40, 48


def _panel(draw: ImageDraw.ImageDraw, x0: int, title: str, pairs: list[tuple[float, float]], unit: str) -> None:
    left, right, top, bottom = x0 + MARGIN_L, x0 + W - MARGIN_R, MARGIN_T, H - MARGIN_B
    draw.text((x0 + MARGIN_L, 12), title, fill="black")
    draw.rectangle([left, top, right, bottom], outline="black")
    if not pairs:
        draw.text((left + 20, (top + bottom) // 2), "nothing reported", fill="gray")
        return
    means = [(a + b) / 2 for a, b in pairs]
    diffs = [a - b for a, b in pairs]
    bias = statistics.fmean(diffs)
    sd = statistics.stdev(diffs) if len(diffs) > 1 else 0.0
    limits = (bias - 1.96 * sd, bias + 1.96 * sd)
    span = max(3.0, max(abs(d) for d in diffs) * 1.1, abs(limits[0]) * 1.2, abs(limits[1]) * 1.2)
    x_lo, x_hi = min(means) - 2, max(means) + 2

    def px(m: float, d: float) -> tuple[float, float]:
        return (left + (m - x_lo) / (x_hi - x_lo) * (right - left), top + (span - d) / (2 * span) * (bottom - top))

    for m, d in zip(means, diffs, strict=True):
        x, y = px(m, d)
        draw.ellipse([x - 2, y - 2, x + 2, y + 2], fill=(40, 90, 180))
    lines = [(0.0, "gray", "0"), (bias, "black", f"bias {bias:+.2f}")]
    if len(diffs) >= 3:  # limits of agreement from one or two points would only cover the bias's label
        lines += [(limits[0], "red", f"-1.96 SD {limits[0]:+.2f}"), (limits[1], "red", f"+1.96 SD {limits[1]:+.2f}")]
    for value, colour, label in lines:
        y = px(x_lo, value)[1]
        draw.line([left, y, right, y], fill=colour)
        if label != "0":
            draw.text((right - 130, y - 12), label, fill=colour)
    for frac in (0.0, 0.5, 1.0):
        m = x_lo + frac * (x_hi - x_lo)
        x = left + frac * (right - left)
        draw.text((x - 12, bottom + 4), f"{m:.0f}", fill="black")
        d = span - 2 * span * frac
        draw.text((x0 + 8, top + frac * (bottom - top) - 6), f"{d:+.1f}", fill="black")
    draw.text((left + 60, bottom + 22), f"mean of reported and true ({unit})", fill="black")
    draw.text((x0 + 4, top - 14), f"reported - true ({unit})", fill="black")


def write(path: pathlib.Path, title: str, panels: list[tuple[str, list[tuple[float, float]], str]]) -> None:
    """One PNG with a panel per (title, [(reported, truth)], unit), side by side."""
    image = Image.new("RGB", (W * len(panels), H + 24), "white")
    draw = ImageDraw.Draw(image)
    draw.text((8, H + 6), title, fill="black")
    for i, (panel_title, pairs, unit) in enumerate(panels):
        _panel(draw, i * W, panel_title, pairs, unit)
    image.save(path, optimize=True)
