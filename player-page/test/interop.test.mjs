// The page's protocol code against vectors made by the Python code (tests/vectors/interop.json).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as core from "../src/core.js";

const V = JSON.parse(readFileSync(new URL("../../tests/vectors/interop.json", import.meta.url), "utf8"));
const fromHex = core.fromHex, hex = core.hex, utf8 = core.utf8;

test("key files: v1 and v2 (scrypt) read as the Python code wrote them", () => {
  const a = core.parseKeyFile(V.alice.key_v1);
  assert.equal(a.line, V.alice.line);
  assert.equal(a.fingerprint, V.alice.fingerprint);
  const b = core.parseKeyFile(V.alice.key_v2, V.alice.passphrase);
  assert.equal(b.line, V.alice.line);
  assert.throws(() => core.parseKeyFile(V.alice.key_v2, "wrong"), /wrong passphrase/);
});

test("key files: the page writes v2 byte for byte as the Python code", () => {
  const a = core.parseKeyFile(V.alice.key_v1);
  const text = core.encodeKeyFile(a, V.alice.passphrase, {
    salt: core.unb64(V.alice.salt, "salt"), nonce: core.unb64(V.alice.nonce, "nonce") });
  assert.equal(text, V.alice.key_v2);
});

test("signatures: domain-separated Ed25519, the same bytes", () => {
  const a = core.parseKeyFile(V.alice.key_v1);
  const data = fromHex(V.signature.data);
  assert.equal(hex(core.signedMessage(V.signature.context, data)), V.signature.message);
  assert.equal(hex(core.sign(a, V.signature.context, data)), V.signature.signature);
  assert.ok(core.verify(a.edPublic, V.signature.context, data, fromHex(V.signature.signature)));
  assert.ok(!core.verify(a.edPublic, "envelope", data, fromHex(V.signature.signature)));
});

test("HPKE: a part sealed by Python opens with the same info; another info does not", async () => {
  const a = core.parseKeyFile(V.alice.key_v1);
  assert.equal(hex(core.partInfo("g-1", 7, "alice", a.fingerprint)), V.part.info);
  const plain = await core.openSealed(a.xSecret, fromHex(V.part.blob), fromHex(V.part.info));
  assert.equal(hex(plain), V.part.plaintext);
  assert.equal(await core.openSealed(a.xSecret, fromHex(V.part.blob), utf8("other")), null);
});

test("HPKE: what the page seals opens with the recipient's key", async () => {
  const a = core.parseKeyFile(V.alice.key_v1);
  const blob = await core.seal(a.xPublic, utf8("hello"), utf8("info"));
  assert.equal(blob.length, 32 + 5 + 16);
  assert.equal(new TextDecoder().decode(await core.openSealed(a.xSecret, blob, utf8("info"))), "hello");
});

test("envelopes: canonical header, padding, inner signature, seal info", async () => {
  const a = core.parseKeyFile(V.alice.key_v1);
  const E = V.envelope;
  const hb = core.headerBytes(E.header);
  assert.equal(hex(hb), E.header_bytes);
  assert.equal(hex(core.pad(utf8(E.orders))), E.padded);
  assert.equal(hex(core.sign(a, "envelope-orders", core.concat(hb, utf8(E.orders)))), E.inner);
  assert.equal(hex(core.concat(utf8(core.SEAL_INFO_PREFIX), hb)), E.seal_info);
  const mod = core.parsePublic(V.moderator.line);
  const made = await core.makeEnvelope(a, mod, { gameId: "g-1", decision: "d3", answers: "sha256:" + "ab".repeat(32),
    player: "alice", ordersText: E.orders, submitted: E.header.submitted, nonce: E.header.nonce });
  const lines = made.armored.split("\n"), py = E.armored.split("\n");
  assert.deepEqual(lines.slice(0, 11), py.slice(0, 11));  // BEGIN, the nine fields, the blank line
  assert.equal(made.armored.length, E.armored.length);  // same sizes: padding and HPKE as Python's
});

test("canonical JSON as Python's json.dumps(sort_keys=True)", () => {
  assert.equal(core.canonicalJson(V.canonical_json.value), V.canonical_json.text);
});

test("game files: signature, hash chain, head of the history, the player's part and menu", async () => {
  for (const g of V.games) {
    const game = core.readGame(utf8(g.file));
    assert.equal(game.top.version, g.version);
    assert.equal(core.historyHead(game), g.head);
    const me = core.parseKeyFile(g.key);
    const { seat, data, menu } = await core.openPart(game, me);
    assert.equal(seat, g.seat);
    assert.deepEqual(data, g.part);
    assert.deepEqual(menu, g.menu);
    const broken = g.file.replace("version = ", "version = 1");
    assert.throws(() => core.readGame(utf8(broken)), /does not verify/);
    const crlf = g.file.replace(/\n/g, "\r\n");
    assert.equal(core.readGame(utf8(crlf)).top.version, g.version);
    assert.equal("sha256:" + game.digest, g.identity);
  }
});

test("a player copy (the moderator's part as its digest): the same signature, the same file; changed, refused", async () => {
  for (const g of V.games) {
    assert.ok(g.copy.length < g.file.length && g.copy.includes('\n[sealed.moderator]\nrecipient = "'));
    const game = core.readGame(utf8(g.copy));
    assert.equal("sha256:" + game.digest, g.identity);
    assert.equal(core.historyHead(game), g.head);
    const { seat, data } = await core.openPart(game, core.parseKeyFile(g.key));
    assert.equal(seat, g.seat);
    assert.deepEqual(data, g.part);
    const digest = /digest = "sha256:([0-9a-f]{64})"/.exec(g.copy)[1];
    const other = g.copy.replace(digest, [...digest].reverse().join(""));
    assert.throws(() => core.readGame(utf8(other)), /does not verify/);
  }
});

test("a game finished in format v3 (signed over its bytes as they are) is read, its own identity", () => {
  for (const g of V.old_games) {
    const game = core.readGame(utf8(g.file));
    assert.equal(game.top.format, "koryo-pbm-game/v3");
    assert.equal("sha256:" + game.digest, g.identity);
    assert.throws(() => core.readGame(utf8(g.file.replace("version = ", "version = 1"))), /does not verify/);
  }
});

test("a menu: inflated as Python deflated it; a damaged or huge one refused in one sentence", async () => {
  const g = V.games[0];
  const me = core.parseKeyFile(g.key);
  const { menu } = await core.openPart(core.readGame(utf8(g.file)), me);
  assert.equal(typeof g.part.menu, "string");
  assert.deepEqual(await core.openMenu(g.part.menu), menu);
  assert.deepEqual(await core.openMenu({ decision: "d" }), { decision: "d" });  // a file of an earlier koryo-pbm
  assert.equal(await core.openMenu(undefined), null);
  await assert.rejects(core.openMenu(g.part.menu.slice(0, 40)), core.PageError);
  await assert.rejects(core.openMenu("AAAA"), core.PageError);
  await assert.rejects(core.openMenu(7), core.PageError);
  await assert.rejects(core.openMenu(V.menu_bomb), /larger than/);
});

test("bad input: one sentence, never a crash", () => {
  assert.throws(() => core.readGame(new Uint8Array()), core.PageError);
  assert.throws(() => core.readGame(utf8("hello\n")), /not a koryo-pbm game file/);
  assert.throws(() => core.readGame(utf8('format = "koryo-pbm-game/v1"\n')), /another format/);
  assert.throws(() => core.parseKeyFile(V.moderator.line), /public key/);
  assert.throws(() => core.parseKeyFile("junk"), core.PageError);
});

test("a key file with a weak scrypt cost (n below 2^17) is refused before any guess, naming the fix", () => {
  const weak = V.alice.key_v2.replace("n: 131072", "n: 1024");
  assert.throws(() => core.parseKeyFile(weak, V.alice.passphrase), /weak passphrase stretch \(scrypt n = 1024, below 131072\).*keygen --upgrade alice/);
});
