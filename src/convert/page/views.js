// sonde's analysis page, 4/5: the table views of the selection. Call tree
// (top-down, the flame graph's nodes), bottom-up (functions by self time,
// expanding into their callers), caller/callee of one function (with its
// hottest source lines when the page has lines: --inline), and the
// top-functions table. Each is rendered only when shown; rows are focusable
// and keyboard-driven (page.js). A row whose function matches the search
// has class "hit".
(function () {
  'use strict';
  const S = window.SondePage, M = S.model, D = S.D;
  const V = (S.views = {});
  const MAX_ROWS = 3000;
  const esc = S.esc;
  const pctOfAll = (w) => S.fmtPct(S.pct(w, M.total[0]));
  const hitClass = (f) => (S.matchActive && S.matched[f] ? ' class="hit"' : '');

  function sortedKids(n) {
    const out = [];
    for (let k = M.kidFirst[n]; k < M.kidFirst[n + 1]; k++) if (M.total[M.kids[k]] > 0) out.push(M.kids[k]);
    return out.sort((a, b) => M.total[b] - M.total[a]);
  }

  // ---- Call tree (top-down) -----------------------------------------------------
  const ctExpanded = new Set();
  let ctInit = false;
  V.calltree = function () {
    if (!ctInit) {
      ctInit = true;
      // Open the hottest path while one child holds most of its parent.
      for (let n = 0; ;) {
        ctExpanded.add(n);
        const kids = sortedKids(n);
        if (!kids.length || M.total[kids[0]] * 2 < M.total[n]) break;
        n = kids[0];
      }
    }
    // A search opens the paths to its matches.
    let leadsToMatch = null;
    if (S.matchActive) {
      leadsToMatch = new Uint8Array(M.N);
      for (let n = M.N - 1; n > 0; n--) {
        if (M.total[n] <= 0) continue;
        if (S.matched[M.frame[n]] || leadsToMatch[n]) leadsToMatch[M.parent[n]] = 1;
      }
    }
    const html = [];
    const walk = (n, depth) => {
      for (const c of sortedKids(n)) {
        if (html.length >= MAX_ROWS) return;
        const f = M.frame[c];
        const open = ctExpanded.has(c) || !!(leadsToMatch && leadsToMatch[c]), leaf = M.kidFirst[c] === M.kidFirst[c + 1];
        html.push(`<tr data-node="${c}" data-f="${f}"${hitClass(f)} tabindex="-1"><td>${pctOfAll(M.total[c])}</td>` +
          `<td>${pctOfAll(M.self[c])}</td><td>${Math.round(M.totalCount[c]).toLocaleString()}</td>` +
          `<td class="name" style="padding-left:${8 + depth * 14}px"><span class="tw">${leaf ? '' : open ? '▾' : '▸'}</span>` +
          `${esc(S.frameLabel(c))}</td><td class="dso">${esc(S.dsoOf(f))}</td></tr>`);
        if (open) walk(c, depth + 1);
      }
    };
    walk(0, 0);
    document.querySelector('#calltree tbody').innerHTML = html.join('');
  };
  V.calltreeToggle = function (tr, open) {
    const n = Number(tr.dataset.node);
    if (open === undefined) open = tr.querySelector('.tw').textContent !== '▾';
    if (open) ctExpanded.add(n); else ctExpanded.delete(n);
    return true;
  };

  // ---- Bottom-up ----------------------------------------------------------------
  // A row is a function at the end of some call paths; its contexts are the
  // prefix-tree nodes where it sits on those paths, with the leaf's weight.
  const buExpanded = new Set();  // keys: frame ids from the leaf, joined by '/'
  function group(nodes, ws, cs, step) {
    const by = new Map();
    for (let k = 0; k < nodes.length; k++) {
      const n = step ? M.parent[nodes[k]] : nodes[k];
      if (n <= 0) continue;
      const f = M.frame[n];
      let g = by.get(f);
      if (!g) by.set(f, (g = { f, nodes: [], ws: [], cs: [], w: 0, c: 0 }));
      g.nodes.push(n); g.ws.push(ws[k]); g.cs.push(cs[k]); g.w += ws[k]; g.c += cs[k];
    }
    return Array.from(by.values()).sort((a, b) => b.w - a.w);
  }
  V.bottomupRoots = function () {
    const nodes = [], ws = [], cs = [];
    for (let n = 1; n < M.N; n++) if (M.selfCount[n] > 0 || M.self[n] > 0) nodes.push(n), ws.push(M.self[n]), cs.push(M.selfCount[n]);
    return group(nodes, ws, cs, false);
  };
  V.bottomup = function () {
    const html = [];
    const walk = (rows, depth, prefix) => {
      for (const g of rows) {
        if (html.length >= MAX_ROWS) return;
        const key = prefix + g.f;
        const open = buExpanded.has(key);
        html.push(`<tr data-key="${key}" data-f="${g.f}"${hitClass(g.f)} tabindex="-1"><td>${pctOfAll(g.w)}</td>` +
          `<td>${Math.round(g.c).toLocaleString()}</td><td class="name" style="padding-left:${8 + depth * 14}px">` +
          `<span class="tw">${open ? '▾' : '▸'}</span>${esc(M.names[g.f])}</td><td class="dso">${esc(S.dsoOf(g.f))}</td></tr>`);
        if (open) walk(group(g.nodes, g.ws, g.cs, true), depth + 1, key + '/');
      }
    };
    walk(V.bottomupRoots(), 0, '');
    document.querySelector('#bottomup tbody').innerHTML = html.join('');
  };
  V.bottomupToggle = function (tr, open) {
    const key = tr.dataset.key;
    if (open === undefined) open = !buExpanded.has(key);
    if (open) buExpanded.add(key); else buExpanded.delete(key);
    return true;
  };

  // ---- Caller/callee of one function --------------------------------------------
  V.callersOf = -1;
  V.callers = function () {
    const el = document.getElementById('callers');
    const f = V.callersOf;
    if (f < 0) return;
    const callers = new Map(), callees = new Map(), lines = new Map();
    let total = 0, totalC = 0, self = 0;
    // Outermost occurrences of f: its total and its callers; below them, callees.
    const stack = [0], inF = [false];
    while (stack.length) {
      const n = stack.pop(), inside = inF.pop();
      const isF = n !== 0 && M.frame[n] === f;
      if (isF) {
        self += M.self[n];
        if (M.line && M.self[n] > 0) lines.set(M.line[n], (lines.get(M.line[n]) || 0) + M.self[n]);
        if (!inside) {
          total += M.total[n]; totalC += M.totalCount[n];
          const p = M.parent[n], pf = p > 0 ? M.frame[p] : -1;
          callers.set(pf, (callers.get(pf) || 0) + M.total[n]);
          for (let k = M.kidFirst[n]; k < M.kidFirst[n + 1]; k++) {
            const c = M.kids[k];
            if (M.total[c] > 0) callees.set(M.frame[c], (callees.get(M.frame[c]) || 0) + M.total[c]);
          }
        }
      }
      for (let k = M.kidFirst[n]; k < M.kidFirst[n + 1]; k++) {
        const c = M.kids[k];
        if (M.total[c] > 0) { stack.push(c); inF.push(inside || isF); }
      }
    }
    const table = (title, map, label) => {
      const rows = Array.from(map.entries()).sort((a, b) => b[1] - a[1]);
      return `<h3>${title}</h3><table class="cc"><thead><tr><th>Share</th><th class="name">${label}</th><th class="name">Object</th></tr></thead><tbody>` +
        (rows.length ? rows.map(([g, w]) => g < 0
          ? `<tr tabindex="-1"><td>${pctOfAll(w)}</td><td class="name">[the stack's root]</td><td></td></tr>`
          : `<tr data-f="${g}"${hitClass(g)} tabindex="-1"><td>${pctOfAll(w)}</td><td class="name">${esc(M.names[g])}</td><td class="dso">${esc(S.dsoOf(g))}</td></tr>`).join('')
          : '<tr><td></td><td class="name">none</td><td></td></tr>') + '</tbody></table>';
    };
    let html = `<h3${hitClass(f)}>${esc(M.names[f])} <span class="note">${esc(S.dsoOf(f))}</span></h3>` +
      `<p class="note" id="callers-sum">total ${pctOfAll(total)} (${Math.round(totalC).toLocaleString()} samples), self ${pctOfAll(self)} of the selection</p>` +
      table('Callers (who calls it, with its total under them)', callers, 'Caller') +
      table('Callees (what it calls, with their totals)', callees, 'Callee');
    if (M.line) {
      const file = D.files[D.frameFile[f]] || '';
      const rows = Array.from(lines.entries()).sort((a, b) => b[1] - a[1]);
      html += `<h3>Hottest lines (self)</h3><table id="hot-lines"><thead><tr><th>Self</th><th class="name">Line</th></tr></thead><tbody>` +
        rows.map(([ln, w]) => `<tr><td>${pctOfAll(w)}</td><td class="name">${esc(file)}:${ln}</td></tr>`).join('') + '</tbody></table>';
    }
    el.innerHTML = html;
  };

  // ---- Top functions ------------------------------------------------------------
  let topKey = 1;
  V.top = function () {
    const t = M.functionTotals();
    const order = [];
    for (let f = 0; f < M.F; f++) if (t.totalCount[f] > 0 || t.total[f] > 0) order.push(f);
    const keyOf = [null, t.self, t.total, t.selfCount, t.totalCount][topKey];
    if (topKey === 0) order.sort((a, b) => (M.names[a] < M.names[b] ? -1 : 1));
    else order.sort((a, b) => keyOf[b] - keyOf[a] || t.total[b] - t.total[a]);
    const html = [];
    for (const f of order.slice(0, 1000)) {
      html.push(`<tr data-f="${f}"${hitClass(f)} tabindex="-1"><td>${pctOfAll(t.self[f])}</td><td>${pctOfAll(t.total[f])}</td>` +
        `<td>${Math.round(t.selfCount[f]).toLocaleString()}</td><td>${Math.round(t.totalCount[f]).toLocaleString()}</td>` +
        `<td class="name">${esc(M.names[f])}</td><td class="dso">${esc(S.dsoOf(f))}</td></tr>`);
    }
    document.querySelector('#top tbody').innerHTML = html.join('');
  };
  document.querySelectorAll('#top th[data-k]').forEach((th) => th.addEventListener('click', () => {
    topKey = Number(th.dataset.k);
    V.top();
  }));
})();
