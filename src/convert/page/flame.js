// sonde's analysis page, 2/5: the flame graph of the selection, drawn on a
// canvas from the model's node totals. Children are laid out in name order
// (model.js), subtrees narrower than MIN_WIDTH pixels are skipped, so a
// redraw costs what is visible. Off-CPU time is drawn in cold colours:
// with "cpu + off-CPU", a frame is cold when most of its time is off CPU.
(function () {
  'use strict';
  const S = window.SondePage, M = S.model, D = S.D;
  const ROW = 18, MIN_WIDTH = 0.4, MIN_LABEL = 28;
  const FONT = '11px system-ui, -apple-system, "Segoe UI", sans-serif';
  const canvas = document.getElementById('flame');
  const ctx = canvas.getContext('2d');
  const crumbs = document.getElementById('crumbs');
  const F = (S.flame = { zoom: 0, drawn: 0, highlightedDrawn: 0, coldDrawn: 0, warmDrawn: 0 });
  let width = 0, charWidth = 6.5;
  // Boxes drawn last: node, x, depth, w (for hit tests and tests).
  let bNode = [], bX = [], bW = [];

  const colorCache = new Map();
  function hash(name) {
    let h = 0;
    for (let k = 0; k < name.length && k < 64; k++) h = (h * 31 + name.charCodeAt(k)) >>> 0;
    return h;
  }
  function colorOf(node, cold) {
    const f = M.frame[node];
    const key = f * 2 + (cold ? 1 : 0);
    let c = colorCache.get(key);
    if (c) return c;
    const h = hash(M.names[f]);
    const r = (h & 0xff) / 255, g = ((h >>> 8) & 0xff) / 255;
    const kind = D.kinds[f];
    if (kind & 2) c = `rgb(${170 + Math.round(30 * r)},${170 + Math.round(30 * r)},${175 + Math.round(30 * r)})`;
    // Off-CPU time in cold colours (Gregg's off-CPU flame graphs).
    else if (cold && (kind & 1)) c = `rgb(${90 + Math.round(50 * r)},${90 + Math.round(40 * g)},${200 + Math.round(55 * r)})`;
    else if (cold) c = `rgb(${Math.round(30 + 50 * r)},${Math.round(120 + 90 * g)},${200 + Math.round(55 * g)})`;
    else if (kind & 1) c = `rgb(${210 + Math.round(40 * r)},${140 + Math.round(50 * g)},60)`;
    else c = `rgb(${205 + Math.round(50 * r)},${Math.round(80 + 120 * g)},${Math.round(40 + 40 * r)})`;
    colorCache.set(key, c);
    return c;
  }
  F.isCold = (node) => M.totalOff[node] * 2 > M.total[node];

  // The canvas is as deep as the selection's deepest stack.
  let maxDepth = -1;
  function selectionDepth() {
    let d = 0;
    for (let i = 0; i < M.N; i++) if (M.depth[i] > d && M.total[i] > 0) d = M.depth[i];
    return d;
  }

  F.layout = function () {
    maxDepth = selectionDepth();
    const dpr = window.devicePixelRatio || 1;
    width = canvas.parentElement.clientWidth - 2;
    if (width <= 0) return;
    const height = Math.min((maxDepth + 1) * ROW, Math.floor(32000 / dpr));
    canvas.style.height = height + 'px';
    canvas.width = Math.max(1, Math.floor(width * dpr));
    canvas.height = Math.floor(height * dpr);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.font = FONT;
    charWidth = ctx.measureText('abcdefghijklmnopqrstuvwxyz_').width / 27 || 6.5;
    F.draw();
  };

  function box(i, px, w, dim) {
    const y = M.depth[i] * ROW;
    const hit = i !== 0 && S.matchActive && S.matched[M.frame[i]];
    const cold = i !== 0 && F.isCold(i);
    ctx.globalAlpha = dim ? 0.55 : 1;
    ctx.fillStyle = i === 0 ? '#b0b0b8' : hit ? '#e040fb' : colorOf(i, cold);
    ctx.fillRect(px, y, Math.max(w - 0.5, 0.3), ROW - 1);
    F.drawn++;
    if (hit) F.highlightedDrawn++;
    if (i !== 0) cold ? F.coldDrawn++ : F.warmDrawn++;
    bNode.push(i); bX.push(px); bW.push(w);
    if (w >= MIN_LABEL) {
      const label = S.frameLabel(i);
      const max = Math.floor((w - 6) / charWidth);
      ctx.fillStyle = '#111';
      ctx.fillText(label.length > max ? label.slice(0, Math.max(0, max - 1)) + '…' : label, px + 3, y + ROW - 5);
    }
    ctx.globalAlpha = 1;
  }

  F.draw = function () {
    if (width <= 0) return;
    if (selectionDepth() !== maxDepth) { F.layout(); return; }
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    F.drawn = F.highlightedDrawn = F.coldDrawn = F.warmDrawn = 0;
    bNode = []; bX = []; bW = [];
    if (M.N === 0) return;
    if (F.zoom !== 0 && M.total[F.zoom] <= 0) F.zoom = 0;
    const z = F.zoom;
    for (let a = M.parent[z]; a >= 0; a = M.parent[a]) box(a, 0, width, true);
    if (M.total[z] <= 0) { crumbs.textContent = 'No samples in the selection.'; return; }
    const scale = width / M.total[z];
    // Depth-first, each child starting where its previous sibling ended.
    const stackN = [z], stackX = [0];
    while (stackN.length) {
      const n = stackN.pop(), px = stackX.pop();
      const w = M.total[n] * scale;
      if (w < MIN_WIDTH) continue;
      box(n, px, w, false);
      let cx = px;  // children start at the parent's left edge
      const kids = [];
      for (let k = M.kidFirst[n]; k < M.kidFirst[n + 1]; k++) {
        const c = M.kids[k];
        if (M.total[c] <= 0) continue;
        kids.push(c, cx);
        cx += M.total[c] * scale;
      }
      for (let k = kids.length - 2; k >= 0; k -= 2) { stackN.push(kids[k]); stackX.push(kids[k + 1]); }
    }
    const path = [];
    for (let a = z; a >= 0; a = M.parent[a]) path.push(S.frameLabel(a));
    crumbs.textContent = z === 0 ? '' : path.reverse().join(' › ') + `  (${S.fmtPct(S.pct(M.total[z], M.total[0]))} of the selection)`;
  };

  F.nodeAt = function (px, py) {
    const d = Math.floor(py / ROW);
    for (let k = bNode.length - 1; k >= 0; k--) {
      if (M.depth[bNode[k]] === d && px >= bX[k] && px < bX[k] + bW[k]) return bNode[k];
    }
    return -1;
  };

  F.describe = function (i) {
    const f = M.frame[i];
    const lines = [S.esc(S.frameLabel(i))];
    if (i !== 0 && S.dsoOf(f)) lines.push(S.esc(S.dsoOf(f)) + (D.kinds[f] & 1 ? ' [kernel]' : ''));
    lines.push(`${Math.round(M.totalCount[i]).toLocaleString()} samples, ${S.fmtWeight(M.total[i])} — ` +
      `${S.fmtPct(S.pct(M.total[i], M.total[0]))} of the selection`);
    lines.push(`self: ${S.fmtPct(S.pct(M.self[i], M.total[0]))}`);
    if (M.totalOff[i] > 0) lines.push(`off-CPU: ${S.fmtNs(M.totalOff[i])}, on-CPU: ${S.fmtNs(M.total[i] - M.totalOff[i])}`);
    return lines;
  };

  F.zoomTo = function (i) {
    F.zoom = i >= 0 && i < M.N ? i : 0;
    F.draw();
  };

  const tip = document.getElementById('tip');
  canvas.addEventListener('mousemove', (ev) => {
    const r = canvas.getBoundingClientRect();
    const i = F.nodeAt(ev.clientX - r.left, ev.clientY - r.top);
    if (i < 0) { tip.style.display = 'none'; return; }
    const lines = F.describe(i);
    S.showTip(`<div class="n">${lines[0]}</div>` + lines.slice(1).join('<br>'), ev);
  });
  canvas.addEventListener('mouseleave', () => { tip.style.display = 'none'; });
  canvas.addEventListener('click', (ev) => {
    const r = canvas.getBoundingClientRect();
    const i = F.nodeAt(ev.clientX - r.left, ev.clientY - r.top);
    if (i >= 0) F.zoomTo(i);
    if (i > 0 && S.views) S.views.annotateOf = M.frame[i];  // the annotate tab shows the clicked function
  });

  // The labels of the boxes drawn (names, with file:line when the page has lines).
  F.drawnLabels = () => bNode.map((n) => S.frameLabel(n));
  // Whether the widest box of `name` is drawn in cold (off-CPU) colours.
  F.coldOf = function (name) {
    const b = F.boxes(name);
    return b.length ? F.isCold(b[0].node) : null;
  };
  // Widest drawn boxes of frames named `name` (canvas coordinates).
  F.boxes = function (name) {
    const out = [];
    for (let k = 0; k < bNode.length; k++) {
      const n = bNode[k];
      if (n !== 0 && M.names[M.frame[n]] === name) out.push({ node: n, x: bX[k], y: M.depth[n] * ROW, w: bW[k], h: ROW - 1 });
    }
    return out.sort((a, b) => b.w - a.w);
  };
  // Share of the selection under frames named `name` (outermost only).
  F.percentOf = function (name) {
    let w = 0;
    const stack = [0];
    while (stack.length) {
      const n = stack.pop();
      if (n !== 0 && M.names[M.frame[n]] === name) { w += M.total[n]; continue; }
      for (let k = M.kidFirst[n]; k < M.kidFirst[n + 1]; k++) stack.push(M.kids[k]);
    }
    return S.pct(w, M.total[0]);
  };
  F.matchedPercent = function () {
    let w = 0;
    const stack = [0];
    while (stack.length) {
      const n = stack.pop();
      if (n !== 0 && S.matched[M.frame[n]]) { w += M.total[n]; continue; }
      for (let k = M.kidFirst[n]; k < M.kidFirst[n + 1]; k++) stack.push(M.kids[k]);
    }
    return S.pct(w, M.total[0]);
  };
})();
