#!/usr/bin/env node
// Times sonde's analysis page (`sonde convert --to html`) in headless
// Chromium: load to interactive (the page's script has run: window.sondePage
// exists, every view drawn), a range selection by a mouse drag over the
// timeline, and a switch to each view by its key. Each as the page measures
// it (performance.now() around its own work) and as Playwright sees it
// (the round trip included). Medians of REPEAT (default 5). Prints JSON.
// usage: node bench/page_timing.js PAGE.html
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require(path.join(__dirname, '../tests/convert/js/node_modules/playwright-core'));

const median = (v) => v.slice().sort((a, b) => a - b)[Math.floor((v.length - 1) / 2)];

async function main() {
  const file = path.resolve(process.argv[2]);
  const repeat = Number(process.env.REPEAT || 5);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sonde-chromium-'));
  const browser = await chromium.launchPersistentContext(dir, {
    executablePath: process.env.SONDE_CHROMIUM || '/usr/bin/chromium', headless: true,
    viewport: { width: 1400, height: 900 }, args: ['--headless', '--no-sandbox', '--disable-gpu'],
  });
  const out = { load: [], selectPage: [], selectRoundTrip: [], view: {}, viewRoundTrip: {} };
  try {
    for (let i = 0; i < repeat; i++) {
      const page = await browser.newPage();
      const t0 = Date.now();
      await page.goto('file://' + file);
      await page.waitForFunction(() => window.sondePage !== undefined, null, { timeout: 120000 });
      out.load.push(Date.now() - t0);
      const box = await page.locator('#lanes').boundingBox();
      const y = box.y + 30;
      const a = 0.2 + 0.05 * i, b = a + 0.3;
      const t1 = Date.now();
      await page.mouse.move(box.x + box.width * a, y);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width * b, y);
      await page.mouse.up();
      const st = await page.evaluate(() => window.sondePage.state());
      out.selectRoundTrip.push(Date.now() - t1);
      out.selectPage.push(st.selectionMs);
      out.samplesSelected = st.rootCount;
      await page.locator('#title').click();
      for (const [key, name] of [['2', 'calltree'], ['3', 'bottomup'], ['4', 'callers'], ['5', 'top'], ['1', 'flame']]) {
        const t2 = Date.now();
        await page.keyboard.press(key);
        const v = await page.evaluate(() => window.sondePage.state().viewMs);
        (out.viewRoundTrip[name] = out.viewRoundTrip[name] || []).push(Date.now() - t2);
        (out.view[name] = out.view[name] || []).push(v);
      }
      out.rows = await page.evaluate(() => window.SondePage.model.R);
      out.nodes = await page.evaluate(() => window.SondePage.model.N);
      out.totalSamples = await page.evaluate(() => { window.sondePage; return window.SondePage.model.rowCount.reduce((x, y) => x + y, 0); });
      await page.close();
    }
  } finally {
    await browser.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const med = { load: median(out.load), selectPage: median(out.selectPage), selectRoundTrip: median(out.selectRoundTrip), view: {}, viewRoundTrip: {} };
  for (const k of Object.keys(out.view)) med.view[k] = median(out.view[k]), med.viewRoundTrip[k] = median(out.viewRoundTrip[k]);
  process.stdout.write(JSON.stringify({ ...med, rows: out.rows, nodes: out.nodes, totalSamples: out.totalSamples, samplesSelected: out.samplesSelected }) + '\n');
}

main().catch((e) => { process.stderr.write('page timing failed: ' + (e && e.stack ? e.stack : e) + '\n'); process.exit(1); });
