// sonde's interactive flame graph. Embedded into the page written by
// `sonde convert --to html` (see template.html and html.cpp).
//
// The data is a frame tree already aggregated in C++, in preorder, four
// numbers per node: frame id, child count, total weight (event period),
// total samples. It is decoded once into typed arrays; drawing walks the
// preorder arrays and skips whole subtrees narrower than MIN_WIDTH pixels,
// so the cost of a redraw depends on what is visible, not on the number of
// samples or nodes.
(function () {
  'use strict';

  const ROW = 18;          // px per stack level
  const MIN_WIDTH = 0.4;   // px: thinner frames (and their subtrees) are not drawn
  const MIN_LABEL = 28;    // px: narrower boxes get no text
  const FONT = '11px system-ui, -apple-system, "Segoe UI", sans-serif';

  const D = JSON.parse(document.getElementById('sonde-data').textContent);
  const names = D.names, dsos = D.dsos, frameDso = D.frameDso, kinds = D.kinds;
  const T = D.tree;
  const N = T.length / 4;

  // ---- Decode the preorder tree ------------------------------------------------
  const frame = new Int32Array(N);
  const parent = new Int32Array(N);
  const depth = new Uint32Array(N);
  const end = new Uint32Array(N);      // index just past the node's subtree
  const x = new Float64Array(N);       // start, in weight units
  const weight = new Float64Array(N);  // total weight
  const count = new Float64Array(N);   // total samples
  let maxDepth = 0;
  {
    const remaining = new Uint32Array(N);
    const nextX = new Float64Array(N);
    const stack = [];
    for (let i = 0; i < N; i++) {
      frame[i] = T[4 * i];
      weight[i] = T[4 * i + 2];
      count[i] = T[4 * i + 3];
      if (i === 0) {
        parent[i] = -1;
      } else {
        const p = stack[stack.length - 1];
        parent[i] = p;
        depth[i] = depth[p] + 1;
        x[i] = nextX[p];
        nextX[p] += weight[i];
        remaining[p]--;
      }
      if (depth[i] > maxDepth) maxDepth = depth[i];
      nextX[i] = x[i];
      remaining[i] = T[4 * i + 1];
      stack.push(i);
      while (stack.length && remaining[stack[stack.length - 1]] === 0) end[stack.pop()] = i + 1;
    }
  }
  // Events without a period (or a zero period everywhere) are weighed by samples.
  if (N > 0 && weight[0] === 0 && count[0] > 0) {
    for (let i = 0; i < N; i++) weight[i] = count[i];
    // Recompute starts from sample counts.
    const nextX = new Float64Array(N);
    for (let i = 1; i < N; i++) {
      x[i] = nextX[parent[i]] + x[parent[i]];
      nextX[parent[i]] += weight[i];
    }
  }
  const rootTotal = N > 0 ? weight[0] : 0;
  const isTime = D.unit === 'nanoseconds';

  // A differential graph (sonde diff --to html): the baseline's weight per
  // node, in the tree's order. Frames are coloured by how their share of
  // everything changed: red grew, blue shrank (Gregg's difffolded).
  const BL = D.baseline || null;
  const baseW = BL ? Float64Array.from(BL.tree) : null;
  const baseTotal = BL ? BL.total : 0;
  let maxChange = 0;
  if (BL) for (let i = 1; i < N; i++) maxChange = Math.max(maxChange, Math.abs(change(i)));
  function change(i) { return (rootTotal > 0 ? 100 * weight[i] / rootTotal : 0) - (baseTotal > 0 ? 100 * baseW[i] / baseTotal : 0); }
  function diffColor(i) {
    const d = change(i);
    const s = maxChange > 0 ? Math.min(1, Math.abs(d) / maxChange) : 0;
    const v = Math.round(235 - 190 * s);
    if (s < 0.01) return 'rgb(235,235,235)';
    return d > 0 ? `rgb(255,${v},${v})` : `rgb(${v},${v},255)`;
  }

  // ---- Formatting ----------------------------------------------------------------
  const pct = (w, of) => (of > 0 ? (100 * w / of) : 0);
  const fmtPct = (v) => v.toFixed(2) + '%';
  function fmtWeight(w) {
    if (!isTime) return Math.round(w).toLocaleString() + ' events';
    if (w >= 1e9) return (w / 1e9).toFixed(3) + ' s';
    if (w >= 1e6) return (w / 1e6).toFixed(3) + ' ms';
    if (w >= 1e3) return (w / 1e3).toFixed(3) + ' µs';
    return Math.round(w) + ' ns';
  }
  const frameName = (i) => (i === 0 ? 'all' : names[frame[i]]);
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));

  // Stable warm colours per name (classic flame graph palette), distinct
  // hues for kernel and unresolved frames, magenta for search matches;
  // cold ones for off-CPU time (D.cold).
  const colorCache = new Map();
  function colorOf(f) {
    let c = colorCache.get(f);
    if (c) return c;
    const name = names[f];
    let h = 0;
    for (let k = 0; k < name.length && k < 64; k++) h = (h * 31 + name.charCodeAt(k)) >>> 0;
    const r = (h & 0xff) / 255, g = ((h >>> 8) & 0xff) / 255;
    if (kinds[f] & 2) c = `rgb(${170 + Math.round(30 * r)},${170 + Math.round(30 * r)},${175 + Math.round(30 * r)})`;
    // Off-CPU time in cold colours, as in Gregg's off-CPU flame graphs:
    // blues for user frames, violet-blues for the kernel's.
    else if (D.cold && (kinds[f] & 1)) c = `rgb(${90 + Math.round(50 * r)},${90 + Math.round(40 * g)},${200 + Math.round(55 * r)})`;
    else if (D.cold) c = `rgb(${Math.round(30 + 50 * r)},${Math.round(120 + 90 * g)},${200 + Math.round(55 * g)})`;
    else if (kinds[f] & 1) c = `rgb(${210 + Math.round(40 * r)},${140 + Math.round(50 * g)},60)`;
    else c = `rgb(${205 + Math.round(50 * r)},${Math.round(80 + 120 * g)},${Math.round(40 + 40 * r)})`;
    colorCache.set(f, c);
    return c;
  }

  // ---- Page elements ----------------------------------------------------------
  const canvas = document.getElementById('flame');
  const ctx = canvas.getContext('2d');
  const tip = document.getElementById('tip');
  const details = document.getElementById('details');
  const crumbs = document.getElementById('crumbs');
  const search = document.getElementById('search');
  const matchEl = document.getElementById('match');
  const meta = document.getElementById('meta');

  meta.textContent = [
    D.event ? `event ${D.event}` : '',
    N > 0 ? `${Math.round(count[0]).toLocaleString()} samples` : 'no samples',
    isTime ? fmtWeight(rootTotal) : '',
    D.host ? `host ${D.host}` : '',
  ].filter(Boolean).join(' · ');
  if (BL) {
    meta.textContent += ` · differential against ${BL.label} (${Math.round(BL.samples).toLocaleString()} samples): ` +
      'red grew, blue shrank, in share of all';
  }
  if (D.otherEvents && D.otherEvents.length) {
    meta.textContent += ` · not shown: ${D.otherEvents.join(', ')} (choose with sonde convert --event)`;
  }

  let zoom = 0;
  let matched = new Uint8Array(names.length);
  let matchActive = false;
  let width = 0;
  let charWidth = 6.5;
  let drawn = 0, highlightedDrawn = 0;

  function layout() {
    const dpr = window.devicePixelRatio || 1;
    width = canvas.parentElement.clientWidth - 2;
    const height = Math.min((maxDepth + 1) * ROW, Math.floor(32000 / dpr));
    canvas.style.height = height + 'px';
    canvas.width = Math.max(1, Math.floor(width * dpr));
    canvas.height = Math.floor(height * dpr);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.font = FONT;
    charWidth = ctx.measureText('abcdefghijklmnopqrstuvwxyz_').width / 27 || 6.5;
    draw();
  }

  function box(i, px, w, dim) {
    const y = depth[i] * ROW;
    const f = frame[i];
    const hit = i !== 0 && matchActive && matched[f];
    ctx.globalAlpha = dim ? 0.55 : 1;
    ctx.fillStyle = i === 0 ? '#b0b0b8' : hit ? '#e040fb' : BL ? diffColor(i) : colorOf(f);
    ctx.fillRect(px, y, Math.max(w - 0.5, 0.3), ROW - 1);
    drawn++;
    if (hit) highlightedDrawn++;
    if (w >= MIN_LABEL) {
      const label = frameName(i);
      const max = Math.floor((w - 6) / charWidth);
      const text = label.length > max ? label.slice(0, Math.max(0, max - 1)) + '…' : label;
      ctx.fillStyle = '#111';
      ctx.fillText(text, px + 3, y + ROW - 5);
    }
    ctx.globalAlpha = 1;
  }

  function draw() {
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    drawn = 0, highlightedDrawn = 0;
    if (N === 0) return;
    // Ancestors of the zoomed frame span the whole width, dimmed.
    for (let a = parent[zoom]; a >= 0; a = parent[a]) box(a, 0, width, true);
    box(zoom, 0, width, false);
    const zx = x[zoom], scale = weight[zoom] > 0 ? width / weight[zoom] : 0;
    const stop = end[zoom];
    for (let i = zoom + 1; i < stop;) {
      const w = weight[i] * scale;
      if (w < MIN_WIDTH) { i = end[i]; continue; }  // prune: children are narrower still
      box(i, (x[i] - zx) * scale, w, false);
      i++;
    }
    updateCrumbs();
  }

  function updateCrumbs() {
    const path = [];
    for (let a = zoom; a >= 0; a = parent[a]) path.push(frameName(a));
    path.reverse();
    crumbs.textContent = zoom === 0 ? '' : path.join(' › ') +
      `  (${fmtPct(pct(weight[zoom], rootTotal))} of all)`;
  }

  // The node under canvas coordinates (px, py), or -1.
  function nodeAt(px, py) {
    if (N === 0 || px < 0 || px > width) return -1;
    const d = Math.floor(py / ROW);
    if (d < 0 || d > maxDepth) return -1;
    if (d <= depth[zoom]) {
      let a = zoom;
      while (a >= 0 && depth[a] > d) a = parent[a];
      return a;
    }
    const scale = weight[zoom] > 0 ? width / weight[zoom] : 0;
    const xv = x[zoom] + px / (scale || 1);
    let node = zoom;
    while (depth[node] < d) {
      let next = -1;
      for (let c = node + 1; c < end[node]; c = end[c]) {
        if (xv >= x[c] && xv < x[c] + weight[c]) { next = c; break; }
      }
      if (next < 0) return -1;
      node = next;
    }
    return weight[node] * scale >= MIN_WIDTH ? node : -1;
  }

  function selfWeight(i) {
    let s = weight[i];
    for (let c = i + 1; c < end[i]; c = end[c]) s -= weight[c];
    return s;
  }

  // Lines describing node i (HTML-escaped); the first is the name.
  function describe(i) {
    const f = frame[i];
    const lines = [esc(frameName(i))];
    if (i !== 0 && dsos[frameDso[f]]) lines.push(esc(dsos[frameDso[f]]) + (kinds[f] & 1 ? ' [kernel]' : ''));
    lines.push(`${Math.round(count[i]).toLocaleString()} samples, ${fmtWeight(weight[i])} — ` +
      `${fmtPct(pct(weight[i], rootTotal))} of all` +
      (zoom !== 0 ? `, ${fmtPct(pct(weight[i], weight[zoom]))} of zoom` : ''));
    lines.push(`self: ${fmtPct(pct(selfWeight(i), rootTotal))}`);
    if (BL) {
      const d = change(i);
      lines.push(`baseline: ${fmtPct(pct(baseW[i], baseTotal))} of all — ` +
        `${d >= 0 ? '+' : ''}${d.toFixed(2)} points (${d > 0 ? 'grew' : d < 0 ? 'shrank' : 'same'})`);
    }
    return lines;
  }

  function zoomTo(i) {
    if (i < 0 || i >= N) return;
    zoom = i;
    draw();
  }

  // ---- Search --------------------------------------------------------------------
  function runSearch() {
    const q = search.value;
    matched = new Uint8Array(names.length);
    matchActive = q.length > 0;
    if (matchActive) {
      let re;
      try { re = new RegExp(q, 'i'); } catch (e) { re = new RegExp(q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i'); }
      for (let f = 0; f < names.length; f++) if (re.test(names[f])) matched[f] = 1;
    }
    matchEl.textContent = matchActive ? `Matched: ${fmtPct(matchedPercent())}` : '';
    draw();
  }

  // Weight under matching frames, outermost match only (no double counting
  // of recursion or of a match below another match).
  function matchedPercent() {
    let w = 0;
    for (let i = 1; i < N;) {
      if (matched[frame[i]]) { w += weight[i]; i = end[i]; } else i++;
    }
    return pct(w, rootTotal);
  }

  // ---- Events --------------------------------------------------------------------
  canvas.addEventListener('mousemove', (ev) => {
    const r = canvas.getBoundingClientRect();
    const i = nodeAt(ev.clientX - r.left, ev.clientY - r.top);
    if (i < 0) { tip.style.display = 'none'; return; }
    const lines = describe(i);
    tip.innerHTML = `<div class="n">${lines[0]}</div>` + lines.slice(1).join('<br>');
    tip.style.display = 'block';
    const tx = Math.min(ev.clientX + 14, window.innerWidth - tip.offsetWidth - 8);
    const ty = ev.clientY + 18 + tip.offsetHeight > window.innerHeight ? ev.clientY - tip.offsetHeight - 10 : ev.clientY + 18;
    tip.style.left = tx + 'px';
    tip.style.top = ty + 'px';
    details.innerHTML = lines.join(' · ');
  });
  canvas.addEventListener('mouseleave', () => { tip.style.display = 'none'; });
  canvas.addEventListener('click', (ev) => {
    const r = canvas.getBoundingClientRect();
    const i = nodeAt(ev.clientX - r.left, ev.clientY - r.top);
    if (i >= 0) zoomTo(i);
  });
  document.getElementById('reset').addEventListener('click', () => zoomTo(0));
  document.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape') {
      if (document.activeElement === search && search.value) { search.value = ''; runSearch(); } else zoomTo(0);
    } else if ((ev.ctrlKey || ev.metaKey) && ev.key === 'f') {
      ev.preventDefault();
      search.focus();
    }
  });
  let searchTimer = 0;
  search.addEventListener('input', () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(runSearch, 120);  // debounce typing on big profiles
  });
  search.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') { clearTimeout(searchTimer); runSearch(); } });
  let resizeTimer = 0;
  window.addEventListener('resize', () => { clearTimeout(resizeTimer); resizeTimer = setTimeout(layout, 80); });

  // ---- Top functions ----------------------------------------------------------
  const top = [];
  for (let k = 0; k < D.top.length; k += 5) top.push(D.top.slice(k, k + 5));
  const tbody = document.querySelector('#top tbody');
  let sortKey = 1;
  function renderTop() {
    const rows = top.slice();
    if (sortKey === 0) rows.sort((a, b) => names[a[0]].localeCompare(names[b[0]]));
    else rows.sort((a, b) => b[sortKey] - a[sortKey]);
    const html = [];
    for (const r of rows) {
      const f = r[0];
      html.push(`<tr data-f="${f}"><td>${fmtPct(pct(r[1], rootTotal))}</td><td>${fmtPct(pct(r[2], rootTotal))}</td>` +
        `<td>${Math.round(r[3]).toLocaleString()}</td><td>${Math.round(r[4]).toLocaleString()}</td>` +
        `<td class="name">${esc(names[f])}</td><td class="dso">${esc(dsos[frameDso[f]] || '')}</td></tr>`);
    }
    tbody.innerHTML = html.join('');
  }
  document.querySelectorAll('#top th[data-k]').forEach((th) => th.addEventListener('click', () => {
    sortKey = Number(th.dataset.k);
    renderTop();
  }));
  tbody.addEventListener('click', (ev) => {
    const tr = ev.target.closest('tr');
    if (!tr) return;
    const name = names[Number(tr.dataset.f)];
    search.value = '^' + name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '$';
    runSearch();
    window.scrollTo({ top: 0 });
  });
  document.getElementById('top-note').textContent =
    `${top.length} functions by self ${isTime ? 'time' : 'weight'}; percentages of all ${isTime ? 'time' : 'samples'}` +
    ' (total counts a recursive function once per stack). Click a row to highlight it.';
  renderTop();

  // ---- Programmatic access (used by sonde's browser tests) -------------------------
  function frameBoxes(name) {
    const out = [];
    const scale = weight[zoom] > 0 ? width / weight[zoom] : 0;
    for (let i = zoom + 1; i < end[zoom];) {
      const w = weight[i] * scale;
      if (w < MIN_WIDTH) { i = end[i]; continue; }
      if (frameName(i) === name) out.push({ node: i, x: (x[i] - x[zoom]) * scale, y: depth[i] * ROW, w, h: ROW - 1 });
      i++;
    }
    return out;
  }
  window.sondeFlame = {
    nodeCount: N,
    // Percentage of all weight under frames named `name` (outermost only).
    percentOf(name) {
      let w = 0;
      for (let i = 1; i < N;) {
        if (names[frame[i]] === name) { w += weight[i]; i = end[i]; } else i++;
      }
      return pct(w, rootTotal);
    },
    names() { return names.slice(); },
    // A differential graph's numbers for frames named `name` (outermost
    // only): shares of all on both sides and the change in points, and the
    // colour of its widest box; null when the page is not differential.
    diffOf(name) {
      if (!BL) return null;
      let w = 0, b = 0, widest = -1;
      for (let i = 1; i < N;) {
        if (names[frame[i]] === name) {
          w += weight[i]; b += baseW[i];
          if (widest < 0 || weight[i] > weight[widest]) widest = i;
          i = end[i];
        } else i++;
      }
      const now = pct(w, rootTotal), base = pct(b, baseTotal);
      return { now, base, change: now - base, color: widest >= 0 ? diffColor(widest) : null };
    },
    // Drawn boxes of `name` in canvas coordinates, widest first.
    boxes(name) { return frameBoxes(name).sort((a, b) => b.w - a.w); },
    state() {
      return {
        zoom: frameName(zoom), zoomPercent: pct(weight[zoom], rootTotal), search: search.value,
        matchPercent: matchActive ? matchedPercent() : 0, drawn, highlightedDrawn,
      };
    },
  };

  layout();
})();
