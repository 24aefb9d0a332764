#!/usr/bin/env node
// Drives sonde's analysis page (`sonde convert --to html`) in headless
// Chromium with real input events, the way a user would, and prints one
// JSON object with what it saw; the GoogleTest (tests/convert/page_test.cpp)
// compares it with `sonde script` and `sonde report` of the same recording.
//
//   lanes, markers        the timeline's thread labels and SDT probe markers;
//                         the tooltip of a hovered marker
//   drag                  a mouse drag over the timeline: the selection's
//                         bin-aligned time range and the flame graph's root
//   thread, threads       a click on one thread's label, then Shift-click on another
//   bottomUp              the first row of the bottom-up view (key 3)
//   hits                  after a search, the highlighted rows of every view
//   both                  the "cpu + off-CPU" kind: root weights, colours
//   requests              every request the page made that is not the file itself
//
// usage: node page_browser.js PAGE.html SHOT_PREFIX TID_A TID_B SEARCH_TERM
// (an empty page: node page_browser.js PAGE.html SHOT_PREFIX --empty;
//  an --inline page: node page_browser.js PAGE.html SHOT_PREFIX --lines FUNCTION)
// Exit status: 0 when the page could be driven, 1 with a message on stderr.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

async function launch() {
  const exe = process.env.SONDE_CHROMIUM || '/usr/bin/chromium';
  if (!fs.existsSync(exe)) throw new Error(`${exe} not found: install chromium (scripts/install-deps.sh)`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sonde-chromium-'));
  const browser = await chromium.launchPersistentContext(dir, {
    executablePath: exe, headless: true, viewport: { width: 1400, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return { browser, dir };
}

const state = (page) => page.evaluate(() => window.sondePage.state());
const text = async (page, sel) => (await page.locator(sel).innerText()).replace(/\s+/g, ' ').trim();

async function drive(page, out, args) {
  const [shot, tidA, tidB, term] = args;
  out.lanes = await page.evaluate(() => window.sondePage.lanes());
  out.labelTids = await page.$$eval('.lab.lane', (els) => els.map((e) => Number(e.dataset.tid)));
  out.markers = await page.evaluate(() => window.sondePage.markers());
  out.kinds = await page.evaluate(() => window.sondePage.kinds());
  out.initial = await state(page);
  await page.screenshot({ path: shot + '-initial.png' });

  // Hover every marker: its tooltip.
  const lanes = await page.locator('#lanes').boundingBox();
  out.tooltips = [];
  for (const m of out.markers) {
    await page.mouse.move(lanes.x + m.x, lanes.y + m.y + 7);
    out.tooltips.push(await text(page, '#tip'));
  }

  // Drag from 10% to 40% of the timeline.
  const y = lanes.y + out.lanes[0].y + 10;
  const t0 = Date.now();
  await page.mouse.move(lanes.x + lanes.width * 0.1, y);
  await page.mouse.down();
  await page.mouse.move(lanes.x + lanes.width * 0.25, y, { steps: 5 });
  await page.mouse.move(lanes.x + lanes.width * 0.4, y, { steps: 5 });
  await page.mouse.up();
  out.dragMs = Date.now() - t0;
  out.drag = await state(page);
  out.drag.percent = {};
  for (const name of ['phase_one', 'phase_two', 'worker_spin']) out.drag.percent[name] = await page.evaluate((n) => window.sondePage.percentOf(n), name);
  out.selectionText = await text(page, '#selection');
  await page.screenshot({ path: shot + '-range.png' });

  // The whole recording again (key a), then one thread, then Shift adds another.
  await page.locator('#title').click();
  await page.keyboard.press('a');
  out.whole = await state(page);
  await page.locator(`.lab.lane[data-tid="${tidA}"]`).click();
  out.thread = await state(page);
  await page.locator(`.lab.lane[data-tid="${tidB}"]`).click({ modifiers: ['Shift'] });
  out.threads = await state(page);
  await page.keyboard.press('a');

  // Bottom-up (key 3): its first row.
  const t1 = Date.now();
  await page.keyboard.press('3');
  out.viewSwitchMs = Date.now() - t1;
  out.bottomUp = await page.$$eval('#bottomup tbody tr:first-child td', (tds) => tds.map((td) => td.innerText.replace(/^[▸▾]/, '').trim()));
  // Its callers: ArrowRight on the focused first row expands it.
  await page.keyboard.press('ArrowRight');
  out.bottomUpRows = await page.locator('#bottomup tbody tr').count();
  await page.screenshot({ path: shot + '-bottomup.png' });

  // Search, then every view by its key.
  await page.keyboard.press('/');
  await page.keyboard.type(term);
  await page.keyboard.press('Enter');
  await page.locator('#title').click();
  out.hits = {};
  for (const [key, name] of [['1', 'flame'], ['2', 'calltree'], ['3', 'bottomup'], ['4', 'callers'], ['5', 'top']]) {
    await page.keyboard.press(key);
    out.hits[name] = name === 'flame' ? (await state(page)).flame.highlightedDrawn : await page.evaluate((n) => window.sondePage.hits(n), name);
    if (name !== 'flame') await page.screenshot({ path: `${shot}-${name}.png` });
  }
  out.matchText = await text(page, '#match');
  await page.keyboard.press('1');
  await page.locator('#title').click();
  await page.keyboard.press('/');
  await page.keyboard.press('Escape');  // clears the search

  // cpu + off-CPU in one graph.
  if (out.kinds.includes('cpu + off-CPU')) {
    await page.selectOption('#kind', { label: 'cpu + off-CPU' });
    await page.locator('#title').click();
    await page.keyboard.press('1');
    out.both = await state(page);
    // nap()'s sleep, through the kernel (libc's clock_nanosleep has no frame pointer: nap is skipped).
    out.both.napCold = await page.evaluate(() => window.sondePage.coldOf('do_nanosleep'));
    await page.screenshot({ path: shot + '-both.png' });
  }
  await page.screenshot({ path: shot + '.png', fullPage: true });
}

async function main() {
  const args = process.argv.slice(2);
  const [page_path, shot] = args;
  if (!page_path || !shot) throw new Error('usage: page_browser.js PAGE SHOT_PREFIX (TID_A TID_B TERM | --empty)');
  const { browser, dir } = await launch();
  const out = { requests: [], errors: [] };
  try {
    const page = browser.pages()[0] || await browser.newPage();
    page.on('pageerror', (e) => out.errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') out.errors.push(m.text()); });
    page.on('request', (r) => { if (r.url() !== 'file://' + path.resolve(page_path)) out.requests.push(r.url()); });
    const t0 = Date.now();
    await page.goto('file://' + path.resolve(page_path));
    await page.waitForFunction(() => window.sondePage !== undefined, null, { timeout: 60000 });
    out.loadMs = Date.now() - t0;
    out.facts = await text(page, '#facts');
    if (args[2] === '--lines') {
      // --inline pages: the flame graph's labels, and FUNCTION's hottest lines
      // in the caller/callee view (a search takes that view to its match).
      out.labels = await page.evaluate(() => window.sondePage.flameLabels());
      await page.keyboard.press('/');
      await page.keyboard.type('^' + args[3] + '$');
      await page.keyboard.press('Enter');
      await page.locator('#title').click();
      await page.keyboard.press('4');
      out.callersTitle = (await page.locator('#callers h3').first().innerText()).trim();
      out.hotLines = await page.$$eval('#hot-lines tbody tr', (trs) => trs.map((tr) => tr.innerText.replace(/\s+/g, ' ').trim()));
      await page.screenshot({ path: shot + '.png' });
    } else if (args[2] === '--empty') {
      out.empty = await page.evaluate(() => window.sondePage.empty);
      out.emptyText = await text(page, '#empty');
      await page.screenshot({ path: shot + '.png' });
    } else {
      await drive(page, out, args.slice(1));
    }
  } finally {
    await browser.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((e) => {
  process.stderr.write('page check failed: ' + (e && e.stack ? e.stack : e) + '\n');
  process.exit(1);
});
