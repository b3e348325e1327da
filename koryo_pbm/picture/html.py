"""The picture as one self-contained HTML page: inline CSS and inline SVG, no script, no
network. The layout follows the width of the screen: panels side by side on a laptop, one
under the other on a phone. Every card tile carries ``data-card``, ``data-count``,
``data-zone`` and ``data-owner`` so that what the page shows can be checked from its DOM."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape

from .model import Card, Frame, Mark, Panel, Row, Scene, card_marks


def esc(text: object) -> str:
    """Text made safe for HTML and XML content and attribute values."""
    return escape(str(text), quote=True)


CSS = """
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;padding:12px;font:15px/1.35 "DejaVu Sans",Verdana,system-ui,sans-serif;color:#1f2328;background:#f4f1ea}
header{margin:0 0 10px}
h1{font-size:20px;margin:0 0 2px}
h2{font-size:16px;margin:0}
.sub{color:#57606a;font-size:13px}
.facts{display:flex;flex-wrap:wrap;gap:4px 6px;margin:6px 0 0;padding:0;list-style:none}
.facts li{background:#fff;border:1px solid #d0d7de;border-radius:12px;padding:1px 9px;font-size:13px;max-width:100%}
.turn{margin:8px 0 0;padding:6px 10px;background:#fff4c2;border:1px solid #e3c35a;border-radius:8px;font-weight:bold}
.turn .dl{font-weight:normal}
.result{margin:8px 0 0;padding:6px 10px;background:#dff3e3;border:1px solid #7cc48b;border-radius:8px;font-weight:bold}
.gtitle{margin:14px 0 0;font-size:17px}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,330px),1fr));gap:10px;margin:10px 0}
.panel{background:#fff;border:1px solid #d0d7de;border-radius:10px;padding:8px 10px;min-width:0}
.panel.turn-on{border:2px solid #d4a017;box-shadow:0 0 0 3px #fff4c2}
.panel.secret{background:#fdf6ff;border:2px dashed #8250df}
.panel.dim{opacity:.8}
.ptitle{display:flex;align-items:baseline;gap:8px;flex-wrap:wrap}
.badge{font-size:12px;background:#d4a017;color:#fff;border-radius:10px;padding:0 8px}
.secret .badge{background:#8250df}
.rows{display:flex;flex-wrap:wrap;gap:0 16px}
.row{margin:6px 0 0;min-width:0}
.rlabel{font-size:12px;color:#57606a;margin:0 0 2px}
.cards{display:flex;flex-wrap:wrap;gap:5px}
.none{font-size:13px;color:#8c959f;font-style:italic}
.card{position:relative;width:64px;height:86px;border-radius:7px;background:var(--c);color:var(--i);
 border:2px solid rgba(0,0,0,.25);display:flex;flex-direction:column;align-items:center;overflow:hidden}
.card .rank{font-size:24px;font-weight:bold;line-height:1;margin-top:5px}
.card .name{font:9.5px/1.1 "DejaVu Sans Condensed","Arial Narrow",sans-serif;font-stretch:condensed;text-align:center;padding:0 2px;margin-top:2px}
.card .n{position:absolute;right:3px;bottom:17px;font-size:13px;font-weight:bold;background:#fff;color:#1f2328;border-radius:8px;padding:0 4px;line-height:16px}
.card.back .n{bottom:auto;top:30px;right:auto;font-size:15px}
.card .star{position:absolute;right:2px;top:0;font-size:15px;color:#ffd43b;text-shadow:0 0 2px #000}
.card .band{position:absolute;left:0;right:0;bottom:0;background:#ffd43b;color:#3b2f00;font-size:9.5px;font-weight:bold;text-align:center;line-height:14px}
.card.m-star{border-color:#ffd43b;box-shadow:0 0 0 2px #b08800}
.card.back{background:#1f3b73;color:#fff}
.card.back svg{width:100%;height:100%;position:absolute;left:0;top:0}
.events{background:#fff;border:1px solid #d0d7de;border-radius:10px;padding:6px 10px;margin:10px 0}
.events ul{margin:4px 0 0;padding-left:18px}
.legend{font-size:12px;color:#57606a;margin:8px 0 0}
@media (max-width:480px){body{padding:8px;font-size:14px}h1{font-size:17px}.panel{padding:6px 8px}}
"""

# A card back: drawn once, used by every face-down tile.
BACK = ('<svg width="0" height="0" style="position:absolute" aria-hidden="true"><defs>'
        '<pattern id="weave" width="8" height="8" patternUnits="userSpaceOnUse">'
        '<path d="M0 4h8M4 0v8" stroke="#3b5ba5" stroke-width="2"/></pattern>'
        '<symbol id="back" viewBox="0 0 64 86"><rect x="4" y="4" width="56" height="78" rx="4" '
        'fill="url(#weave)" stroke="#8fb3ff" stroke-width="1.5"/></symbol></defs></svg>')


def _attrs(**kw: object) -> str:
    return "".join(f' {k.rstrip("_").replace("_", "-")}="{esc(v)}"' for k, v in kw.items() if v != "")


def card_html(card: Card, row: Row, marks: Mapping[str, Mark]) -> str:
    """One tile; ``marks``: the scene's (:func:`~koryo_pbm.picture.model.card_marks`)."""
    words, star, band = card_marks(card, marks)
    names = " ".join(card.marks)
    title = card.note or (f"{card.name} ×{card.count}" if card.count > 1 else card.name)
    if card.marks:
        title += " — " + words
    cls = " ".join(["card", *(["back"] if card.back else []), *(["m-star"] if star is not None else [])])
    style = f"--c:{card.fill};--i:{card.ink}"
    parts = [f"<div{_attrs(class_=cls, data_card=card.id, data_count=card.count, data_zone=row.zone, data_owner=row.owner, data_marks=names, style=style, title=title)}>"]
    if card.back:
        parts.append('<svg viewBox="0 0 64 86" aria-hidden="true"><use href="#back"/></svg>')
    else:
        parts.append(f'<span class="rank">{esc(card.rank)}</span><span class="name">{esc(card.name)}</span>')
    if card.count > 1 or card.back:
        parts.append(f'<span class="n">×{card.count}</span>')
    if star is not None:
        parts.append(f'<span class="star" aria-label="{esc(star)}">★</span>')
    if band:
        parts.append(f'<span class="band">{esc(band)}</span>')
    parts.append("</div>")
    return "".join(parts)


def row_html(row: Row, marks: Mapping[str, Mark]) -> str:
    if row.cards:
        inner = "".join(card_html(c, row, marks) for c in row.cards)
    else:
        inner = f'<span class="none">{esc(row.empty)}</span>'
    return (f'<div{_attrs(class_="row", data_zone=row.zone, data_owner=row.owner)}>'
            f'<div class="rlabel">{esc(row.label)}</div><div class="cards">{inner}</div></div>')


def panel_html(panel: Panel, marks: Mapping[str, Mark]) -> str:
    cls = "panel" + {"turn": " turn-on", "secret": " secret", "dim": " dim"}.get(panel.tone, "")
    out = [f"<section{_attrs(class_=cls, data_panel=panel.key)}>",
           f'<div class="ptitle"><h2>{esc(panel.title)}</h2>']
    if panel.badge:
        out.append(f'<span class="badge">{esc(panel.badge)}</span>')
    out.append("</div>")
    if panel.facts:
        out.append('<ul class="facts">' + "".join(f"<li>{esc(f)}</li>" for f in panel.facts) + "</ul>")
    if panel.rows:
        out.append('<div class="rows">' + "".join(row_html(r, marks) for r in panel.rows) + "</div>")
    out.append("</section>")
    return "".join(out)


def _grid(panels: tuple[Panel, ...], key: str, marks: Mapping[str, Mark], title: str = "") -> str:
    if not panels:
        return ""
    head = f'<h2 class="gtitle">{esc(title)}</h2>' if title else ""
    return head + f'<div class="grid" data-part="{esc(key)}">' + "".join(panel_html(p, marks) for p in panels) + "</div>"


def waiting_text(frame: Frame) -> str:
    """"waiting for alice, bob (carol answered)" (:func:`koryo_pbm.waiting.waiting_words`), or
    nothing when the game is over."""
    from koryo_pbm.waiting import waiting_words

    if not frame.decision:
        return ""
    return waiting_words(frame.waiting_for, frame.received)


def page(scene: Scene, frame: Frame) -> str:
    """The whole HTML document."""
    who = f" — as seen by {frame.for_player}" if frame.for_player else ""
    title = f"{frame.title} {frame.game_id}, version {frame.version}{who}"
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           '<meta name="color-scheme" content="light">',
           f"<title>{esc(title)}</title><style>{CSS}</style></head>",
           f"<body{_attrs(data_game=frame.game_id, data_version=frame.version, data_for=frame.for_player)}>",
           BACK, "<header>", f"<h1>{esc(scene.headline)}</h1>",
           f'<div class="sub">{esc(frame.title)} · game {esc(frame.game_id)} · version {frame.version}'
           + (f" · <b>private picture for {esc(frame.for_player)}: do not share</b>" if frame.for_player else "")
           + "</div>"]
    if scene.facts:
        out.append('<ul class="facts" data-part="facts">' + "".join(f"<li>{esc(f)}</li>" for f in scene.facts) + "</ul>")
    waiting = waiting_text(frame)
    if scene.turn or waiting:
        line = "; ".join(x for x in (scene.turn, waiting) if x)
        deadline = f' <span class="dl" data-deadline="{esc(frame.deadline)}">· answer by {esc(frame.deadline)}</span>' if frame.deadline else ""
        out.append(f'<div class="turn" data-part="turn">{esc(line)}{deadline}</div>')
    if scene.result:
        out.append(f'<div class="result" data-part="result">{esc(scene.result)}</div>')
    out.append("</header>")
    marks = dict(scene.marks)
    out.append(_grid(scene.private, "private", marks))
    for i, group in enumerate(scene.groups):
        out.append(_grid(group.panels, group.key or f"group-{i + 1}", marks, group.title))
    if frame.last:
        out.append(f'<div class="events" data-part="last"><b>What happened last</b> <span class="sub">{esc(frame.last_label)}</span><ul>'
                   + "".join(f"<li>{esc(e)}</li>" for e in frame.last) + "</ul></div>")
    if scene.legend:
        out.append('<div class="legend">' + " · ".join(esc(x) for x in scene.legend) + "</div>")
    out.append("</body></html>\n")
    return "\n".join(out)
