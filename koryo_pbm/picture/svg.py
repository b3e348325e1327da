"""The picture as one SVG image: the same scene as the HTML page, laid out here (SVG has no
flowing layout) in columns for a fixed drawing width; the image scales to the screen. No
script, no external reference. Card tiles are ``<g>`` elements with the same ``data-card``,
``data-count``, ``data-zone`` and ``data-owner`` attributes as the page's."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .html import esc, waiting_text
from .model import Card, Frame, Mark, Panel, Row, Scene, card_marks

WIDTH = 960
MARGIN = 16
GAP = 10
MIN_COLUMN = 290
PAD = 10
CARD_W, CARD_H, CARD_GAP = 58, 80, 5
FONT = "DejaVu Sans,Verdana,sans-serif"


def text_width(text: str, size: float) -> float:
    """A generous estimate of the width of ``text`` at ``size`` pixels (DejaVu Sans)."""
    return len(text) * size * 0.58


def wrap(text: str, size: float, width: float) -> list[str]:
    """``text`` broken at spaces into lines no wider than ``width`` (estimated)."""
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        trial = f"{line} {word}" if line else word
        if line and text_width(trial, size) > width:
            lines.append(line)
            line = word
        else:
            line = trial
    lines.append(line)
    return lines


@dataclass
class Canvas:
    parts: list[str] = field(default_factory=list)

    def text(self, x: float, y: float, s: str, size: float = 13, weight: str = "normal", fill: str = "#1f2328",
             anchor: str = "start") -> None:
        self.parts.append(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" font-weight="{weight}" fill="{fill}"'
                          f' text-anchor="{anchor}">{esc(s)}</text>')

    def rect(self, x: float, y: float, w: float, h: float, fill: str, stroke: str = "none", rx: float = 0,
             width: float = 1, dash: str = "") -> None:
        d = f' stroke-dasharray="{dash}"' if dash else ""
        self.parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="{rx}" fill="{fill}"'
                          f' stroke="{stroke}" stroke-width="{width}"{d}/>')


def chips(c: Canvas | None, x: float, y: float, width: float, items: tuple[str, ...], size: float = 12) -> float:
    """Fact chips flowing from (x, y); returns the height used."""
    if not items:
        return 0
    cx, cy, h = x, y, size + 8
    for item in items:
        for piece in wrap(item, size, width - 16):
            w = text_width(piece, size) + 16
            if cx > x and cx + w > x + width:
                cx, cy = x, cy + h + 4
            if c is not None:
                c.rect(cx, cy, w, h, "#ffffff", "#d0d7de", rx=h / 2)
                c.text(cx + 8, cy + h - 6, piece, size)
            cx += w + 5
    return cy + h - y


def card(c: Canvas, x: float, y: float, k: Card, row: Row, marks: Mapping[str, Mark]) -> None:
    """One tile; ``marks``: the scene's (:func:`~koryo_pbm.picture.model.card_marks`)."""
    words, star, band = card_marks(k, marks)
    note = k.note or k.name
    if k.marks:
        note += " — " + words
    c.parts.append(f'<g class="card" data-card="{esc(k.id)}" data-count="{k.count}" data-zone="{esc(row.zone)}"'
                   f' data-owner="{esc(row.owner)}" data-marks="{esc(" ".join(k.marks))}"><title>{esc(note)}</title>')
    if k.back:
        c.rect(x, y, CARD_W, CARD_H, "#1f3b73", "#0b1d40", rx=6, width=2)
        c.rect(x + 4, y + 4, CARD_W - 8, CARD_H - 8, "url(#weave)", "#8fb3ff", rx=4)
    else:
        major = star is not None
        c.rect(x, y, CARD_W, CARD_H, k.fill, "#ffd43b" if major else "rgba(0,0,0,.3)", rx=6, width=3 if major else 2)
        c.text(x + CARD_W / 2, y + 27, k.rank, 22, "bold", k.ink, "middle")
        for i, line in enumerate(wrap(k.name, 8.5, CARD_W - 4)[:2]):
            c.text(x + CARD_W / 2, y + 41 + i * 10, line, 8.5, fill=k.ink, anchor="middle")
        if major:
            c.text(x + CARD_W - 3, y + 14, "★", 14, fill="#ffd43b", anchor="end")
        if band:
            c.rect(x + 1.5, y + CARD_H - 15, CARD_W - 3, 13.5, "#ffd43b", rx=2)
            c.text(x + CARD_W / 2, y + CARD_H - 4.5, band, 9, "bold", "#3b2f00", "middle")
    if k.count > 1 or k.back:
        label = f"×{k.count}"
        w = text_width(label, 12) + 6
        cy = y + (CARD_H / 2 - 9 if k.back else CARD_H - 33)
        cx = x + (CARD_W - w) / 2 if k.back else x + CARD_W - w - 3
        c.rect(cx, cy, w, 16, "#ffffff", rx=8)
        c.text(cx + w / 2, cy + 12.5, label, 12, "bold", "#1f2328", "middle")
    c.parts.append("</g>")


def row_size(row: Row, width: float) -> tuple[float, float]:
    """The width and height a row of tiles takes, at most ``width`` wide."""
    per_line = max(1, int((width + CARD_GAP) // (CARD_W + CARD_GAP)))
    n = len(row.cards)
    cards_w = min(n, per_line) * (CARD_W + CARD_GAP) - CARD_GAP if n else text_width(row.empty, 12)
    w = min(width, max(text_width(row.label, 11), cards_w))
    label_lines = len(wrap(row.label, 11, w))
    body = ((n + per_line - 1) // per_line) * (CARD_H + CARD_GAP) if n else 18
    return w, label_lines * 13 + 4 + body


def draw_row(c: Canvas, x: float, y: float, width: float, row: Row, marks: Mapping[str, Mark]) -> None:
    per_line = max(1, int((width + CARD_GAP) // (CARD_W + CARD_GAP)))
    for line in wrap(row.label, 11, width):
        y += 13
        c.text(x, y, line, 11, fill="#57606a")
    y += 4
    if not row.cards:
        c.text(x, y + 12, row.empty, 12, fill="#8c959f")
    for i, k in enumerate(row.cards):
        card(c, x + (i % per_line) * (CARD_W + CARD_GAP), y + (i // per_line) * (CARD_H + CARD_GAP), k, row, marks)


def panel(c: Canvas | None, x: float, y: float, width: float, p: Panel, marks: Mapping[str, Mark]) -> float:
    """Draw panel ``p`` (or only measure it, with ``c`` None); returns its height."""
    inner = width - 2 * PAD
    body: list[str] = []
    sub = Canvas(body) if c is not None else None
    cy = y + PAD
    title_lines = wrap(p.title, 15, inner)
    for line in title_lines:
        cy += 17
        if sub:
            sub.text(x + PAD, cy, line, 15, "bold")
    cy += 5
    if p.badge:
        bw = min(inner, text_width(p.badge, 11) + 14)
        if sub:
            sub.rect(x + PAD, cy, bw, 16, "#8250df" if p.tone == "secret" else "#d4a017", rx=8)
            sub.text(x + PAD + 7, cy + 12, p.badge, 11, fill="#ffffff")
        cy += 21
    if p.facts:
        cy += chips(sub, x + PAD, cy, inner, p.facts) + 4
    # rows side by side while they fit, as the page's flowing rows
    rx, line_h = 0.0, 0.0
    for row in p.rows:
        w, h = row_size(row, inner)
        if rx > 0 and rx + w > inner:
            cy, rx, line_h = cy + line_h, 0.0, 0.0
        if sub:
            draw_row(sub, x + PAD + rx, cy, w, row, marks)
        rx += w + 16
        line_h = max(line_h, h)
    cy += line_h
    height = cy - y + PAD
    if c is not None:
        stroke, fill, w, dash = {"turn": ("#d4a017", "#ffffff", 2.5, ""), "secret": ("#8250df", "#fdf6ff", 2, "6 4")}.get(
            p.tone, ("#d0d7de", "#ffffff", 1, ""))
        c.parts.append(f'<g class="panel" data-panel="{esc(p.key)}">')
        c.rect(x, y, width, height, fill, stroke, rx=10, width=w, dash=dash)
        c.parts.extend(body)
        c.parts.append("</g>")
    return height


def grid(c: Canvas, y: float, panels: tuple[Panel, ...], key: str, width: float, marks: Mapping[str, Mark]) -> float:
    """Panels in columns from ``y``; returns the new ``y``."""
    usable = width - 2 * MARGIN
    cols = max(1, min(len(panels), int((usable + GAP) // (MIN_COLUMN + GAP))))
    col_w = (usable - (cols - 1) * GAP) / cols
    c.parts.append(f'<g data-part="{esc(key)}">')
    for start in range(0, len(panels), cols):
        line = panels[start:start + cols]
        h = max(panel(None, 0, 0, col_w, p, marks) for p in line)
        for i, p in enumerate(line):
            panel(c, MARGIN + i * (col_w + GAP), y, col_w, p, marks)
        y += h + GAP
    c.parts.append("</g>")
    return y


def svg(scene: Scene, frame: Frame, width: int = WIDTH) -> str:
    """The whole SVG document."""
    c = Canvas()
    inner = width - 2 * MARGIN
    y: float = MARGIN
    for line in wrap(scene.headline, 20, inner):
        y += 24
        c.text(MARGIN, y, line, 20, "bold")
    sub = f"{frame.title} · game {frame.game_id} · version {frame.version}"
    if frame.for_player:
        sub += f" · private picture for {frame.for_player}: do not share"
    for line in wrap(sub, 12, inner):
        y += 17
        c.text(MARGIN, y, line, 12, fill="#57606a")
    y += 8
    if scene.facts:
        c.parts.append('<g data-part="facts">')
        y += chips(c, MARGIN, y, inner, scene.facts) + 8
        c.parts.append("</g>")
    waiting = waiting_text(frame)
    line = "; ".join(x for x in (scene.turn, waiting) if x)
    if frame.deadline:
        line += f" · answer by {frame.deadline}"
    for text, fill, stroke, part in ((line, "#fff4c2", "#e3c35a", "turn"), (scene.result, "#dff3e3", "#7cc48b", "result")):
        if not text:
            continue
        lines = wrap(text, 14, inner - 20)
        h = 12 + 19 * len(lines)
        extra = f' data-deadline="{esc(frame.deadline)}"' if part == "turn" and frame.deadline else ""
        c.parts.append(f'<g data-part="{part}"{extra}>')
        c.rect(MARGIN, y, inner, h, fill, stroke, rx=8)
        for i, t in enumerate(lines):
            c.text(MARGIN + 10, y + 22 + 19 * i, t, 14, "bold")
        c.parts.append("</g>")
        y += h + 8
    y += 4
    marks = dict(scene.marks)
    if scene.private:
        y = grid(c, y, scene.private, "private", width, marks)
    for i, group in enumerate(scene.groups):
        if not group.panels:
            continue
        if group.title:
            y += 20
            c.text(MARGIN, y, group.title, 17, "bold")
            y += 8
        y = grid(c, y, group.panels, group.key or f"group-{i + 1}", width, marks)
    if frame.last:
        lines = []
        for event in frame.last:
            lines += [("• " if j == 0 else "  ") + t for j, t in enumerate(wrap(event, 13, inner - 30))]
        h = 36 + 18 * len(lines)
        c.parts.append('<g data-part="last">')
        c.rect(MARGIN, y, inner, h, "#ffffff", "#d0d7de", rx=10)
        c.text(MARGIN + 10, y + 22, "What happened last " + frame.last_label, 14, "bold")
        for i, t in enumerate(lines):
            c.text(MARGIN + 14, y + 42 + 18 * i, t, 13)
        c.parts.append("</g>")
        y += h + 8
    if scene.legend:
        for line in wrap(" · ".join(scene.legend), 11, inner):
            y += 15
            c.text(MARGIN, y, line, 11, fill="#57606a")
    height = int(y + MARGIN)
    who = f" — as seen by {frame.for_player}" if frame.for_player else ""
    title = f"{frame.title} {frame.game_id}, version {frame.version}{who}"
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="100%"'
            f' style="max-width:{width}px;height:auto" font-family="{FONT}"'
            f' data-game="{esc(frame.game_id)}" data-version="{frame.version}" data-for="{esc(frame.for_player)}">'
            f"<title>{esc(title)}</title>"
            '<defs><pattern id="weave" width="8" height="8" patternUnits="userSpaceOnUse">'
            '<path d="M0 4h8M4 0v8" stroke="#3b5ba5" stroke-width="2"/></pattern></defs>'
            f'<rect width="{width}" height="{height}" fill="#f4f1ea"/>')
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + head + "\n".join(c.parts) + "</svg>\n"
