#!/usr/bin/env node
// Drives the annotate view of sonde's analysis page in headless Chromium
// with real input events: a click on FUNCTION's row in the top-functions
// table (key 5), then the Annotate tab (key 6); then a drag over the first
// tenth of the timeline. Prints one JSON object: what the view showed.
// usage: NODE_PATH=tests/convert/js/node_modules node annotate_browser.js PAGE.html FUNCTION [views]
// (views: also open FUNCTION from the flame graph and the bottom-up table;
// threads TID_OWN TID_OTHER: then select each thread by its label)
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

async function main() {
  const [pagePath, fn, views, tidOwn, tidOther] = process.argv.slice(2);
  const exe = process.env.SONDE_CHROMIUM || '/usr/bin/chromium';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sonde-chromium-'));
  const browser = await chromium.launchPersistentContext(dir, {
    executablePath: exe, headless: true, viewport: { width: 1400, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  const out = {};
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto('file://' + path.resolve(pagePath));
    await page.locator('#title').click();
    await page.keyboard.press('5');
    await page.locator(`#top tbody tr:has(td.name:text-is("${fn}"))`).first().click();
    await page.locator('#title').click();
    await page.keyboard.press('6');
    out.view = (await page.evaluate(() => window.sondePage.state())).view;
    out.annotate = await page.evaluate(() => window.sondePage.annotate());
    const lineRows = page.locator('#annotate-lines tbody tr');
    out.firstLine = (await lineRows.count()) ? (await lineRows.first().innerText()).replace(/\s+/g, ' ').trim() : '';
    out.instructions = await page.locator('#annotate-insns tbody tr[data-addr]').count();
    out.calls = await page.locator('#annotate-insns tbody tr[data-addr]').evaluateAll(
      (rows) => rows.filter((r) => r.children[2].textContent !== '').map((r) => r.children[4].textContent + ' ' + r.children[2].textContent));
    // A range: the view follows the selection.
    const lanes = await page.locator('#lanes').boundingBox();
    const y = lanes.y + 30;
    await page.mouse.move(lanes.x + 2, y);
    await page.mouse.down();
    await page.mouse.move(lanes.x + lanes.width * 0.1, y, { steps: 5 });
    await page.mouse.up();
    out.afterDrag = await page.evaluate(() => window.sondePage.annotate());
    // The other views: from another function, a click on FUNCTION in the
    // flame graph (key 1) or the bottom-up table (key 3), then key 6.
    out.fromView = {};
    for (const [key, name] of views === 'views' ? [['1', 'flame'], ['3', 'bottomup']] : []) {
      await page.evaluate(() => window.sondePage.showAnnotate('main'));
      await page.locator('#title').click();
      await page.keyboard.press('a');
      await page.keyboard.press(key);
      if (name === 'flame') {
        const b = (await page.evaluate((n) => window.sondeFlame.boxes(n), fn))[0];
        const rect = await page.locator('#flame').boundingBox();
        if (b) await page.mouse.click(rect.x + b.x + Math.min(b.w / 2, 200), rect.y + b.y + b.h / 2);
      } else {
        const cell = page.locator('#bottomup tbody tr td.name', { hasText: new RegExp(`^[▸▾]?${fn}$`) });
        await cell.first().click();
      }
      await page.locator('#title').click();
      await page.keyboard.press('6');
      const seen = await page.evaluate(() => window.sondePage.annotate());
      out.fromView[name] = seen ? seen.name : null;
    }
    if (views === 'threads') {
      await page.locator('#title').click();
      await page.keyboard.press('a');
      await page.locator(`.lab.lane[data-tid="${tidOther}"]`).click();
      await page.keyboard.press('6');
      out.otherThread = await page.evaluate(() => window.sondePage.annotate());
      await page.locator(`.lab.lane[data-tid="${tidOwn}"]`).click();
      await page.keyboard.press('6');
      out.ownThread = await page.evaluate(() => window.sondePage.annotate());
    }
    out.errors = errors;
  } finally {
    await browser.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(JSON.stringify(out));
}
main().catch((e) => { process.stderr.write(String(e.stack || e) + '\n'); process.exit(1); });
