#!/usr/bin/env node
// Opens sonde's HTML flame graph in headless Chromium (the system browser,
// driven by playwright-core) and checks it the way a user would: the hot
// frame is drawn, clicking it zooms, searching highlights matches, reset
// restores the whole profile. Prints one JSON object with what it saw.
//
// usage: node browser.js PAGE.html SCREENSHOT_PREFIX HOT_FUNCTION SEARCH_TERM
// Exit status: 0 when the page could be driven (the caller checks values),
// 1 with a message on stderr when the browser or the page failed.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

async function main() {
  const [page_path, shot_prefix, hot, term] = process.argv.slice(2);
  if (!page_path || !shot_prefix || !hot || !term) throw new Error('usage: browser.js PAGE SHOT_PREFIX HOT TERM');
  const exe = process.env.SONDE_CHROMIUM || '/usr/bin/chromium';
  if (!fs.existsSync(exe)) throw new Error(`${exe} not found: install chromium (scripts/install-deps.sh)`);
  const profile_dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sonde-chromium-'));
  // A fresh profile folder per run (playwright passes it as --user-data-dir).
  const browser = await chromium.launchPersistentContext(profile_dir, {
    executablePath: exe,
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const out = { requests: [] };
  try {
    const page = browser.pages()[0] || await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    // Self-contained: the page must not ask for anything but itself.
    page.on('request', (r) => { if (!r.url().startsWith('file:')) out.requests.push(r.url()); });
    const t0 = Date.now();
    await page.goto('file://' + path.resolve(page_path));
    await page.waitForFunction(() => window.sondeFlame !== undefined, null, { timeout: 60000 });
    out.loadMs = Date.now() - t0;
    out.title = await page.title();
    out.nodeCount = await page.evaluate(() => window.sondeFlame.nodeCount);
    out.hotPercent = await page.evaluate((n) => window.sondeFlame.percentOf(n), hot);
    out.termPercent = await page.evaluate((n) => window.sondeFlame.percentOf(n), term);
    out.initial = await page.evaluate(() => window.sondeFlame.state());
    out.topRows = await page.locator('#top tbody tr').count();
    out.topHotText = (await page.locator('#top tbody tr', { hasText: hot }).first().innerText()).replace(/\s+/g, ' ');
    await page.screenshot({ path: shot_prefix + '-initial.png', fullPage: false });

    // Hover then click the widest box of the hot function.
    const boxes = await page.evaluate((n) => window.sondeFlame.boxes(n), hot);
    out.hotBoxes = boxes.length;
    if (boxes.length) {
      const b = boxes[0];
      const rect = await page.locator('#flame').boundingBox();
      const cx = rect.x + b.x + Math.min(b.w / 2, 200), cy = rect.y + b.y + b.h / 2;
      await page.mouse.move(cx, cy);
      out.tooltip = (await page.locator('#tip').innerText()).replace(/\s+/g, ' ');
      const t1 = Date.now();
      await page.mouse.click(cx, cy);
      out.clickMs = Date.now() - t1;
      out.zoomed = await page.evaluate(() => window.sondeFlame.state());
      out.crumbs = await page.locator('#crumbs').innerText();
      await page.screenshot({ path: shot_prefix + '-zoomed.png' });
    }

    // Search: type the term, Enter applies it at once.
    const t2 = Date.now();
    await page.fill('#search', term);
    await page.press('#search', 'Enter');
    out.searchMs = Date.now() - t2;
    out.searched = await page.evaluate(() => window.sondeFlame.state());
    out.matchText = await page.locator('#match').innerText();
    await page.click('#reset');
    out.reset = await page.evaluate(() => window.sondeFlame.state());
    await page.screenshot({ path: shot_prefix + '.png' });
    out.errors = errors;
  } finally {
    await browser.close();
    fs.rmSync(profile_dir, { recursive: true, force: true });
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((e) => {
  process.stderr.write('browser check failed: ' + (e && e.stack ? e.stack : e) + '\n');
  process.exit(1);
});
