// node tools/firefox-play.mjs PAGE_FILE
// Drive the player page in Firefox (Debian's firefox-esr, headless, through puppeteer-core over
// WebDriver BiDi; no browser download; every connection sent to a closed port): one page kept
// open, one JSON request a line on standard input, {"game": FILE, "key": FILE}: the page opens the
// game file with the key and takes the suggested choice (the first where none is suggested) step
// by step; answered on standard output, one JSON line each: {"envelope": TEXT, "choices": N} or
// {"said": TEXT} when the page made no envelope; then {"errors": [...]} (the console's) at the end.
import puppeteer from "puppeteer-core";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const browser = await puppeteer.launch({
  browser: "firefox", executablePath: process.env.FIREFOX ?? "/usr/bin/firefox-esr", headless: true,
  extraPrefsFirefox: { "network.proxy.type": 1, "network.proxy.http": "127.0.0.1", "network.proxy.http_port": 9,
    "network.proxy.ssl": "127.0.0.1", "network.proxy.ssl_port": 9, "network.proxy.no_proxies_on": "" },
});
const errors = [];
try {
  const page = await browser.newPage();
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(pathToFileURL(process.argv[2]).href);
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  for await (const line of createInterface({ input: process.stdin })) {
    if (!line.trim()) continue;
    const { game, key } = JSON.parse(line);
    await page.evaluate(() => {
      document.getElementById("message").textContent = "";
      document.getElementById("envelope").value = "";
    });
    await (await page.$("#key-file")).uploadFile(key);
    await (await page.$("#game-file")).uploadFile(game);
    let said = "";
    for (let i = 0; i < 1200 && !said; i++) {
      said = await page.evaluate(() => document.getElementById("message").textContent);
      if (!said) await sleep(50);
    }
    let answer = { said };
    if (said.startsWith("opened:")) {
      let choices = 0;
      for (let step = 0; step < 64; step++) {
        const done = await page.evaluate(() => document.getElementById("envelope").value);
        if (done) { answer = { envelope: done, choices }; break; }
        const clicked = await page.evaluate(() => {
          const b = document.querySelector("[data-choice][data-suggested]") || document.querySelector("[data-choice]");
          if (!b) return false;
          b.click();
          return true;
        });
        if (clicked) choices++;
        await sleep(clicked ? 20 : 50);
      }
    }
    process.stdout.write(JSON.stringify(answer) + "\n");
  }
} finally {
  process.stdout.write(JSON.stringify({ errors }) + "\n");
  await browser.close();
}
