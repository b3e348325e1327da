// The player's legal choices computed in this page by koryo-pbm's own rules (python.js,
// koryo_pbm/pagecore.py), shaped as the menu the rest of the page walks (main.js): nodes
// {q, d, o: [{l, n} | {l, t}]} and orders (the canonical orders texts). Questions are asked of
// the rules as the player reaches them (an action turn can have thousands of finished choices):
// every legal choice is there, nothing is cut.
import { ask, python } from "./python.js";

export class RulesError extends Error {}

/** The table and the choices of ``seat``: {summary, menu (null when the rules give none here)}. */
export async function openTable(gameText, partData, seat) {
  let summary;
  try {
    summary = await ask("open", gameText, JSON.stringify(partData), seat);
  } catch (e) {
    throw new RulesError(e.message);
  }
  return { summary, menu: summary.menu ? await liveMenu(summary) : null };
}

async function liveMenu(summary) {
  const core = await python();
  const call = (name, ...args) => {
    const answer = JSON.parse(core[`page_${name}`](...args.map((a) => JSON.stringify(a))));
    if (answer && answer.error) throw new RulesError(answer.error);
    return answer;
  };
  const paths = [[]];
  const made = new Map();
  const orders = [];
  const orderAt = new Map();
  const node = (n) => {
    if (made.has(n)) return made.get(n);
    const step = call("step", paths[n]);
    const o = step.o.map((option, i) => {
      if ("t" in option) {
        if (!orderAt.has(option.t)) { orderAt.set(option.t, orders.length); orders.push(option.t); }
        return { l: option.l, t: orderAt.get(option.t) };
      }
      paths.push([...paths[n], i]);
      return { l: option.l, n: paths.length - 1 };
    });
    const out = { q: step.q, o, ...(step.d !== undefined ? { d: step.d } : {}) };
    made.set(n, out);
    return out;
  };
  const nodes = new Proxy([], { get: (target, prop) => (/^\d+$/.test(String(prop)) ? node(Number(prop)) : target[prop]) });
  // fresh: the join's key whose 64 zeros the page replaces with fresh random bytes (core.leafOrders)
  return { decision: summary.decision, root: { n: 0 }, nodes, orders, complete: true, fromRules: true,
    ...(summary.fresh ? { fresh: summary.fresh } : {}),
    view: summary.view, picture: summary.picture,
    /** Every finished choice (automation and tests: the page's choices against the command line's). */
    all: () => call("orders").orders };
}
