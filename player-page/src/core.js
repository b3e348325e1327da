// The player page's protocol code: the same bytes as koryo_pbm/crypto and koryo_pbm/store/gamefile.py,
// from audited libraries only (@noble/*, @hpke/*, smol-toml). No game rules live here: the menu of
// legal choices comes sealed in the player's part (koryo_pbm/choices.py).
import { ed25519, x25519 } from "@noble/curves/ed25519.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { scrypt } from "@noble/hashes/scrypt.js";
import { chacha20poly1305 } from "@noble/ciphers/chacha.js";
import { CipherSuite, HkdfSha256 } from "@hpke/core";
import { DhkemX25519HkdfSha256 } from "@hpke/dhkem-x25519";
import { Chacha20Poly1305 } from "@hpke/chacha20poly1305";
import { parse as parseToml } from "smol-toml";

export class PageError extends Error {}

const enc = new TextEncoder();
const dec = new TextDecoder("utf-8", { fatal: true });

export const PUBLIC_PREFIX = "koryo-pbm-pub-v1:";
export const SECRET_HEADER = "# koryo-pbm secret key v1: ";
export const SECRET_HEADER_V2 = "# koryo-pbm secret key v2: ";
export const SCRYPT = { n: 131072, r: 8, p: 1 };
const SCRYPT_BOUNDS = { n: [1024, 262144], r: [1, 8], p: [1, 4] };
/** The least scrypt cost read (keys.SCRYPT_N_MIN): a key file with a lower n is refused. */
export const SCRYPT_N_MIN = 131072;
const V2_INFO = "koryo-pbm secret key v2\x00";
export const DOMAIN = "koryo-pbm/v1\x00";
export const GAME_FORMAT = "koryo-pbm-game/v4";
/** The game file formats this page reads: v4, and v3 and v2 (a finished game, or one a moderator has not resolved since). */
export const GAME_FORMATS = ["koryo-pbm-game/v4", "koryo-pbm-game/v3", "koryo-pbm-game/v2"];
export const PART_INFO_PREFIX = "koryo-pbm game part v1\x00";
export const SEAL_INFO_PREFIX = "koryo-pbm envelope v1\x00";
export const ENVELOPE_FORMAT = "koryo-pbm-envelope/v2";
export const FIELDS = ["format", "game_id", "decision", "answers", "player", "submitted", "nonce", "moderator", "sender"];
export const PAD_QUANTUM = 1024;
const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const MAX_GAME_FILE = 16 * 1024 * 1024;

// -- bytes ---------------------------------------------------------------------------------

export function utf8(s) { return enc.encode(s); }
export function text(b, what) {
  try { return dec.decode(b); } catch { throw new PageError(`${what} is not UTF-8 text`); }
}
export function concat(...parts) {
  const n = parts.reduce((a, p) => a + p.length, 0);
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}
export function hex(b) { return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join(""); }
export function fromHex(h) {
  const out = new Uint8Array(h.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(h.substr(2 * i, 2), 16);
  return out;
}
const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
export function b64(b) {
  let s = "";
  for (let i = 0; i < b.length; i += 3) {
    const n = (b[i] << 16) | ((b[i + 1] ?? 0) << 8) | (b[i + 2] ?? 0);
    s += B64[(n >> 18) & 63] + B64[(n >> 12) & 63];
    s += i + 1 < b.length ? B64[(n >> 6) & 63] : "=";
    s += i + 2 < b.length ? B64[n & 63] : "=";
  }
  return s;
}
export function unb64(s, what) {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.length % 4) throw new PageError(`${what} is not valid base64`);
  const pad = s.endsWith("==") ? 2 : s.endsWith("=") ? 1 : 0;
  const out = new Uint8Array((s.length / 4) * 3 - pad);
  let j = 0;
  for (let i = 0; i < s.length; i += 4) {
    const n = (B64.indexOf(s[i]) << 18) | (B64.indexOf(s[i + 1]) << 12)
      | ((B64.indexOf(s[i + 2]) & 63) << 6) | (B64.indexOf(s[i + 3]) & 63);
    if (j < out.length) out[j++] = (n >> 16) & 255;
    if (j < out.length) out[j++] = (n >> 8) & 255;
    if (j < out.length) out[j++] = n & 255;
  }
  if (b64(out) !== s) throw new PageError(`${what} is not canonical base64`);
  return out;
}
function b64url(b) { return b64(b).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""); }
function unb64url(s, what) {
  const std = s.replace(/-/g, "+").replace(/_/g, "/");
  return unb64(std + "=".repeat((4 - (std.length % 4)) % 4), what);
}
export function sha256hex(b) { return hex(sha256(b)); }
export function random(n) { const b = new Uint8Array(n); globalThis.crypto.getRandomValues(b); return b; }

// -- keys ----------------------------------------------------------------------------------

export function parsePublic(line) {
  const token = String(line).trim().split(/\s+/)[0] || "";
  if (!token.startsWith(PUBLIC_PREFIX)) throw new PageError(`not a koryo-pbm public key: expected '${PUBLIC_PREFIX}...'`);
  const body = token.slice(PUBLIC_PREFIX.length);
  if (!/^[A-Za-z0-9_-]{86}$/.test(body)) throw new PageError("not a koryo-pbm public key: the key text is damaged");
  const raw = unb64url(body, "the public key");
  if (b64url(raw) !== body) throw new PageError("not a koryo-pbm public key: the key text is damaged");
  if (!isValidPoint(raw.slice(0, 32))) {
    throw new PageError("not a usable public key: its signing key is not a point of the prime-order group (a small-order, mixed-order or non-canonical point)");
  }
  return { raw, ed: raw.slice(0, 32), x: raw.slice(32), line: PUBLIC_PREFIX + body, fingerprint: sha256hex(raw).slice(0, 16) };
}

export function publicLine(identity) {
  return PUBLIC_PREFIX + b64url(concat(identity.edPublic, identity.xPublic));
}

function identityOf(name, edSecret, xSecret) {
  const edPublic = ed25519.getPublicKey(edSecret);
  const xPublic = x25519.getPublicKey(xSecret);
  const raw = concat(edPublic, xPublic);
  return { name, edSecret, xSecret, edPublic, xPublic, fingerprint: sha256hex(raw).slice(0, 16),
           line: PUBLIC_PREFIX + b64url(raw) };
}

export function generateIdentity(name) {
  if (!NAME_RE.test(name)) throw new PageError("a name is 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit");
  return identityOf(name, ed25519.utils.randomSecretKey(), x25519.utils.randomSecretKey());
}

function scryptKey(passphrase, salt, n, r, p) {
  return scrypt(utf8(passphrase), salt, { N: n, r, p, dkLen: 32, maxmem: 2 ** 30 });
}

/** The key file text, format v2 (scrypt + ChaCha20-Poly1305), byte for byte as koryo_pbm/crypto/keys.py writes it. */
export function encodeKeyFile(identity, passphrase, { salt = random(16), nonce = random(12), params = SCRYPT } = {}) {
  if (!passphrase) throw new PageError("choose a passphrase: it protects the key file");
  const head = `${SECRET_HEADER_V2}${identity.name}\nkdf: scrypt\nn: ${params.n}\nr: ${params.r}\np: ${params.p}\n`
    + `salt: ${b64(salt)}\nnonce: ${b64(nonce)}\n`;
  const key = scryptKey(passphrase, salt, params.n, params.r, params.p);
  const sealed = chacha20poly1305(key, nonce, utf8(V2_INFO + head)).encrypt(concat(identity.edSecret, identity.xSecret));
  return head + "sealed: " + b64(sealed) + "\n";
}

const ED_PKCS8 = "302e020100300506032b657004220420";
const X_PKCS8 = "302e020100300506032b656e04220420";

/** A key file's text (v1 unencrypted PEM or v2 scrypt) to an identity; PageError with one sentence otherwise. */
export function parseKeyFile(textIn, passphrase) {
  const t = String(textIn).replace(/\r\n/g, "\n");
  if (t.trimStart().startsWith(PUBLIC_PREFIX)) throw new PageError("this is a public key (.pub): choose your secret key file (.key)");
  const lines = t.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  if (lines[0].startsWith(SECRET_HEADER_V2)) {
    const keys = ["kdf", "n", "r", "p", "salt", "nonce", "sealed"];
    if (lines.length !== 8) throw new PageError("the key file is damaged: a v2 key has 8 lines");
    const name = lines[0].slice(SECRET_HEADER_V2.length).trim();
    if (!NAME_RE.test(name)) throw new PageError("the key file is damaged: invalid name on its first line");
    const v = {};
    keys.forEach((k, i) => {
      if (!lines[i + 1].startsWith(`${k}: `)) throw new PageError(`the key file is damaged: expected '${k}: ...'`);
      v[k] = lines[i + 1].slice(k.length + 2);
    });
    if (v.kdf !== "scrypt") throw new PageError("the key file uses an unknown key derivation");
    const params = {};
    for (const [k, [lo, hi]] of Object.entries(SCRYPT_BOUNDS)) {
      const n = /^\d+$/.test(v[k]) ? Number(v[k]) : NaN;
      if (!(n >= lo && n <= hi) || (k === "n" && (n & (n - 1)))) throw new PageError(`the key file is damaged: scrypt '${k}' is out of bounds`);
      params[k] = n;
    }
    if (params.n < SCRYPT_N_MIN) {
      throw new PageError(`this key file is protected by a weak passphrase stretch (scrypt n = ${params.n}, below ${SCRYPT_N_MIN}): protect it again with koryo-pbm keygen --upgrade ${name}, or make a new key here`);
    }
    const salt = unb64(v.salt, "the key file"), nonce = unb64(v.nonce, "the key file"), sealed = unb64(v.sealed, "the key file");
    if (salt.length !== 16 || nonce.length !== 12 || sealed.length !== 80) throw new PageError("the key file is damaged: wrong sizes");
    if (!passphrase) throw new PageError("this key file is protected by a passphrase: type it in the passphrase field");
    const head = lines.slice(0, -1).join("\n") + "\n";
    const key = scryptKey(passphrase, salt, params.n, params.r, params.p);
    let raw;
    try { raw = chacha20poly1305(key, nonce, utf8(V2_INFO + head)).decrypt(sealed); } catch { throw new PageError("wrong passphrase for this key file"); }
    return identityOf(name, raw.slice(0, 32), raw.slice(32));
  }
  if (!lines[0].startsWith(SECRET_HEADER)) throw new PageError("this is not a koryo-pbm secret key file (its first line must be '# koryo-pbm secret key ...')");
  const name = lines[0].slice(SECRET_HEADER.length).trim();
  if (!NAME_RE.test(name)) throw new PageError("the key file is damaged: invalid name on its first line");
  const rest = lines.slice(1).join("\n");
  if (rest.includes("ENCRYPTED PRIVATE KEY")) {
    throw new PageError("this key file uses the old passphrase format: run koryo-pbm keygen --upgrade NAME once, then open the new file here");
  }
  const blocks = [...rest.matchAll(/-----BEGIN PRIVATE KEY-----\n([A-Za-z0-9+/=\n]+?)-----END PRIVATE KEY-----/g)];
  if (blocks.length !== 2) throw new PageError("the key file is damaged: expected two private key blocks");
  const der = blocks.map((m) => unb64(m[1].replace(/\n/g, ""), "the key file"));
  if (der[0].length !== 48 || hex(der[0].slice(0, 16)) !== ED_PKCS8 || der[1].length !== 48 || hex(der[1].slice(0, 16)) !== X_PKCS8) {
    throw new PageError("the key file is damaged: expected an Ed25519 key then an X25519 key");
  }
  return identityOf(name, der[0].slice(16), der[1].slice(16));
}

// -- signatures and sealing ----------------------------------------------------------------

export function signedMessage(context, data) { return concat(utf8(DOMAIN + context + "\x00"), data); }
export function sign(identity, context, data) { return ed25519.sign(signedMessage(context, data), identity.edSecret); }

/** Whether 32 bytes are the canonical encoding of a point of the prime-order subgroup, not of small
 * order: libsodium's crypto_core_ed25519_is_valid_point, which the command line applies to every key. */
export function isValidPoint(bytes) {
  try {
    const point = ed25519.Point.fromBytes(bytes, false);  // canonical: y < p, no x = 0 with the sign bit
    return !point.isSmallOrder() && point.isTorsionFree();
  } catch { return false; }
}

/** Strict Ed25519, the command line's verdict (cryptography: [S]B = R + [k]A, S < L, R as its canonical
 * bytes) on every signature: the key a point of the prime-order group (isValidPoint), R canonical and
 * torsion-free, then noble's check without ZIP-215 (its cofactored equation gives the same verdict once
 * neither A nor R has a component of small order). tests/vectors/ed25519-strict-v1.json holds the cases. */
export function verify(edPublic, context, data, signature) {
  try {
    if (signature.length !== 64 || !isValidPoint(edPublic)) return false;
    if (!ed25519.Point.fromBytes(signature.slice(0, 32), false).isTorsionFree()) return false;
    return ed25519.verify(signature, signedMessage(context, data), edPublic, { zip215: false });
  } catch { return false; }
}

let suiteCache = null;
function suite() {
  if (!suiteCache) suiteCache = new CipherSuite({ kem: new DhkemX25519HkdfSha256(), kdf: new HkdfSha256(), aead: new Chacha20Poly1305() });
  return suiteCache;
}
function ab(u8) { return u8.buffer.slice(u8.byteOffset, u8.byteOffset + u8.byteLength); }

/** HPKE base mode, X25519 / HKDF-SHA256 / ChaCha20-Poly1305: enc || ciphertext (as koryo_pbm/crypto/seal.py). */
export async function seal(xPublic, plaintext, info) {
  const s = suite();
  const pk = await s.kem.deserializePublicKey(ab(xPublic));
  const out = await s.seal({ recipientPublicKey: pk, info: ab(info) }, ab(plaintext));
  return concat(new Uint8Array(out.enc), new Uint8Array(out.ct));
}
export async function openSealed(xSecret, blob, info) {
  const s = suite();
  const sk = await s.kem.importKey("raw", ab(xSecret), false);
  try {
    const pt = await s.open({ recipientKey: sk, enc: ab(blob.slice(0, 32)), info: ab(info) }, ab(blob.slice(32)));
    return new Uint8Array(pt);
  } catch {
    return null;
  }
}

// -- the game file -------------------------------------------------------------------------

/** JSON as Python's json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False). */
export function canonicalJson(v) {
  if (v === null || v === undefined) return "null";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new PageError("a value cannot be hashed");
    return Number.isInteger(v) ? String(v) : pyFloat(v);
  }
  if (typeof v === "string") return JSON.stringify(v);
  if (Array.isArray(v)) return "[" + v.map(canonicalJson).join(",") + "]";
  if (v instanceof Date) return JSON.stringify(v.toISOString());
  const keys = Object.keys(v).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return "{" + keys.map((k) => JSON.stringify(k) + ":" + canonicalJson(v[k])).join(",") + "}";
}
function pyFloat(x) { const s = String(x); return /[.e]/.test(s) ? s.replace("e+", "e+") : s + ".0"; }

function entryHash(entry) {
  const body = {};
  for (const [k, val] of Object.entries(entry)) if (k !== "hash") body[k] = val;
  return "sha256:" + sha256hex(utf8(canonicalJson(body)));
}

// The moderator's part, the last table of a v4 file, whose data a player copy holds as its digest.
const MODERATOR_TABLE = "\n[sealed.moderator]\n";
const MODERATOR_DATA = /^recipient = "[0-9a-f]{16}"\ndata = (['"])([A-Za-z0-9+/]*={0,2})\1\n$/;

/** What the moderator's signature covers (gamefile.signed_message), given the text before the signature
 * line: from v4 on, its digested form (the moderator's part's data line swapped for its SHA-256), so that
 * the whole file and the player copy the judge mails verify alike; before v4, the text as it is. */
export function signedText(bodyText) {
  if (!bodyText.startsWith(`format = "${GAME_FORMAT}"\n`)) return bodyText;
  const at = bodyText.lastIndexOf(MODERATOR_TABLE);
  if (at < 0) return bodyText;
  const tail = bodyText.slice(at + MODERATOR_TABLE.length);
  const m = MODERATOR_DATA.exec(tail);
  if (!m) return bodyText;
  const line = at + MODERATOR_TABLE.length + tail.indexOf("\ndata = ") + 1;
  return bodyText.slice(0, line) + `digest = "sha256:${sha256hex(utf8(m[2]))}"\n`;
}

/** Read and check a game file's bytes (the whole file or its player copy): the moderator's signature (before
 * parsing), the TOML, the log's hash chain. ``digest``: the file's identity as pinned (gamefile.file_identity,
 * the SHA-256 of its player copy: the whole file and its copy are one version). */
export function readGame(bytesIn) {
  let bytes = bytesIn;
  if (!bytes || bytes.length === 0) throw new PageError("the game file is empty: choose the game.toml attached to the moderator's mail");
  if (bytes.length > MAX_GAME_FILE) throw new PageError("the game file is larger than 16 MB: not a koryo-pbm game file");
  if (bytes.includes(13)) {
    const t = text(bytes, "the game file").replace(/\r\n/g, "\n");
    if (t.includes("\r")) throw new PageError("the game file holds a stray carriage return: it is not the file the moderator signed");
    bytes = utf8(t);
  }
  const known = GAME_FORMATS.some((f) => {
    const first = utf8(`format = "${f}"\n`);
    return hex(bytes.slice(0, first.length)) === hex(first);
  });
  if (!known) {
    if (text(bytes.slice(0, 40), "the game file").startsWith('format = "koryo-pbm-game/')) {
      throw new PageError("this game file has another format than this page reads (koryo-pbm-game/v4, v3 and v2): get the player page of the koryo-pbm your moderator uses");
    }
    throw new PageError("this is not a koryo-pbm game file (choose the game.toml attached to the moderator's mail)");
  }
  if (bytes[bytes.length - 1] !== 10) throw new PageError("the game file is cut short: it does not end with its signature line");
  let cut = bytes.length - 2;
  while (cut >= 0 && bytes[cut] !== 10) cut--;
  const body = bytes.slice(0, cut + 1);
  const last = text(bytes.slice(cut + 1, bytes.length - 1), "the game file");
  const m = /^signature = "([A-Za-z0-9+/]{86}==)"$/.exec(last);
  if (!m) throw new PageError("the game file has no valid signature line at its end");
  const signature = unb64(m[1], "the signature");
  const bodyText = text(body, "the game file");
  const headerEnd = bodyText.indexOf("\n[");
  if (headerEnd < 0) throw new PageError("the game file has no header");
  let top;
  try { top = parseToml(bodyText.slice(0, headerEnd + 1)); } catch { throw new PageError("the game file has a malformed header"); }
  const moderator = parsePublic(top.moderator ?? "");
  const signed = utf8(signedText(bodyText));
  if (!verify(moderator.ed, "game-file", signed, signature)) {
    throw new PageError("the moderator's signature of this game file does not verify: it was changed after the moderator signed it (or it is a forgery)");
  }
  try { top = parseToml(bodyText); } catch (e) { throw new PageError("the game file is not valid TOML"); }
  let prev = "sha256:" + "0".repeat(64);
  (top.log ?? []).forEach((entry, i) => {
    if (entry.seq !== i + 1 || entry.prev !== prev || entry.hash !== entryHash(entry)) {
      throw new PageError(`log entry ${i + 1} does not match the hash chain: the history was changed`);
    }
    prev = entry.hash;
  });
  const players = {};
  for (const [name, line] of Object.entries(top.players ?? {})) players[name] = parsePublic(line);
  return { top, moderator, players, digest: sha256hex(concat(signed, bytes.slice(cut + 1))) };
}

/** The head of the game's history (gamefile.head): the hash of the last log entry, or of what the game started as. */
export function historyHead(game) {
  const top = game.top;
  if (top.log && top.log.length) return top.log[top.log.length - 1].hash;
  const start = {
    game_id: top.game_id, game: top.game, moderator: game.moderator.line, seed_commitment: top.seed_commitment,
    players: Object.fromEntries(Object.entries(game.players).map(([n, k]) => [n, k.line])),
    public: top.public, decision: top.decision ? top.decision.id : null,
  };
  return "sha256:" + sha256hex(utf8(canonicalJson(start)));
}

export function partInfo(gameId, version, name, recipient) {
  return utf8(PART_INFO_PREFIX + [gameId, String(version), name, recipient].join("\x00"));
}

/** The player's seat (by key) and their opened part (a table), as match.open_private finds them. */
export async function openPart(game, identity) {
  const seat = Object.keys(game.players).find((n) => game.players[n].fingerprint === identity.fingerprint
    && game.players[n].fingerprint !== game.moderator.fingerprint);
  if (!seat) {
    throw new PageError(`your key (${identity.fingerprint}) is not the key of any player of this game (the players are ${Object.keys(game.players).join(", ")})`);
  }
  const part = (game.top.sealed ?? {})[seat];
  if (!part || part.recipient !== identity.fingerprint) throw new PageError(`this game file holds no part sealed to your key for ${seat}`);
  const blob = unb64(part.data, "your sealed part");
  const plain = await openSealed(identity.xSecret, blob, partInfo(game.top.game_id, game.top.version, seat, identity.fingerprint));
  if (!plain) throw new PageError("your sealed part does not open with this key: it was changed or moved");
  let end = plain.length;
  while (end > 0 && plain[end - 1] === 32) end--;
  if (plain[end - 1] !== 125) throw new PageError("your sealed part is padded wrongly");
  let data;
  try { data = JSON.parse(text(plain.slice(0, end), "your sealed part")); } catch { throw new PageError("your sealed part does not hold valid data"); }
  if (!data || typeof data !== "object" || Array.isArray(data)) throw new PageError("your sealed part does not hold valid data");
  return { seat, data, menu: await openMenu(data.menu) };
}

/** The most a menu inflates to (choices.MENU_LIMIT). */
export const MENU_LIMIT = 4 * 1024 * 1024;

/** The menu of legal choices in the player's part (koryo_pbm/choices.py, encode_menu): compact
 * JSON, raw DEFLATE, base64, inflated by the browser's own DecompressionStream; a table as it is
 * (a file of an earlier koryo-pbm); null when the part holds none. */
export async function openMenu(value) {
  if (value === undefined || value === null) return null;
  if (typeof value === "object" && !Array.isArray(value)) return value;
  const bad = "the menu in your sealed part is damaged";
  if (typeof value !== "string") throw new PageError(bad);
  const blob = unb64(value, "the menu in your sealed part");
  const chunks = [];
  let size = 0;
  try {
    const reader = new Blob([blob]).stream().pipeThrough(new DecompressionStream("deflate-raw")).getReader();
    for (;;) {
      const { done, value: chunk } = await reader.read();
      if (done) break;
      size += chunk.length;
      if (size > MENU_LIMIT) { await reader.cancel(); throw new PageError(`the menu in your sealed part is larger than ${MENU_LIMIT} bytes`); }
      chunks.push(chunk);
    }
  } catch (e) {
    if (e instanceof PageError) throw e;
    throw new PageError(bad);
  }
  let menu;
  try { menu = JSON.parse(text(concat(...chunks), "the menu in your sealed part")); } catch { throw new PageError(bad); }
  if (!menu || typeof menu !== "object" || Array.isArray(menu)) throw new PageError(bad);
  return menu;
}

// -- envelopes -----------------------------------------------------------------------------

export function headerBytes(header) { return utf8(FIELDS.map((k) => `${k}: ${header[k]}\n`).join("")); }

export function pad(orders) {
  const size = Math.ceil((4 + orders.length) / PAD_QUANTUM) * PAD_QUANTUM;
  const out = new Uint8Array(size);
  new DataView(out.buffer).setUint32(0, orders.length, false);
  out.set(orders, 4);
  return out;
}

export function armor(header, ciphertext, signature) {
  const body = b64(concat(ciphertext, signature));
  const lines = ["-----BEGIN KORYO-PBM ENVELOPE-----", ...FIELDS.map((k) => `${k}: ${header[k]}`), ""];
  for (let i = 0; i < body.length; i += 64) lines.push(body.slice(i, i + 64));
  lines.push("-----END KORYO-PBM ENVELOPE-----");
  return lines.join("\n") + "\n";
}

/** Sign the canonical orders text as the player and seal it, padded, to the moderator: the armoured envelope. */
export async function makeEnvelope(identity, moderator, { gameId, decision, answers, player, ordersText, submitted, nonce }) {
  const header = {
    format: ENVELOPE_FORMAT, game_id: gameId, decision, answers: answers.replace(/^sha256:/, ""), player,
    submitted: submitted ?? new Date().toISOString(), nonce: nonce ?? hex(random(16)),
    moderator: moderator.fingerprint, sender: identity.fingerprint,
  };
  const hb = headerBytes(header);
  const orders = utf8(ordersText);
  const inner = sign(identity, "envelope-orders", concat(hb, orders));
  const ciphertext = await seal(moderator.x, concat(inner, pad(orders)), concat(utf8(SEAL_INFO_PREFIX), hb));
  const outer = sign(identity, "envelope", concat(hb, ciphertext));
  return { header, armored: armor(header, ciphertext, outer) };
}

// -- orders: the page signs only what it shows ----------------------------------------------------
// Every order the page signs is read here first: strict TOML (smol-toml, then written again in the one
// form koryo_pbm/match/orders.py's canonical_orders writes, which must give the very same text: no
// comment, no spacing, no key or value of its own), the keys and values each game's rules take for the
// decision (games/koryo/orders.py, games/korsar/rules.py), and the label the page shows is made from
// the order read, never from the menu: label and order cannot differ. The join is never the menu's:
// the page writes it (joinOrder), with its own random bytes and the file's seed commitment.

const PLAIN_TEXT = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;  // orders.py's _PLAIN_TEXT: written as it is, in double quotes
const BARE_KEY = /^[A-Za-z0-9_-]{1,64}$/;
const ORDERS_LIMIT = 64 * 1024;

function written(value) {
  if (typeof value === "string") {
    if (!PLAIN_TEXT.test(value)) throw new PageError("a text that is not plain");
    return `"${value}"`;
  }
  if (Array.isArray(value)) return "[" + value.map(written).join(", ") + "]";
  if (value && typeof value === "object" && !(value instanceof Date)) {
    return "{" + Object.keys(value).map((k) => `${bareKey(k)} = ${written(value[k])}`).join(", ") + "}";
  }
  throw new PageError("a value of a kind no order holds");
}
function bareKey(k) {
  if (!BARE_KEY.test(k)) throw new PageError("a key that is not plain");
  return k;
}

/** The orders text as the command line signs it (match.canonical_orders, for the values orders hold). */
export function canonicalOrders(gameId, decision, body) {
  return Object.entries({ game: gameId, decision, ...body }).map(([k, v]) => `${bareKey(k)} = ${written(v)}\n`).join("");
}

const KORYO_CARDS = ["merchant", "broadcaster", "guardian", "banker", "shipowner", "priest", "senator", "spy",
  "omniscient", "barbarian", "lobbying"];
const KORSAR_COLOURS = ["yellow", "red", "green", "blue"];
const KORSAR_CARDS = new Set([
  ...[2, 3, 4, 5, 6, 7, 8].map((v) => `galleon-${v}`),
  ...KORSAR_COLOURS.flatMap((c) => [1, 2, 3, 4].map((s) => `${c}-${s}`)),
  ...KORSAR_COLOURS.map((c) => `${c}-captain`), "admiral"]);
const GALLEON_ID = /^g[1-9][0-9]{0,5}$/;

function exactKeys(table, allowed, required, where) {
  if (!table || typeof table !== "object" || Array.isArray(table)) throw new PageError(`${where} is not a table`);
  const extra = Object.keys(table).filter((k) => !allowed.includes(k));
  if (extra.length) throw new PageError(`${where} holds a key no such order has (${extra[0].slice(0, 20)})`);
  const missing = required.filter((k) => !(k in table));
  if (missing.length) throw new PageError(`${where} lacks '${missing[0]}'`);
}
function koryoCard(c, where) {
  if (!KORYO_CARDS.includes(c)) throw new PageError(`${where} names no Koryo card`);
  return c;
}
function seatOf(p, ctx, where) {
  if (typeof p !== "string" || !ctx.players.includes(p)) throw new PageError(`${where} names no player of this game`);
  return p;
}
function cardList(v, where) {
  if (!Array.isArray(v) || v.length === 0 || v.length > 64) throw new PageError(`${where} is not a list of cards`);
  v.forEach((c) => koryoCard(c, where));
  return v;
}
/** "merchant ×2, spy" (cards.describe_counts). */
function koryoCounts(cards) {
  return KORYO_CARDS.filter((c) => cards.includes(c)).map((c) => {
    const n = cards.filter((x) => x === c).length;
    return n > 1 ? `${c} ×${n}` : c;
  }).join(", ");
}

function koryoStep(st, ctx, i) {
  const where = `step ${i + 1}`;
  if (!st || typeof st !== "object" || Array.isArray(st)) throw new PageError(`${where} is not a table`);
  switch (st.do) {
    case "reveal": exactKeys(st, ["do"], [], where); return "reveal your face-down cards";
    case "banker": exactKeys(st, ["do"], [], where); return "banker: take a token from the bank";
    case "priest": exactKeys(st, ["do", "card"], ["card"], where);
      return `priest: destroy your own ${koryoCard(st.card, where)}`;
    case "spy": exactKeys(st, ["do", "player"], ["player"], where);
      return `spy: steal a token from ${seatOf(st.player, ctx, where)}`;
    case "barbarian":
      if (Object.keys(st).length === 1) return "barbarian: no target (no effect)";
      exactKeys(st, ["do", "player", "card"], ["player", "card"], where);
      return `barbarian: destroy ${seatOf(st.player, ctx, where)}'s ${koryoCard(st.card, where)}`;
    case "lobbying": {
      if (Object.keys(st).length === 1) return "lobbying: no swap (no effect)";
      exactKeys(st, ["do", "swap"], ["swap"], where);
      const sw = st.swap;
      if (!Array.isArray(sw) || sw.length !== 2 || !sw.every((x) => Array.isArray(x) && x.length === 2)) {
        throw new PageError(`${where}: a swap is [[player, card], [player, card]]`);
      }
      const [[a, ca], [b, cb]] = sw;
      return `lobbying: swap ${seatOf(a, ctx, where)}'s ${koryoCard(ca, where)} with ${seatOf(b, ctx, where)}'s ${koryoCard(cb, where)}`;
    }
    default: throw new PageError(`${where} does nothing a Koryo step does`);
  }
}

function korsarGalleon(id, ctx) {
  const g = (ctx.public?.galleons ?? []).find((x) => x && x.id === id);
  return g && typeof g.owner === "string" && typeof g.card === "string" ? `${id} (${g.owner}'s ${g.card})` : id;
}

/** What an order of each game and decision kind holds, and its label in words, from the order alone. */
const ORDERS = {
  koryo: {
    orders: (b) => { exactKeys(b, ["play"], ["play"], "the order"); return `place face down: ${koryoCounts(cardList(b.play, "play"))}`; },
    discard: (b) => { exactKeys(b, ["discard"], ["discard"], "the order"); return `discard: ${koryoCounts(cardList(b.discard, "discard"))}`; },
    action: (b, ctx) => {
      exactKeys(b, ["steps"], ["steps"], "the order");
      if (!Array.isArray(b.steps) || b.steps.length > 64) throw new PageError("'steps' is not a list of steps");
      const steps = b.steps.map((st, i) => koryoStep(st, ctx, i));
      return `your turn: ${steps.length ? steps.join("; then ") : "no step"}`;
    },
  },
  korsar: {
    turn: (b, ctx) => {
      exactKeys(b, ["action", "card", "galleon"], ["action"], "the order");
      const { action, card, galleon } = b;
      if (action === "draw") {
        if (card !== undefined || galleon !== undefined) throw new PageError("a draw names no card");
        return "draw the top card of the pile";
      }
      if (!["play", "discard"].includes(action)) throw new PageError("the order's action is not draw, play or discard");
      if (typeof card !== "string" || !KORSAR_CARDS.has(card)) throw new PageError("the order names no Korsar card");
      if (galleon !== undefined && (typeof galleon !== "string" || !GALLEON_ID.test(galleon))) throw new PageError("the order names no galleon");
      if (action === "discard") {
        if (galleon !== undefined) throw new PageError("a discard names no galleon");
        return `discard ${card}`;
      }
      if (card.startsWith("galleon-")) {
        if (galleon !== undefined) throw new PageError("a galleon is put to sea, beside no galleon");
        return `put ${card} to sea in front of you`;
      }
      if (galleon === undefined) throw new PageError("playing a card names the galleon it goes beside");
      return `play ${card} beside ${korsarGalleon(galleon, ctx)}`;
    },
  },
};

/** What an order answering the game file's pending decision is checked against. */
export function orderContext(game) {
  const top = game.top, d = top.decision;
  if (!d) throw new PageError("the game is over: there is nothing to sign");
  return { game: top.game, gameId: top.game_id, decision: d.id, kind: d.kind, players: Object.keys(game.players),
    public: top.public ?? {}, commitment: top.seed_commitment };
}

/** An order text read strictly: {text, body, label}; PageError with the reason otherwise. */
export function readOrder(orderText, ctx) {
  if (typeof orderText !== "string" || orderText.length > ORDERS_LIMIT) throw new PageError("it is not an orders text");
  let doc;
  try { doc = parseToml(orderText); } catch { throw new PageError("it is not valid TOML"); }
  const keys = Object.keys(doc);
  if (keys[0] !== "game" || keys[1] !== "decision") throw new PageError("it does not begin with the game and the decision");
  if (doc.game !== ctx.gameId || doc.decision !== ctx.decision) throw new PageError("it answers another game or decision");
  const body = {};
  for (const k of keys.slice(2)) body[k] = doc[k];
  let again;
  try { again = canonicalOrders(doc.game, doc.decision, body); } catch (e) { throw new PageError(`it holds ${e.message}`); }
  if (again !== orderText) throw new PageError("it is not in the one form an order is signed in (a comment, a spacing or a form of its own)");
  const rule = ORDERS[ctx.game]?.[ctx.kind];
  if (!rule) throw new PageError(`this page knows no orders of ${String(ctx.game).slice(0, 20)}'s ${String(ctx.kind).slice(0, 20)} decisions`);
  return { text: orderText, body, label: rule(body, ctx) };
}

/** Every order of a menu read strictly (readOrder), or one sentence refusing the menu. */
export function readMenuOrders(menu, ctx) {
  if (!Array.isArray(menu.orders) || !menu.orders.length) throw new PageError("the menu in your sealed part holds no orders: nothing is signed; answer with the command line (koryo-pbm play)");
  return menu.orders.map((t, i) => {
    try { return readOrder(t, ctx); } catch (e) {
      if (!(e instanceof PageError)) throw e;
      throw new PageError(`the moderator's menu carries an order this page cannot read strictly (order ${i + 1}: ${e.message}): nothing is signed; answer with the command line (koryo-pbm play)`);
    }
  });
}

/** The join order, written by the page (never taken from the menu): 32 fresh random bytes from this
 * browser's generator and the seed commitment of the game file the player joins, as the command line's
 * `orders`/`play` write it (fair.Joining: {contribution, commitment}). */
export function joinOrder(game, fresh = () => hex(random(32))) {
  const ctx = orderContext(game);
  if (ctx.kind !== "join" || ctx.decision !== "join") throw new PageError("the pending decision is not the join");
  if (typeof ctx.commitment !== "string" || !/^sha256:[0-9a-f]{64}$/.test(ctx.commitment)) {
    throw new PageError("the game file has no seed commitment to join under");
  }
  const said = ctx.public.commitment;
  if (said !== undefined && said !== ctx.commitment) {
    throw new PageError("the game file's join names another seed commitment than its header: nothing is signed");
  }
  const contribution = fresh();
  if (!/^[0-9a-f]{64}$/.test(contribution)) throw new PageError("no fresh contribution could be made");
  const text = canonicalOrders(ctx.gameId, ctx.decision, { contribution, commitment: ctx.commitment });
  return { text, body: { contribution, commitment: ctx.commitment },
    label: `join the game: your contribution to the deal is ${contribution.slice(0, 12)}…, 32 fresh random bytes from this browser, signed with the seed commitment of this file (${ctx.commitment.slice(0, 19)}…)` };
}
