// The player page: open the game file with your key, see the table, pick one of the legal choices
// the moderator's resolve sealed to you, and get the signed, sealed envelope to paste into a reply.
// Automation hooks (kept stable): input#game-file, input#key-file, input#passphrase, button#open,
// #hand, [data-choice] ([data-suggested]), body[data-leaf] (a finished choice is made), textarea#envelope,
// a#reply, input#new-name, button#keygen, textarea#public-key, a#key-download, button#show-public,
// textarea#press-in, [data-press-to], textarea#press-text, button#press-seal, textarea#press-out.
import * as core from "./core.js";
import { frameOf, svg } from "./picture.js";
import { readPasted, showPressFor, writePress } from "./pressui.js";
import { howToReply, mailto } from "./reply.js";
import { notInThisGame, publicOf } from "./session.js";
import { python } from "./python.js";
import { openTable, RulesError } from "./rules.js";

const $ = (id) => document.getElementById(id);
const STORE = "koryo-pbm/";
const unlocked = new Map();
const page = { game: null, identity: null, seat: null, part: null, opened: null, menu: null, orders: null, join: false,
  node: 0, path: [], leaf: null, signed: null };

function say(message, kind = "error") {
  const m = $("message");
  m.textContent = message;
  m.className = kind;
}

function store(key, value) {
  try { localStorage.setItem(STORE + key, JSON.stringify(value)); } catch { /* storage off: nothing kept */ }
}
function stored(key) {
  try { return JSON.parse(localStorage.getItem(STORE + key) ?? "null"); } catch { return null; }
}

async function readFile(input) {
  const file = input.files && input.files[0];
  if (!file) return null;
  if (file.size > 16 * 1024 * 1024) throw new core.PageError(`${file.name} is larger than 16 MB`);
  return new Uint8Array(await file.arrayBuffer());
}

function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); }
function add(parent, tag, textContent, attrs = {}) {
  const el = document.createElement(tag);
  if (textContent !== undefined && textContent !== null) el.textContent = textContent;
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  parent.appendChild(el);
  return el;
}

// -- the key ---------------------------------------------------------------------------------

async function loadIdentity() {
  const passphrase = $("passphrase").value;
  const bytes = await readFile($("key-file"));
  let keyText;
  if (bytes) keyText = core.text(bytes, "the key file");
  else if (stored("key")) keyText = stored("key");
  else throw new core.PageError("choose your key file (NAME.key), or make a key below");
  if (!passphrase && keyText.startsWith(core.SECRET_HEADER_V2)) {
    $("passphrase").focus();  // typed, Enter opens the game
    throw new core.PageError("your key is protected by a passphrase: type it in the passphrase field and press Enter");
  }
  // A key unlocked once stays unlocked while the page is open (in memory only, never stored):
  // scrypt costs seconds on purpose, and a player answers many decisions from one page.
  const unlockedAs = core.sha256hex(core.utf8(keyText + "\u0000" + passphrase));
  const identity = unlocked.get(unlockedAs) ?? core.parseKeyFile(keyText, passphrase);
  unlocked.set(unlockedAs, identity);
  $("unlocked-note").hidden = false;
  $("unlocked-note").textContent = `Your key ${identity.name} is unlocked in this page: while it stays open, drop each new game file on it, no passphrase needed.`;
  if ($("remember").checked) {
    // kept only encrypted under the passphrase: the v2 key file itself
    const kept = keyText.startsWith(core.SECRET_HEADER_V2) ? keyText
      : (passphrase ? core.encodeKeyFile(identity, passphrase) : null);
    if (!kept) throw new core.PageError("to remember your key in this browser, type a passphrase: the key is kept encrypted under it");
    store("key", kept);
    showRemembered();
  }
  return identity;
}

function showRemembered() {
  const kept = stored("key");
  $("remembered").hidden = !kept;
  if (kept) $("remembered-name").textContent = kept.split("\n")[0].split(": ").pop();
}

async function makeKey() {
  const name = $("new-name").value.trim();
  const passphrase = $("passphrase").value;
  if (!passphrase) throw new core.PageError("type a passphrase (in the passphrase field) first: it protects your new key file");
  say("making your key (the passphrase is stretched on purpose: a few seconds)…", "info");
  await new Promise((r) => setTimeout(r, 30));
  const identity = core.generateIdentity(name);
  const keyText = core.encodeKeyFile(identity, passphrase);
  $("public-key").value = identity.line + " " + identity.name;
  const link = $("key-download");
  link.href = "data:application/octet-stream;base64," + core.b64(core.utf8(keyText));
  link.download = `${identity.name}.key`;
  link.textContent = `Save ${identity.name}.key (your secret key: keep it, never send it)`;
  link.hidden = false;
  $("fingerprint").textContent = `fingerprint ${identity.fingerprint}: compare it with your moderator out of band`;
  if ($("remember").checked) { store("key", keyText); showRemembered(); }
  say(`your key ${identity.name} is made: save the key file, and send the public line to your moderator`, "ok");
}

// -- the game --------------------------------------------------------------------------------

// The pins (the moderator's key, the version, the history seen, per game) live in this browser's storage,
// which other pages opened from the disk may reach (file: pages share it in some browsers): each pin is
// kept under the player's key fingerprint and signed with the player's key, and one whose signature does
// not verify is not used (the page starts afresh for that game, as a new browser would, and says so).
const PIN_CONTEXT = "page-pin";
function pinKey(identity, gameId) { return `pin/${identity.fingerprint}/${gameId}`; }
function pinBytes(identity, gameId, pin) {
  return core.utf8(core.canonicalJson({ key: identity.fingerprint, game_id: gameId, pin }));
}
function storePin(identity, gameId, pin) {
  const signature = core.b64(core.sign(identity, PIN_CONTEXT, pinBytes(identity, gameId, pin)));
  store(pinKey(identity, gameId), { pin, signature });
}
function storedPin(identity, gameId) {
  const kept = stored(pinKey(identity, gameId));
  if (kept === null) return { pin: null, forged: false };
  let ok = false;
  try {
    ok = kept && typeof kept === "object" && kept.pin && typeof kept.pin === "object"
      && core.verify(identity.edPublic, PIN_CONTEXT, pinBytes(identity, gameId, kept.pin), core.unb64(String(kept.signature), "a pin"));
  } catch { ok = false; }
  return ok ? { pin: kept.pin, forged: false } : { pin: null, forged: true };
}

function checkPin(game, identity) {
  const top = game.top;
  const { pin, forged } = storedPin(identity, top.game_id);
  const log = top.log ?? [];
  if (!pin) return { pin: null, older: false, forged };
  if (pin.moderator !== game.moderator.fingerprint) {
    throw new core.PageError(`this game file is signed by moderator key ${game.moderator.fingerprint}, but game ${top.game_id} was signed by ${pin.moderator} when you opened it before: it is not from your moderator`);
  }
  if (top.version < pin.version) return { pin, older: true };
  if (top.version === pin.version && game.digest !== pin.digest) {
    throw new core.PageError(`this is another file of version ${top.version} of game ${top.game_id} than the one you opened before: the moderator signed two different histories (keep both files)`);
  }
  if (pin.logLength > 0 && (log.length < pin.logLength || log[pin.logLength - 1].hash !== pin.head)) {
    throw new core.PageError(`the history in this file does not continue the one you saw at version ${pin.version}: the moderator rewrote the history of game ${top.game_id} (keep both files)`);
  }
  return { pin, older: false, forged: false };
}

/** The public line of the key chosen above (or remembered), on request. */
async function showPublic() {
  const identity = await loadIdentity();
  const { line, fingerprint } = publicOf(identity);
  $("public-key").value = line;
  $("fingerprint").textContent = `fingerprint ${fingerprint}: the moderator's mails and the page show it; compare them`;
  say(`the public line of your key ${identity.name} is shown under "Your key"`, "ok");
  $("public-key").scrollIntoView({ block: "center" });
}

async function openGame() {
  // nothing of a game opened before stays shown while another file is opened (or refused)
  for (const id of ["decide", "result", "game"]) $(id).hidden = true;
  page.game = null;
  showPressFor(page);
  const bytes = await readFile($("game-file"));
  if (!bytes) throw new core.PageError("choose the game file first (game.toml, attached to the moderator's mail)");
  const game = core.readGame(bytes);
  const identity = await loadIdentity();
  const { pin, older, forged } = checkPin(game, identity);
  if (older) {
    // refused before anything of it is shown: its choices answer a decision already resolved
    throw new core.PageError(`this game file is version ${game.top.version} of game ${game.top.game_id}, older than version ${pin.version} you opened before: open the game file of the judge's latest mail`);
  }
  const other = notInThisGame(game, identity);
  if (other) throw new core.PageError(other);
  const { seat, data, menu } = await core.openPart(game, identity);
  // the table and every legal choice from the rules this page carries (koryo_pbm/pagecore.py);
  // a menu sealed by the moderator's older resolve only where the rules give none (the join)
  let opened = menu;
  let rulesSaid = null;
  if (game.top.deal !== "blind") {
    try {
      const rules = await started(openTable(new TextDecoder("utf-8", { fatal: true }).decode(bytes), data, seat));
      const table = { decision: rules.summary.decision, view: rules.summary.view, picture: rules.summary.picture,
        breakdown: rules.summary.breakdown };
      if (rules.menu) opened = rules.menu;
      else opened = menu ? { ...menu, ...table } : table;
    } catch (e) {
      if (!(e instanceof RulesError)) throw e;
      rulesSaid = e.message;
    }
  }
  Object.assign(page, { game, identity, seat, part: data, opened, rulesSaid, menu: null, node: 0, path: [], leaf: null });
  const top = game.top;
  const log = top.log ?? [];
  if (!older) {
    storePin(identity, top.game_id, { moderator: game.moderator.fingerprint, version: top.version, digest: game.digest,
      head: log.length ? log[log.length - 1].hash : null, logLength: log.length });
  }
  render(pin, older, forged);
  showPressFor(page);
  // the decision first: the page goes to it (on a phone its choices fill the first screen)
  $("decide").scrollIntoView({ block: "start" });
}

function render(pin, older, forged = false) {
  const { game, seat, part } = page;
  const top = game.top;
  const d = top.decision;
  $("game").hidden = false;
  $("result").hidden = true;
  $("envelope").value = "";
  $("decide-where").textContent = `game ${top.game_id}, version ${top.version}: you are ${seat}`;
  const summary = $("summary");
  clear(summary);
  add(summary, "li", `game ${top.game_id} (${top.game}), version ${top.version}, you are ${seat}`);
  add(summary, "li", `signed by moderator key ${game.moderator.fingerprint}`);
  if (d) {
    add(summary, "li", `pending decision ${d.id}: waiting for ${d.waiting_for.join(", ")}`
      + (d.received.length ? ` (received: ${d.received.join(", ")})` : ""));
    add(summary, "li", d.deadline ? `deadline: ${d.deadline} (UTC)` : "no deadline");
  } else {
    add(summary, "li", "the game is over");
  }
  const hand = $("hand");
  clear(hand);
  for (const card of part.hand ?? []) add(hand, "li", String(card));
  if (!(part.hand ?? []).length) add(hand, "li", "(no cards)");
  const more = $("more");
  clear(more);
  for (const [key, value] of Object.entries(part)) {
    if (["hand", "menu", "player"].includes(key) || !Array.isArray(value)) continue;
    add(more, "p", `${key.replace(/_/g, " ")}: ${value.length ? value.join(", ") : "(none)"}`);
  }
  $("table").textContent = page.opened?.view || "(this page draws the table from your part when a decision waits for you)";
  showPicture(top, seat);
  const log = top.log ?? [];
  const since = pin && !older ? pin.logLength : 0;
  const news = $("news");
  clear(news);
  if (forged) add(news, "p", `what this browser kept of game ${top.game_id} is not signed by your key (something else wrote it): it was not used; this file is checked as if you opened the game for the first time`, { class: "warn" });
  if (older) add(news, "p", `this file (version ${top.version}) is older than one you opened before (version ${pin.version}): open the newest game file`, { class: "warn" });
  const fresh = log.slice(since).flatMap((e) => e.events);
  if (pin && !older) add(news, "p", fresh.length ? "Since you last looked:" : "Nothing happened since you last looked.");
  const list = add(news, "ul", null, { "aria-label": "Events since you last looked" });
  for (const e of fresh.slice(-60)) add(list, "li", e);
  const history = $("history");
  clear(history);
  for (const e of log) for (const ev of e.events) add(history, "li", ev);
  page.menu = page.opened && page.opened.nodes && d && page.opened.decision === d.id ? page.opened : null;
  page.orders = null;
  page.join = false;
  $("decide").hidden = false;
  const final = !d && Array.isArray(page.opened?.breakdown) ? page.opened.breakdown : null;
  $("final").hidden = !final;
  $("breakdown").textContent = final ? final.join("\n") : "";
  if (!d) { showNoMenu("The game is over: there is nothing to decide; the table and the score are below."); return; }
  if (!d.waiting_for.includes(seat)) { showNoMenu(`Decision ${d.id} does not wait for you: nothing to do now.`); return; }
  if (d.kind === "join") {
    // the page writes the join itself: whatever order text the moderator's menu carries is not used
    page.join = true;
    page.menu = null;
    say(`opened: game ${top.game_id}, version ${top.version}, you are ${seat}`, "ok");
    showNode();
    return;
  }
  if (!page.menu) { showNoMenu(page.rulesSaid ?? "This page has no choices for this decision: answer with the command line (koryo-pbm play)."); return; }
  try {
    const ctx = core.orderContext(game);
    page.orders = page.menu.fromRules ? rulesOrders(page.menu, ctx) : core.readMenuOrders(page.menu, ctx);
  } catch (e) {
    if (!(e instanceof core.PageError)) throw e;
    page.menu = null;
    showNoMenu(e.message, "error");
    return;
  }
  say(`opened: game ${top.game_id}, version ${top.version}, you are ${seat}`, "ok");
  showNode();
}

// The rules start when the page opens (python.js); a browser that cannot run them (WebAssembly
// blocked or missing) would leave Pyodide waiting silently: after WATCHDOG ms the page says so.
const WATCHDOG = 45000;

function started(promise) {
  let timer;
  const watchdog = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new RulesError(
      "the rules did not start in this browser (WebAssembly may be blocked here): answer with the command line (koryo-pbm play)")), WATCHDOG);
  });
  return Promise.race([promise, watchdog]).finally(() => clearTimeout(timer));
}

function startRules() {
  document.body.dataset.rules = "starting";
  started(python()).then(() => { document.body.dataset.rules = "ready"; },
    (e) => { document.body.dataset.rules = "failed"; document.body.dataset.rulesError = String(e && e.message); });
}

// The table as the same picture as `show --html` (the scene the rules in the page draw, laid out by
// picture.js); the text view stays for screen readers and as a fallback.
function showPicture(top, seat) {
  const box = $("picture");
  clear(box);
  const pic = page.opened?.picture;
  const fresh = pic && (page.opened.decision ?? null) === (top.decision?.id ?? null);
  box.hidden = !fresh;
  $("table-text").open = !fresh;
  if (!fresh) return;
  try {
    const frame = frameOf(top, String(pic.title), seat);
    // svg.py's drawing width (960) on a laptop; on a narrower screen the width it has (at least
    // 320), so that cards keep their size and the panels go one under the other
    const room = Math.floor(box.getBoundingClientRect().width);
    box.append(svg(pic.scene, frame, room >= 600 ? 960 : Math.max(320, room)));
    box.setAttribute("aria-label", `The table as a picture: ${frame.title} ${frame.game_id}, version ${frame.version}, as seen by ${seat}; the same table as text follows`);
    box.setAttribute("aria-describedby", "table");
  } catch {
    clear(box);
    box.hidden = true;
    $("table-text").open = true;
  }
}

function showNoMenu(text, kind = "info") {
  $("question").textContent = text;
  clear($("choices"));
  clear($("picked"));
  $("back").hidden = true;
  $("suggested-note").hidden = true;
  delete document.body.dataset.leaf;
  say(text, kind);
}

/** The orders the page's rules give (rules.js), each read strictly as it is reached
 * (core.readOrder: a menu of thousands of step orders is not read whole); the order of a game whose
 * orders core.js does not know (a plug-in the page carries) is labelled by its own text. */
function rulesOrders(menu, ctx) {
  const read = new Map();
  return new Proxy([], { get: (target, prop) => {
    if (!/^\d+$/.test(String(prop))) return target[prop];
    const i = Number(prop);
    if (!read.has(i)) read.set(i, readRulesOrder(menu.orders[i], ctx));
    return read.get(i);
  } });
}

function readRulesOrder(text, ctx) {
  try { return core.readOrder(text, ctx); } catch (e) {
    if (!(e instanceof core.PageError) || !e.message.startsWith("this page knows no orders of")) throw e;
    return { text, body: null, label: text.split("\n").slice(2).filter(Boolean).join("; ") };
  }
}

/** The label of a finished choice: made from the order itself (core.readOrder), never the menu's. */
function leafLabel(t) { return page.orders[t].label; }

// A question whose answers end within FLAT finished choices is shown as those choices, whole
// (one click instead of one per step); the suggested choice is offered whole as well.
const FLAT = 16;

/** The finished choices under node ``at`` as paths of labels, or null when there are more than ``limit``. */
function leavesUnder(at, limit) {
  const out = [];
  const walk = (n, labels) => {
    for (const option of page.menu.nodes[n].o) {
      if (out.length > limit) return;
      if ("t" in option) out.push({ labels: [...labels, leafLabel(option.t)], t: option.t });
      else walk(option.n, [...labels, option.l]);
    }
  };
  walk(at, []);
  return out.length > limit ? null : out;
}

/** The suggested path from node ``at``: its labels and finished choice, or null if it stops short. */
function suggestedFrom(at) {
  const labels = [];
  let n = at;
  for (let steps = 0; steps < 64; steps++) {
    const node = page.menu.nodes[n];
    if (node.d === undefined) return null;
    const option = node.o[node.d];
    if ("t" in option) return { labels: [...labels, leafLabel(option.t)], t: option.t };
    labels.push(option.l);
    n = option.n;
  }
  return null;
}

function choiceButton(parent, label, index, suggested, onPick, t = null) {
  const b = add(parent, "button", label, { type: "button", "data-choice": String(index) });
  if (t !== null) b.title = page.orders[t].text;  // the exact order it signs
  if (suggested) {
    b.setAttribute("data-suggested", "");
    b.setAttribute("aria-describedby", "suggested-note");
  }
  b.addEventListener("click", guard(onPick));
  return b;
}

function showNode() {
  const menu = page.menu;
  const picked = $("picked");
  clear(picked);
  for (const step of page.path) add(picked, "li", step.label);
  $("back").hidden = page.path.length === 0;
  const choices = $("choices");
  clear(choices);
  $("suggested-note").hidden = page.leaf !== null;
  if (page.leaf !== null) {
    document.body.dataset.leaf = "yes";
    $("question").textContent = "Your choice is made: your reply is below. Changed your mind? Go back and choose again.";
    return;
  }
  delete document.body.dataset.leaf;
  if (page.join) {
    $("question").textContent = "Join the game";
    choiceButton(choices, "join the game: your contribution to the deal is 32 fresh random bytes from this browser, "
      + "signed with the seed commitment of this file (nobody alone chooses the deal)", 0, true, () => choose("join the game", "join"));
    return;
  }
  const node = menu.nodes[page.node];
  $("question").textContent = node.q;
  const flat = leavesUnder(page.node, FLAT);
  if (flat && flat.some((leaf) => leaf.labels.length > 1)) {
    const suggested = suggestedFrom(page.node);
    flat.forEach((leaf, i) => {
      const label = leafLabel(leaf.t);
      choiceButton(choices, label, i, suggested && suggested.t === leaf.t, () => choose(label, leaf.t), leaf.t);
    });
  } else {
    const whole = suggestedFrom(page.node);
    let index = 0;
    if (whole && whole.labels.length > 1) {
      const label = "The suggested choice, whole: " + leafLabel(whole.t);
      choiceButton(choices, label, index++, true, () => choose(leafLabel(whole.t), whole.t), whole.t);
    }
    node.o.forEach((option, i) => {
      const leaf = "t" in option ? option.t : null;
      const b = choiceButton(choices, leaf === null ? option.l : leafLabel(leaf), index++,
        !(whole && whole.labels.length > 1) && node.d === i, () => pick(i), leaf);
      if (node.d === i) b.classList.add("step-suggested");
    });
  }
  if (!menu.complete) add(choices, "p", "Some rare long turns are not listed here; the command line (koryo-pbm play) offers every one.", { class: "note" });
  const first = choices.querySelector("[data-suggested]") || choices.querySelector("button");
  if (first && page.path.length) first.focus();
}

/** A finished choice picked whole: sealed at once (the envelope is the confirmation to paste). */
async function choose(label, t) {
  page.path.push({ node: page.node, label });
  page.leaf = t;
  showNode();
  await sealChoice();
}

async function pick(i) {
  const node = page.menu.nodes[page.node];
  const option = node.o[i];
  if ("t" in option) { await choose(leafLabel(option.t), option.t); return; }
  page.path.push({ node: page.node, label: option.l });
  page.node = option.n;
  showNode();
}

function back() {
  const step = page.path.pop();
  if (!step) return;
  page.node = step.node;
  page.leaf = null;
  $("result").hidden = true;
  $("envelope").value = "";
  showNode();
}

async function sealChoice() {
  if (page.leaf === null) throw new core.PageError("pick a choice first");
  const { game, identity, seat } = page;
  const top = game.top;
  // what is signed is the order read strictly (its label shown is made from it), or the page's own join
  const order = page.join ? core.joinOrder(game) : page.orders[page.leaf];
  const ordersText = order.text;
  const { header, armored } = await core.makeEnvelope(identity, game.moderator, {
    gameId: top.game_id, decision: top.decision.id, answers: core.historyHead(game), player: seat, ordersText });
  page.signed = order;
  $("signed-label").textContent = order.label;
  $("signed-order").textContent = ordersText;
  $("envelope").value = armored;
  $("result").hidden = false;
  const how = howToReply(top);
  const reply = $("reply");
  reply.href = mailto(top, `orders ${header.decision} from ${seat}`, armored);
  reply.textContent = how.link;
  // without the judge's address a mail would have no recipient: Copy, and reply to the judge's mail
  reply.hidden = !how.auto;
  $("auto-reply-row").hidden = !how.auto;
  $("reply-how").textContent = how.how;
  const name = `${header.decision.replace(/[^A-Za-z0-9_.-]/g, "_")}--${seat.replace(/[^A-Za-z0-9_.-]/g, "_")}.envelope`;
  const dl = $("envelope-download");
  dl.href = "data:text/plain;base64," + core.b64(core.utf8(armored));
  dl.download = name;
  dl.title = `Save as ${name} (for a shared folder: put it into the game's inbox/)`;
  let copied = false;
  try { await navigator.clipboard.writeText(armored); copied = true; } catch { /* no clipboard: the Copy button */ }
  if ($("auto-reply").checked && how.auto) {
    reply.click();  // the choice's click opens the mail program with the reply written
    say("your reply is written in your mail program: check it and send it (the envelope is copied too)", "ok");
  } else {
    say(copied ? "your envelope is ready and copied: reply to the judge's mail and paste it"
      : "your envelope is ready: copy it and paste it into your reply to the judge's mail", "ok");
  }
  $("result").scrollIntoView({ block: "start" });
  (how.auto ? reply : $("copy")).focus();
}

async function copy() {
  const t = $("envelope");
  t.select();
  try { await navigator.clipboard.writeText(t.value); } catch { document.execCommand("copy"); }
  say("copied: paste it into your reply", "ok");
}

function guard(fn) {
  return async (event) => {
    if (event) event.preventDefault();
    try { await fn(); } catch (e) {
      if (e instanceof core.PageError) say(e.message);
      else say("something went wrong in the page: " + (e && e.message ? e.message : String(e)));
    }
  };
}

function dropFiles(event) {
  event.preventDefault();
  const files = [...event.dataTransfer.files];
  const press = files.find((f) => /\.(press|txt|eml)$/i.test(f.name));
  if (press && page.game) {
    guard(async () => { $("press-in").value = await press.text(); await readPasted(page, $("press-in").value); })();
    return;
  }
  for (const file of files) {
    const input = /\.key$/i.test(file.name) ? $("key-file") : $("game-file");
    const dt = new DataTransfer();
    dt.items.add(file);
    input.files = dt.files;
  }
  guard(openGame)();
}

document.addEventListener("DOMContentLoaded", () => {
  $("open-form").addEventListener("submit", guard(openGame));
  // choosing (or dropping) the game file opens it at once when a key is at hand: one action
  $("game-file").addEventListener("change", () => {
    if (($("key-file").files && $("key-file").files.length) || stored("key")) guard(openGame)();
  });
  $("keygen").addEventListener("click", guard(makeKey));
  $("reply").addEventListener("click", () => { document.body.dataset.replied = $("reply").href; });
  $("auto-reply").checked = stored("pref/auto-reply") !== false;
  $("auto-reply").addEventListener("change", () => store("pref/auto-reply", $("auto-reply").checked));
  $("show-public").addEventListener("click", guard(showPublic));
  $("press-in").addEventListener("input", guard(() => readPasted(page, $("press-in").value)));
  $("press-seal").addEventListener("click", guard(async () => {
    const h = await writePress(page);
    say(`your press to ${h.to.replace(/,/g, ", ")} is sealed and copied: mail it to the judge, who passes it on`, "ok");
  }));
  $("press-copy").addEventListener("click", guard(async () => {
    $("press-out").select();
    try { await navigator.clipboard.writeText($("press-out").value); } catch { document.execCommand("copy"); }
  }));
  $("back").addEventListener("click", back);
  $("copy").addEventListener("click", guard(copy));
  $("forget").addEventListener("click", () => { try { localStorage.removeItem(STORE + "key"); } catch { /* */ } showRemembered(); });
  document.body.addEventListener("dragover", (e) => e.preventDefault());
  document.body.addEventListener("drop", dropFiles);
  showRemembered();
  startRules();
  // automation (tests compare the page's choices with the command line's): every finished
  // choice the page offers for the open decision and the suggested one, as canonical orders texts
  window.koryoPbmChoices = () => {
    if (!page.menu || !page.menu.all) return null;
    const suggested = suggestedFrom(0);
    return { all: page.menu.all(), suggested: suggested ? page.menu.orders[suggested.t] : null };
  };
  document.body.dataset.ready = "yes";  // for scripts and tests: the page is set up
});
