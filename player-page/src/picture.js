// The picture of the table: a faithful port of koryo_pbm/picture/svg.py (presentation only, no
// rules). The scene comes sealed in the player's menu (koryo_pbm/choices.py, "picture"), drawn
// by the game from the player's own view; the frame (version, who is awaited, the deadline, what
// happened last) from the verified game file, as koryo_pbm.picture.frame_of makes it. The SVG is
// built with DOM APIs and presentation attributes only (the page's Content-Security-Policy allows
// no inline style), token for token as svg.py writes its text: the same elements, attributes in
// the same order, numbers written the same way, the same "\n" between parts. svg.py's one
// style attribute (max-width) is the page's style sheet's rule instead. tests/page checks that
// the serialised result equals svg.py's output for the same game file.

const NS = "http://www.w3.org/2000/svg";
const WIDTH = 960, MARGIN = 16, GAP = 10, MIN_COLUMN = 290, PAD = 10;
const CARD_W = 58, CARD_H = 80, CARD_GAP = 5;
const FONT = "DejaVu Sans,Verdana,sans-serif";

// Python's f"{x:.1f}": correctly rounded, ties (x.25, x.75 exactly) to even.
function f1(x) {
  if (Number.isInteger(x * 4) && !Number.isInteger(x * 2)) {
    let n = Math.floor(x * 10);
    if (n % 2) n += 1;
    return (n / 10).toFixed(1);
  }
  return x.toFixed(1);
}
// Python's str() of a float (rx=h/2, stroke widths): "10.0", "2.5".
function pyFloat(x) { return Number.isInteger(x) ? `${x}.0` : String(x); }
// A number Python writes as it is: an int ("13") or a float marked by the caller.
function num(x) { return typeof x === "string" ? x : String(x); }

const textWidth = (text, size) => [...text].length * size * 0.58;

function wrap(text, size, width) {
  const lines = [];
  let line = "";
  for (const word of text.split(" ")) {
    const trial = line ? `${line} ${word}` : word;
    if (line && textWidth(trial, size) > width) { lines.push(line); line = word; } else line = trial;
  }
  lines.push(line);
  return lines;
}

function el(tag, attrs, text) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of attrs) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

// Canvas.parts: a list of tokens, each an element ("leaf"), the opening of a group (its element
// and what is written inside it in the same part), or its close.
class Canvas {
  constructor(parts) { this.parts = parts ?? []; }
  text(x, y, s, size = 13, weight = "normal", fill = "#1f2328", anchor = "start") {
    this.parts.push({ leaf: el("text", [["x", f1(x)], ["y", f1(y)], ["font-size", num(size)], ["font-weight", weight],
      ["fill", fill], ["text-anchor", anchor]], s) });
  }
  rect(x, y, w, h, fill, stroke = "none", rx = 0, width = 1, dash = "") {
    const a = [["x", f1(x)], ["y", f1(y)], ["width", f1(w)], ["height", f1(h)], ["rx", num(rx)], ["fill", fill],
      ["stroke", stroke], ["stroke-width", num(width)]];
    if (dash) a.push(["stroke-dasharray", dash]);
    this.parts.push({ leaf: el("rect", a) });
  }
  open(attrs, inner = []) { this.parts.push({ open: el("g", attrs), inner }); }
  close() { this.parts.push({ close: true }); }
}

function chips(c, x, y, width, items, size = 12) {
  if (!items.length) return 0;
  let cx = x, cy = y;
  const h = size + 8;
  for (const item of items) {
    for (const piece of wrap(item, size, width - 16)) {
      const w = textWidth(piece, size) + 16;
      if (cx > x && cx + w > x + width) { cx = x; cy = cy + h + 4; }
      if (c) {
        c.rect(cx, cy, w, h, "#ffffff", "#d0d7de", pyFloat(h / 2));
        c.text(cx + 8, cy + h - 6, piece, size);
      }
      cx += w + 5;
    }
  }
  return cy + h - y;
}

// koryo_pbm.picture.model.card_marks: how a tile shows its marks, by the styles the scene gives
// them (the game declares them: Game.marks, carried in scene.marks): the words its tooltip adds,
// the words of its first "star" mark (null: no star), the label of its first "band" mark.
function cardMarks(k, marks) {
  const words = [];
  let star = null, band = "";
  for (const name of k.marks) {
    const mark = marks.get(name);
    if (mark === undefined) { words.push(name); continue; }
    words.push(mark.words);
    if (mark.style === "star" && star === null) star = mark.words;
    else if (mark.style === "band" && !band) band = mark.label;
  }
  return [words.join(", "), star, band];
}

function card(c, x, y, k, row, marks) {
  const [words, star, band] = cardMarks(k, marks);
  let note = k.note || k.name;
  if (k.marks.length) note += " — " + words;
  c.open([["class", "card"], ["data-card", k.id], ["data-count", String(k.count)], ["data-zone", row.zone],
    ["data-owner", row.owner], ["data-marks", k.marks.join(" ")]], [el("title", [], note)]);
  if (k.back) {
    c.rect(x, y, CARD_W, CARD_H, "#1f3b73", "#0b1d40", 6, 2);
    c.rect(x + 4, y + 4, CARD_W - 8, CARD_H - 8, "url(#weave)", "#8fb3ff", 4);
  } else {
    const major = star !== null;
    c.rect(x, y, CARD_W, CARD_H, k.fill, major ? "#ffd43b" : "rgba(0,0,0,.3)", 6, major ? 3 : 2);
    c.text(x + CARD_W / 2, y + 27, k.rank, 22, "bold", k.ink, "middle");
    wrap(k.name, 8.5, CARD_W - 4).slice(0, 2).forEach((line, i) => {
      c.text(x + CARD_W / 2, y + 41 + i * 10, line, "8.5", "normal", k.ink, "middle");
    });
    if (major) c.text(x + CARD_W - 3, y + 14, "★", 14, "normal", "#ffd43b", "end");
    if (band) {
      c.rect(x + 1.5, y + CARD_H - 15, CARD_W - 3, 13.5, "#ffd43b", "none", 2);
      c.text(x + CARD_W / 2, y + CARD_H - 4.5, band, 9, "bold", "#3b2f00", "middle");
    }
  }
  if (k.count > 1 || k.back) {
    const label = `×${k.count}`;
    const w = textWidth(label, 12) + 6;
    const cy = y + (k.back ? CARD_H / 2 - 9 : CARD_H - 33);
    const cx = k.back ? x + (CARD_W - w) / 2 : x + CARD_W - w - 3;
    c.rect(cx, cy, w, 16, "#ffffff", "none", 8);
    c.text(cx + w / 2, cy + 12.5, label, 12, "bold", "#1f2328", "middle");
  }
  c.close();
}

const perLine = (width) => Math.max(1, Math.floor((width + CARD_GAP) / (CARD_W + CARD_GAP)));

function rowSize(row, width) {
  const per = perLine(width);
  const n = row.cards.length;
  const cardsW = n ? Math.min(n, per) * (CARD_W + CARD_GAP) - CARD_GAP : textWidth(row.empty, 12);
  const w = Math.min(width, Math.max(textWidth(row.label, 11), cardsW));
  const labelLines = wrap(row.label, 11, w).length;
  const body = n ? Math.floor((n + per - 1) / per) * (CARD_H + CARD_GAP) : 18;
  return [w, labelLines * 13 + 4 + body];
}

function drawRow(c, x, y, width, row, marks) {
  const per = perLine(width);
  for (const line of wrap(row.label, 11, width)) { y += 13; c.text(x, y, line, 11, "normal", "#57606a"); }
  y += 4;
  if (!row.cards.length) c.text(x, y + 12, row.empty, 12, "normal", "#8c959f");
  row.cards.forEach((k, i) => {
    card(c, x + (i % per) * (CARD_W + CARD_GAP), y + Math.floor(i / per) * (CARD_H + CARD_GAP), k, row, marks);
  });
}

function panel(c, x, y, width, p, marks) {
  const inner = width - 2 * PAD;
  const body = [];
  const sub = c ? new Canvas(body) : null;
  let cy = y + PAD;
  for (const line of wrap(p.title, 15, inner)) { cy += 17; if (sub) sub.text(x + PAD, cy, line, 15, "bold"); }
  cy += 5;
  if (p.badge) {
    const bw = Math.min(inner, textWidth(p.badge, 11) + 14);
    if (sub) {
      sub.rect(x + PAD, cy, bw, 16, p.tone === "secret" ? "#8250df" : "#d4a017", "none", 8);
      sub.text(x + PAD + 7, cy + 12, p.badge, 11, "normal", "#ffffff");
    }
    cy += 21;
  }
  if (p.facts.length) cy += chips(sub, x + PAD, cy, inner, p.facts) + 4;
  let rx = 0, lineH = 0;
  for (const row of p.rows) {
    const [w, h] = rowSize(row, inner);
    if (rx > 0 && rx + w > inner) { cy += lineH; rx = 0; lineH = 0; }
    if (sub) drawRow(sub, x + PAD + rx, cy, w, row, marks);
    rx += w + 16;
    lineH = Math.max(lineH, h);
  }
  cy += lineH;
  const height = cy - y + PAD;
  if (c) {
    const [stroke, fill, w, dash] = { turn: ["#d4a017", "#ffffff", "2.5", ""], secret: ["#8250df", "#fdf6ff", 2, "6 4"] }[p.tone]
      ?? ["#d0d7de", "#ffffff", 1, ""];
    c.open([["class", "panel"], ["data-panel", p.key]]);
    c.rect(x, y, width, height, fill, stroke, 10, w, dash);
    c.parts.push(...body);
    c.close();
  }
  return height;
}

function grid(c, y, panels, key, width, marks) {
  const usable = width - 2 * MARGIN;
  const cols = Math.max(1, Math.min(panels.length, Math.floor((usable + GAP) / (MIN_COLUMN + GAP))));
  const colW = (usable - (cols - 1) * GAP) / cols;
  c.open([["data-part", key]]);
  for (let start = 0; start < panels.length; start += cols) {
    const line = panels.slice(start, start + cols);
    const h = Math.max(...line.map((p) => panel(null, 0, 0, colW, p, marks)));
    line.forEach((p, i) => panel(c, MARGIN + i * (colW + GAP), y, colW, p, marks));
    y += h + GAP;
  }
  c.close();
  return y;
}

// koryo_pbm.waiting.waiting_words / picture.html.waiting_text
function waitingText(frame) {
  if (!frame.decision) return "";
  const done = new Set(frame.received);
  const replied = frame.waiting_for.filter((p) => done.has(p));
  const awaited = frame.waiting_for.filter((p) => !done.has(p));
  let text = "waiting for " + (awaited.length ? awaited.join(", ") : "the moderator to resolve");
  if (replied.length) text += ` (${replied.join(", ")} answered)`;
  return text;
}

// A scene as koryo_pbm.engine.scene.to_json wrote it, its defaults filled in.
function fill(scene) {
  const cardOf = (k) => ({ rank: "", count: 1, fill: "#6b7280", ink: "#ffffff", marks: [], back: false, note: "", ...k });
  const rowOf = (r) => ({ owner: "", empty: "none", ...r, cards: r.cards.map(cardOf) });
  const panelOf = (p) => ({ key: "", tone: "", badge: "", ...p, facts: p.facts ?? [], rows: (p.rows ?? []).map(rowOf) });
  const markOf = ([name, m]) => [name, { style: "plain", label: "", ...m }];
  return {
    turn: "", result: "", ...scene, facts: scene.facts ?? [], legend: scene.legend ?? [],
    marks: new Map((scene.marks ?? []).map(markOf)),
    groups: (scene.groups ?? []).map((g) => ({ key: "", ...g, panels: g.panels.map(panelOf) })),
    private: (scene.private ?? []).map(panelOf),
  };
}

// "2026-11-27T18:00:00Z" as deadlines.human writes it: "2026-11-27 18:00 UTC" ("" if not a stamp).
function deadlineText(stamp) {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2})?Z$/.exec(typeof stamp === "string" ? stamp : "");
  return m ? `${m[1]} ${m[2]} UTC` : "";
}

/** The frame of koryo_pbm.picture.frame_of from the game file's public top. */
export function frameOf(top, title, forPlayer) {
  const d = top.decision ?? {};
  const log = top.log ?? [];
  const entry = log.length ? log[log.length - 1] : null;
  return {
    game_id: top.game_id, title, version: top.version, decision: String(d.id ?? ""),
    waiting_for: d.waiting_for ?? [], received: d.received ?? [], deadline: deadlineText(d.deadline),
    last_label: entry ? `(decision ${entry.decision ?? "?"}, version ${entry.version ?? "?"})` : "",
    last: entry ? (entry.events ?? []).map(String) : [], for_player: forPlayer,
  };
}

/** The picture's <svg> element (svg.py's svg(scene, frame, width)). */
export function svg(sceneData, frame, width = WIDTH) {
  const scene = fill(sceneData);
  const c = new Canvas();
  const inner = width - 2 * MARGIN;
  let y = MARGIN;
  for (const line of wrap(scene.headline, 20, inner)) { y += 24; c.text(MARGIN, y, line, 20, "bold"); }
  let sub = `${frame.title} · game ${frame.game_id} · version ${frame.version}`;
  if (frame.for_player) sub += ` · private picture for ${frame.for_player}: do not share`;
  for (const line of wrap(sub, 12, inner)) { y += 17; c.text(MARGIN, y, line, 12, "normal", "#57606a"); }
  y += 8;
  if (scene.facts.length) {
    c.open([["data-part", "facts"]]);
    y += chips(c, MARGIN, y, inner, scene.facts) + 8;
    c.close();
  }
  const waiting = waitingText(frame);
  let line = [scene.turn, waiting].filter((x) => x).join("; ");
  if (frame.deadline) line += ` · answer by ${frame.deadline}`;
  for (const [text, fillc, stroke, part] of [[line, "#fff4c2", "#e3c35a", "turn"], [scene.result, "#dff3e3", "#7cc48b", "result"]]) {
    if (!text) continue;
    const lines = wrap(text, 14, inner - 20);
    const h = 12 + 19 * lines.length;
    const attrs = [["data-part", part]];
    if (part === "turn" && frame.deadline) attrs.push(["data-deadline", frame.deadline]);
    c.open(attrs);
    c.rect(MARGIN, y, inner, h, fillc, stroke, 8);
    lines.forEach((t, i) => c.text(MARGIN + 10, y + 22 + 19 * i, t, 14, "bold"));
    c.close();
    y += h + 8;
  }
  y += 4;
  if (scene.private.length) y = grid(c, y, scene.private, "private", width, scene.marks);
  scene.groups.forEach((group, i) => {
    if (!group.panels.length) return;
    if (group.title) { y += 20; c.text(MARGIN, y, group.title, 17, "bold"); y += 8; }
    y = grid(c, y, group.panels, group.key || `group-${i + 1}`, width, scene.marks);
  });
  if (frame.last.length) {
    const lines = [];
    for (const event of frame.last) wrap(event, 13, inner - 30).forEach((t, j) => lines.push((j === 0 ? "• " : "  ") + t));
    const h = 36 + 18 * lines.length;
    c.open([["data-part", "last"]]);
    c.rect(MARGIN, y, inner, h, "#ffffff", "#d0d7de", 10);
    c.text(MARGIN + 10, y + 22, "What happened last " + frame.last_label, 14, "bold");
    lines.forEach((t, i) => c.text(MARGIN + 14, y + 42 + 18 * i, t, 13));
    c.close();
    y += h + 8;
  }
  if (scene.legend.length) {
    for (const l of wrap(scene.legend.join(" · "), 11, inner)) { y += 15; c.text(MARGIN, y, l, 11, "normal", "#57606a"); }
  }
  const height = Math.trunc(y + MARGIN);
  const who = frame.for_player ? ` — as seen by ${frame.for_player}` : "";
  const root = el("svg", [["viewBox", `0 0 ${width} ${height}`], ["width", "100%"], ["font-family", FONT],
    ["data-game", frame.game_id], ["data-version", String(frame.version)], ["data-for", frame.for_player]]);
  root.append(el("title", [], `${frame.title} ${frame.game_id}, version ${frame.version}${who}`));
  const defs = el("defs", []);
  const pattern = el("pattern", [["id", "weave"], ["width", "8"], ["height", "8"], ["patternUnits", "userSpaceOnUse"]]);
  pattern.append(el("path", [["d", "M0 4h8M4 0v8"], ["stroke", "#3b5ba5"], ["stroke-width", "2"]]));
  defs.append(pattern);
  root.append(defs, el("rect", [["width", String(width)], ["height", String(height)], ["fill", "#f4f1ea"]]));
  // the parts, "\n" between each two, into the group open at the time
  const stack = [root];
  c.parts.forEach((part, i) => {
    const top = stack[stack.length - 1];
    if (i) top.append(document.createTextNode("\n"));
    if (part.leaf) top.append(part.leaf);
    else if (part.open) { top.append(part.open); part.open.append(...part.inner); stack.push(part.open); }
    else stack.pop();
  });
  return root;
}
