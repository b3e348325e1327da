// The reply to the judge: where it goes and what its subject says, from the game file's public
// [service] table (`koryo-pbm new --judge ADDRESS` writes `judge`, the judge's address, and `tag`,
// the game's folder name that the judge's subjects carry as "[koryo-pbm TAG]"). Both are signed
// by the moderator with the rest of the file; a file without them gets a reply with no address,
// and the page says to reply to the judge's mail instead.

const ADDRESS = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const TAG = /^[A-Za-z0-9][A-Za-z0-9_.:+-]{0,63}$/;

/** The judge's address and the game's tag, each null when the file does not say it (or says it wrongly). */
export function judgeOf(top) {
  const s = top.service && typeof top.service === "object" ? top.service : {};
  return {
    judge: typeof s.judge === "string" && s.judge.length <= 254 && ADDRESS.test(s.judge) ? s.judge : null,
    tag: typeof s.tag === "string" && TAG.test(s.tag) ? s.tag : null,
  };
}

/** The subject of a mail to the judge about this game: its tag first, as the judge's own subjects. */
export function subject(top, what) {
  const { tag } = judgeOf(top);
  return tag ? `[koryo-pbm ${tag}] ${what}` : `koryo-pbm game ${top.game_id}: ${what}`;
}

/** A mailto: URL of a new mail to the judge (no address when the file names none) with ``body``. */
export function mailto(top, what, body) {
  const { judge } = judgeOf(top);
  // the address is plain (ADDRESS): written as it is; subject and body percent-encoded (RFC 6068)
  return `mailto:${judge ?? ""}?subject=${encodeURIComponent(subject(top, what))}&body=${encodeURIComponent(body)}`;
}

/** What the reply link says and the sentence under it. */
export function howToReply(top) {
  const { judge } = judgeOf(top);
  if (judge) {
    return { auto: true, link: `Reply to the judge (${judge})`,
      how: `Reply: a new mail to the judge (${judge}) opens in your mail program with your envelope in it; check it and send it. It is also copied: you may paste it into a reply to the judge's mail instead.` };
  }
  return { auto: false, link: "",
    how: "Your envelope is copied: reply to the judge's mail that brought this game file and paste it into your reply (this game file does not say the judge's address)." };
}
