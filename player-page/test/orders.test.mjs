// The page signs only what it shows (issue 29, item 4): every order of a menu read strictly, its label made
// from the order, and the join written by the page itself, whatever the menu carries.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as core from "../src/core.js";

const V = JSON.parse(readFileSync(new URL("../../tests/vectors/interop.json", import.meta.url), "utf8"));
const games = V.games.map((g) => ({ g, game: core.readGame(core.utf8(g.file)) }));
const joining = games.find(({ game }) => game.top.decision.kind === "join");
const turn = games.find(({ game }) => game.top.decision.kind === "turn");

test("the join is the page's own: fresh bytes, the file's seed commitment, the command line's text", () => {
  const { game, g } = joining;
  const a = core.joinOrder(game), b = core.joinOrder(game);
  assert.notEqual(a.body.contribution, b.body.contribution);
  assert.match(a.body.contribution, /^[0-9a-f]{64}$/);
  assert.equal(a.body.commitment, game.top.seed_commitment);
  const fixed = core.joinOrder(game, () => "ab".repeat(32));
  // byte for byte the menu's text (the command line's canonical_orders) with the contribution in place of the zeros
  assert.equal(fixed.text, g.menu.orders[0].replace("0".repeat(64), "ab".repeat(32)));
  assert.ok(fixed.label.includes("abababababab") && fixed.label.includes(game.top.seed_commitment.slice(0, 19)));
  assert.throws(() => core.joinOrder(turn.game), /not the join/);
});

test("a menu's orders are read strictly and labelled from the orders themselves", () => {
  const { game, g } = turn;
  const ctx = core.orderContext(game);
  const orders = core.readMenuOrders(g.menu, ctx);
  assert.equal(orders.length, g.menu.orders.length);
  orders.forEach((o, i) => assert.equal(o.text, g.menu.orders[i]));
  assert.deepEqual(orders.map((o) => o.label), g.menu.orders.map((t) => {
    const card = /card = "([^"]+)"/.exec(t);
    return card ? `put ${card[1]} to sea in front of you` : "draw the top card of the pile";
  }));
});

test("an order not in the one signed form, or holding what no order holds, is refused in one sentence", () => {
  const { game, g } = turn;
  const ctx = core.orderContext(game);
  const text = g.menu.orders[0];
  const bad = {
    "a comment": text + "# a note\n",
    "a comment at the end of a line": text.replace('"draw"', '"draw" # x'),
    "a spacing of its own": text.replace(" = ", "  =  "),
    "an unknown key": text + 'bonus = "yes"\n',
    "another game": text.replace(/game = "[^"]+"/, 'game = "other-1"'),
    "another decision": text.replace(/decision = "[^"]+"/, 'decision = "t9-dave"'),
    "a card of no game": text.replace('action = "draw"', 'action = "play"\ncard = "joker"'),
    "not TOML": "game = \n",
    "a draw with a card": text + 'card = "red-3"\n',
  };
  for (const [what, t] of Object.entries(bad)) {
    assert.throws(() => core.readOrder(t, ctx), core.PageError, what);
    const menu = { ...g.menu, orders: [...g.menu.orders.slice(1), t] };
    assert.throws(() => core.readMenuOrders(menu, ctx), /cannot read strictly.*nothing is signed/, what);
  }
});

test("Koryo's orders: the label names the cards and the steps the order holds", () => {
  const ctx = { game: "koryo", gameId: "k-1", decision: "r1-orders", kind: "orders", players: ["alice", "bob"], public: {} };
  const play = core.canonicalOrders("k-1", "r1-orders", { play: ["senator", "spy", "senator"] });
  assert.equal(core.readOrder(play, ctx).label, "place face down: senator ×2, spy");
  const act = { ...ctx, decision: "r1-action-alice", kind: "action" };
  const steps = core.canonicalOrders("k-1", "r1-action-alice", { steps: [{ do: "reveal" }, { do: "spy", player: "bob" },
    { do: "lobbying", swap: [["alice", "merchant"], ["bob", "priest"]] }, { do: "barbarian" }] });
  assert.equal(steps, 'game = "k-1"\ndecision = "r1-action-alice"\nsteps = [{do = "reveal"}, {do = "spy", player = "bob"}, '
    + '{do = "lobbying", swap = [["alice", "merchant"], ["bob", "priest"]]}, {do = "barbarian"}]\n');
  assert.equal(core.readOrder(steps, act).label, "your turn: reveal your face-down cards; then spy: steal a token from bob; "
    + "then lobbying: swap alice's merchant with bob's priest; then barbarian: no target (no effect)");
  assert.throws(() => core.readOrder(steps.replace('"bob"}', '"mallory"}'), act), /no player/);
  assert.throws(() => core.readOrder(steps.replace('{do = "barbarian"}', '{do = "barbarian", card = "spy"}'), act), /lacks 'player'/);
  assert.throws(() => core.readOrder(play, { ...ctx, kind: "mystery" }), /knows no orders/);
});
