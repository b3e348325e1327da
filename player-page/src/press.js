// Press in the page: a player's message to other players, signed by the sender and sealed to each
// recipient, byte for byte as koryo_pbm/crypto/press.py makes and reads it (`koryo-pbm say` and
// `read`), and who may write to whom as koryo_pbm/press.py says (the game's [service] press policy,
// no press to oneself or to a bot seat). The judge relays press and cannot read it.
import * as core from "./core.js";

export const FORMAT = "koryo-pbm-press/v1";
export const BEGIN = "-----BEGIN KORYO-PBM PRESS-----";
export const END = "-----END KORYO-PBM PRESS-----";
export const FIELDS = ["format", "game_id", "from", "to", "sent", "nonce", "sender", "recipients"];
const SEAL_INFO_PREFIX = "koryo-pbm press v1\x00";
const CONTEXT = "press";
export const MAX_TEXT = 16000;
const BUCKETS = [1024, 2048, 4096, 8192, 16384];
const MAX_RECIPIENTS = 16;
const MAX_ARMORED = 512 * 1024;
const HPKE_OVERHEAD = 32 + 16;
const ID = /^[A-Za-z0-9][A-Za-z0-9_.:+-]{0,63}$/;
const HEX16 = /^[0-9a-f]{16}$/;
const HEX32 = /^[0-9a-f]{32}$/;
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
const B64_LINE = /^[A-Za-z0-9+/=]+$/;

function checkHeader(h) {
  const keys = Object.keys(h);
  if (keys.join() !== FIELDS.join()) {
    const unknown = keys.find((k) => !FIELDS.includes(k));
    if (unknown) throw new core.PageError(`the press has an unknown header field '${unknown.slice(0, 40)}'`);
    const missing = FIELDS.find((k) => !(k in h));
    if (missing) throw new core.PageError(`the press header field '${missing}' is missing`);
    throw new core.PageError("the press header fields are out of order");
  }
  if (h.format !== FORMAT) throw new core.PageError(`the press has another format (${h.format.slice(0, 40)}) than this page reads (${FORMAT})`);
  const names = h.to.split(","), prints = h.recipients.split(",");
  const ok = ID.test(h.game_id) && ID.test(h.from) && TIME.test(h.sent) && HEX32.test(h.nonce) && HEX16.test(h.sender)
    && names.every((n) => ID.test(n)) && prints.every((f) => HEX16.test(f));
  if (!ok) throw new core.PageError("a press header field has an invalid value");
  if (names.length !== prints.length || new Set(names).size !== names.length || names.length > MAX_RECIPIENTS) {
    throw new core.PageError("the press names its recipients wrongly");
  }
  if (names.includes(h.from)) throw new core.PageError("the press is addressed to its own sender");
}

function headerBytes(h) { return core.utf8(FIELDS.map((k) => `${k}: ${h[k]}\n`).join("")); }
function copyInfo(hb, name) { return core.concat(core.utf8(SEAL_INFO_PREFIX), hb, core.utf8(`${name}\n`)); }

function pad(text) {
  const need = 4 + text.length;
  const size = BUCKETS.find((b) => b >= need);
  const out = new Uint8Array(size);
  new DataView(out.buffer).setUint32(0, text.length, false);
  out.set(text, 4);
  return out;
}

function unpad(block) {
  const n = new DataView(block.buffer, block.byteOffset, 4).getUint32(0, false);
  const fits = BUCKETS.includes(block.length) && n <= block.length - 4 && BUCKETS.find((b) => b >= 4 + n) === block.length
    && block.slice(4 + n).every((x) => x === 0);
  if (!fits) throw new core.PageError("the press is padded wrongly");
  return block.slice(4, 4 + n);
}

function armor(h, body) {
  const b = core.b64(body);
  const lines = [BEGIN, ...FIELDS.map((k) => `${k}: ${h[k]}`), ""];
  for (let i = 0; i < b.length; i += 64) lines.push(b.slice(i, i + 64));
  lines.push(END);
  return lines.join("\n") + "\n";
}

/** The game's press policy (press.policy): private (to any other players), public (to all at once) or none. */
export function policy(game) {
  const p = (game.top.service ?? {}).press;
  return p === "public" || p === "none" ? p : "private";
}

/** Every player a press from ``sender`` may go to: not the sender, not a bot seat (it has the moderator's key). */
export function readers(game, sender) {
  return Object.keys(game.players).filter((n) => n !== sender && game.players[n].fingerprint !== game.moderator.fingerprint);
}

/** The recipients with their keys, checked against the game and its policy (press.recipients). */
export function recipients(game, sender, names) {
  const allowed = policy(game);
  if (allowed === "none") throw new core.PageError(`game ${game.top.game_id} allows no press`);
  const others = readers(game, sender);
  if (!names.length) throw new core.PageError("choose the players your press is for");
  for (const n of names) {
    if (n === sender) throw new core.PageError("press goes to other players, not to yourself");
    if (!others.includes(n)) throw new core.PageError(`${n.slice(0, 64)} is not a player who reads press in game ${game.top.game_id}`);
  }
  if (new Set(names).size !== names.length) throw new core.PageError("a player is chosen twice");
  if (allowed === "public" && [...names].sort().join() !== [...others].sort().join()) {
    throw new core.PageError(`game ${game.top.game_id} allows only public press: write it to every player`);
  }
  return names.map((n) => [n, game.players[n]]);
}

/** Sign ``text`` as ``identity`` (the player ``sender``) and seal a copy to each of ``names``: the armoured press. */
export async function makePress(game, identity, sender, names, text, { sent, nonce } = {}) {
  const to = recipients(game, sender, names);
  const raw = core.utf8(text);
  if (!text.trim()) throw new core.PageError("type your message first: the press is empty");
  if (raw.length > MAX_TEXT) throw new core.PageError(`your message is ${raw.length} bytes, more than the ${MAX_TEXT} a press may hold`);
  const h = {
    format: FORMAT, game_id: game.top.game_id, from: sender, to: to.map(([n]) => n).join(","),
    sent: sent ?? new Date().toISOString().slice(0, 19) + "Z", nonce: nonce ?? core.hex(core.random(16)),
    sender: identity.fingerprint, recipients: to.map(([, k]) => k.fingerprint).join(","),
  };
  checkHeader(h);
  const hb = headerBytes(h);
  const block = pad(raw);
  const copies = [];
  for (const [name, key] of to) copies.push(await core.seal(key.x, block, copyInfo(hb, name)));
  const signature = core.sign(identity, CONTEXT, core.concat(hb, ...copies));
  return { header: h, armored: armor(h, core.concat(...copies, signature)) };
}

/** The mail quoting at the start of a line (envelope._quote): its '>' marks and where it ends. */
function quoting(line) {
  let i = 0;
  while (i < line.length && (line[i] === " " || line[i] === "\t")) i++;
  const start = i;
  while (i < line.length && line[i] === ">") {
    i++;
    if (i < line.length && (line[i] === " " || line[i] === "\t")) i++;
  }
  return [line.slice(start, i), i];
}

function unquote(line, depth) {
  if (depth === 0) return line.trim();
  if (!line.trim()) return "";
  let pos = 0;
  while (pos < line.length && (line[pos] === " " || line[pos] === "\t")) pos++;
  for (let d = 0; d < depth; d++) {
    if (line[pos] !== ">") return null;
    pos++;
    if (line[pos] === " " || line[pos] === "\t") pos++;
  }
  return line.slice(pos).trim();
}

function parseBlock(lines) {
  const h = {};
  let i = 0;
  while (i < lines.length && lines[i] !== "" && Object.keys(h).length <= FIELDS.length) {
    const at = lines[i].indexOf(": ");
    const key = at < 0 ? "" : lines[i].slice(0, at);
    if (at < 0 || key in h) throw new core.PageError("a press header line is not 'key: value'");
    h[key] = lines[i].slice(at + 2);
    i++;
  }
  checkHeader(h);
  const body = lines.slice(i).filter((l) => l);
  if (!body.length || !body.every((l) => B64_LINE.test(l))) throw new core.PageError("the press body is not base64");
  let raw;
  try { raw = core.unb64(body.join(""), "the press body"); } catch { throw new core.PageError("the press body is not valid base64 (was it cut?)"); }
  const n = h.to.split(",").length;
  const size = (raw.length - 64) / n;
  if (raw.length <= 64 || !Number.isInteger(size) || !BUCKETS.includes(size - HPKE_OVERHEAD)) {
    throw new core.PageError("the press body has the wrong length (was a line lost when it was pasted?)");
  }
  const copies = [];
  for (let k = 0; k < n; k++) copies.push(raw.slice(k * size, (k + 1) * size));
  return { header: h, copies, signature: raw.slice(raw.length - 64) };
}

/** Every armoured press in ``text`` (also quoted with '>'), a PageError per broken one (press.scan_press). */
export function scanPress(text) {
  const lines = String(text).replace(/\r\n/g, "\n").replace(/\r/g, "\n").split("\n");
  const found = [];
  let i = 0;
  while (i < lines.length) {
    if (!lines[i].includes(BEGIN)) { i++; continue; }
    const depth = (quoting(lines[i])[0].match(/>/g) ?? []).length;
    const block = [];
    let size = 0, j = i + 1, ended = false;
    while (j < lines.length) {
      size += lines[j].length + 1;
      const inner = unquote(lines[j], depth);
      if (inner === END) { ended = true; break; }
      if (inner === null || inner === BEGIN || size > MAX_ARMORED) break;
      block.push(inner);
      j++;
    }
    if (size > MAX_ARMORED) found.push(new core.PageError(`the press is larger than ${MAX_ARMORED / 1024} KiB`));
    else if (!ended) found.push(new core.PageError(`the press has no '${END}' line (was it cut when it was pasted?)`));
    else {
      try { found.push(parseBlock(block)); } catch (e) { if (e instanceof core.PageError) found.push(e); else throw e; }
    }
    i = j + 1;
  }
  return found;
}

/** Open one press for the player ``me`` holding ``identity`` (press.read and Press.open): {from, to, sent, text}. */
export async function openPress(game, identity, me, p) {
  const h = p.header;
  if (h.game_id !== game.top.game_id) {
    throw new core.PageError(`this press is for game ${h.game_id}, not for game ${game.top.game_id}: open that game's file first`);
  }
  const sender = game.players[h.from];
  if (!sender) throw new core.PageError(`the press is from ${h.from.slice(0, 64)}, who is not a player of game ${game.top.game_id}`);
  if (h.sender !== sender.fingerprint) {
    throw new core.PageError(`the press from ${h.from} is signed by key ${h.sender}, not by ${h.from}'s key ${sender.fingerprint}`);
  }
  const hb = headerBytes(h);
  if (!core.verify(sender.ed, CONTEXT, core.concat(hb, ...p.copies), p.signature)) {
    throw new core.PageError(`the signature of the press from ${h.from} does not verify: it was changed`);
  }
  const names = h.to.split(",");
  const i = names.indexOf(me);
  if (i < 0) throw new core.PageError(`the press from ${h.from} is for ${names.join(", ")}, not for ${me}`);
  const sealedTo = h.recipients.split(",")[i];
  if (sealedTo !== identity.fingerprint) {
    throw new core.PageError(`the press from ${h.from} is sealed to another key of ${me} (${sealedTo}); yours is ${identity.fingerprint}`);
  }
  const block = await core.openSealed(identity.xSecret, p.copies[i], copyInfo(hb, me));
  if (!block) throw new core.PageError(`the press from ${h.from} does not open with your key: it was changed`);
  return { from: h.from, to: names, sent: h.sent, text: core.text(unpad(block), `the press from ${h.from}`) };
}
