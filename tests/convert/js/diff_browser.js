#!/usr/bin/env node
// Opens a differential flame graph (`sonde diff --to html`) in headless
// Chromium and reports what a user sees for the named frames: their shares
// on both sides, the change and the colour of their widest box, and the
// tooltip when the pointer rests on that box. Prints one JSON object.
//
// usage: node diff_browser.js PAGE.html SCREENSHOT NAME...
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

async function main() {
  const [page_path, shot, ...names] = process.argv.slice(2);
  if (!page_path || !shot || !names.length) throw new Error('usage: diff_browser.js PAGE SCREENSHOT NAME...');
  const exe = process.env.SONDE_CHROMIUM || '/usr/bin/chromium';
  const profile_dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sonde-chromium-'));
  const browser = await chromium.launchPersistentContext(profile_dir, {
    executablePath: exe, headless: true, viewport: { width: 1400, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const out = { requests: [], errors: [], frames: {} };
  try {
    const page = browser.pages()[0] || await browser.newPage();
    page.on('pageerror', (e) => out.errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') out.errors.push(m.text()); });
    page.on('request', (r) => { if (!r.url().startsWith('file:')) out.requests.push(r.url()); });
    await page.goto('file://' + path.resolve(page_path));
    await page.waitForFunction(() => window.sondeFlame !== undefined, null, { timeout: 60000 });
    out.meta = await page.locator('#meta').innerText();
    const rect = await page.locator('#flame').boundingBox();
    for (const name of names) {
      const f = await page.evaluate((n) => window.sondeFlame.diffOf(n), name);
      const boxes = await page.evaluate((n) => window.sondeFlame.boxes(n), name);
      if (f && boxes.length) {
        const b = boxes[0];
        await page.mouse.move(rect.x + b.x + Math.min(b.w / 2, 200), rect.y + b.y + b.h / 2);
        f.tooltip = (await page.locator('#tip').innerText()).replace(/\s+/g, ' ');
      }
      out.frames[name] = f;
    }
    await page.mouse.move(0, 0);
    await page.screenshot({ path: shot });
  } finally {
    await browser.close();
    fs.rmSync(profile_dir, { recursive: true, force: true });
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((e) => {
  process.stderr.write('diff browser check failed: ' + (e && e.stack ? e.stack : e) + '\n');
  process.exit(1);
});
