// sonde's analysis page, 1/5: the model. Decodes the page's data (written by
// page_data.cpp) into typed arrays, and computes what every view needs for
// a selection (a bin range, a set of threads, the events weighed): self
// weight and samples per node of the stack prefix tree, then totals.
// Nodes are numbered so that a parent precedes its children, so totals are
// one reverse pass; rows are sorted by bin, so a range is one slice.
(function () {
  'use strict';
  const S = (window.SondePage = {});
  const D = JSON.parse(document.getElementById('sonde-data').textContent);
  S.D = D;

  function column(b64, Type) {
    if (!b64) return new Type(0);
    const bin = atob(b64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return new Type(bytes.buffer);
  }
  S.column = column;  // for the annotate view's columns

  const M = (S.model = {});
  M.N = D.nodes || 0;
  M.parent = column(D.nodeParent, Int32Array);
  M.frame = column(D.nodeFrame, Uint32Array);
  M.line = D.nodeLine ? column(D.nodeLine, Uint32Array) : null;
  M.rowBin = column(D.rowBin, Uint16Array);
  M.rowThread = column(D.rowThread, Uint32Array);
  M.rowNode = column(D.rowNode, Uint32Array);
  M.rowEvent = column(D.rowEvent, Uint16Array);
  M.rowCount = column(D.rowCount, Uint32Array);
  M.rowPeriod = column(D.rowPeriod, Float64Array);
  M.R = M.rowBin.length;
  M.bins = D.bins || 0;
  M.binNs = D.binNs || 1;
  M.first = BigInt(D.first || '0');
  M.threads = (D.threads || []).map((t, i) => ({ index: i, pid: t[0], tid: t[1], comm: t[2] }));
  M.events = D.events || [];
  M.names = D.names || [];
  M.F = M.names.length;

  // The first row of each bin (rows are sorted by bin).
  M.binStart = new Uint32Array(M.bins + 1);
  {
    let r = 0;
    for (let b = 0; b <= M.bins; b++) {
      while (r < M.R && M.rowBin[r] < b) r++;
      M.binStart[b] = r;
    }
  }
  // Children of each node (CSR), ordered by frame name as in classic flame
  // graphs: the layout stays put while the selection changes.
  {
    const N = M.N;
    const first = new Uint32Array(N + 1);
    for (let i = 1; i < N; i++) first[M.parent[i] + 1]++;
    for (let i = 0; i < N; i++) first[i + 1] += first[i];
    const kids = new Uint32Array(Math.max(0, N - 1));
    const fill = first.slice(0, N);
    for (let i = 1; i < N; i++) kids[fill[M.parent[i]]++] = i;
    // Names are compared once: siblings are sorted by their frame's rank.
    const names = M.names;
    const byName = Array.from(names.keys()).sort((a, b) => (names[a] < names[b] ? -1 : names[a] > names[b] ? 1 : 0));
    const rank = new Float64Array(M.F);
    byName.forEach((f, k) => { rank[f] = k; });
    const key = new Float64Array(N);
    for (let i = 1; i < N; i++) key[i] = rank[M.frame[i]] * 4294967296 + (M.line ? M.line[i] : 0);
    for (let i = 0; i < N; i++) {
      if (first[i + 1] - first[i] < 2) continue;
      kids.subarray(first[i], first[i + 1]).sort((a, b) => key[a] - key[b]);
    }
    M.kidFirst = first;
    M.kids = kids;
  }
  M.depth = new Uint16Array(M.N);
  for (let i = 1; i < M.N; i++) M.depth[i] = M.depth[M.parent[i]] + 1;

  // Which events a kind of view weighs: one event by index, or "both" (the
  // on-CPU clock and the off-CPU events, all in nanoseconds).
  M.kinds = [];
  M.events.forEach((e, i) => {
    if (e.kind !== 'probe') M.kinds.push({ label: e.name, events: [i], both: false });
  });
  const cpu = M.events.findIndex((e) => e.kind === 'cpu');
  const off = M.events.map((e, i) => (e.kind === 'off' ? i : -1)).filter((i) => i >= 0);
  if (cpu >= 0 && off.length) M.kinds.push({ label: 'cpu + off-CPU', events: [cpu, ...off], both: true });
  M.isOff = M.events.map((e) => e.kind === 'off');

  // The selection: bins [b0, b1), threads (null: all), the kind shown.
  M.sel = { b0: 0, b1: M.bins, threads: null, kind: 0 };
  {
    const shown = M.kinds.findIndex((k) => !k.both && k.events[0] === D.shown);
    M.sel.kind = shown >= 0 ? shown : 0;
  }

  // Per node: self weight, self samples, off-CPU self weight; then totals.
  M.self = new Float64Array(M.N);
  M.selfCount = new Float64Array(M.N);
  M.selfOff = new Float64Array(M.N);
  M.total = new Float64Array(M.N);
  M.totalCount = new Float64Array(M.N);
  M.totalOff = new Float64Array(M.N);
  M.version = 0;

  M.compute = function () {
    const t0 = performance.now();
    const { self, selfCount, selfOff, total, totalCount, totalOff } = M;
    self.fill(0); selfCount.fill(0); selfOff.fill(0);
    const kind = M.kinds[M.sel.kind];
    const evOn = new Uint8Array(M.events.length);
    if (kind) for (const e of kind.events) evOn[e] = 1;
    const th = M.sel.threads;
    const r0 = M.binStart[M.sel.b0], r1 = M.binStart[M.sel.b1];
    const { rowEvent, rowThread, rowNode, rowCount, rowPeriod, isOff } = M;
    for (let r = r0; r < r1; r++) {
      const e = rowEvent[r];
      if (!evOn[e] || (th && !th[rowThread[r]])) continue;
      const n = rowNode[r];
      self[n] += rowPeriod[r];
      selfCount[n] += rowCount[r];
      if (isOff[e]) selfOff[n] += rowPeriod[r];
    }
    total.set(self); totalCount.set(selfCount); totalOff.set(selfOff);
    const parent = M.parent;
    for (let i = M.N - 1; i > 0; i--) {
      const p = parent[i];
      total[p] += total[i]; totalCount[p] += totalCount[i]; totalOff[p] += totalOff[i];
    }
    M.version++;
    M.computeMs = performance.now() - t0;
  };

  // Per function (frame): self and total (a recursive function counts once
  // per stack: only its outermost occurrence adds to its total).
  M.functionTotals = function () {
    const F = M.F;
    const out = { self: new Float64Array(F), selfCount: new Float64Array(F), total: new Float64Array(F), totalCount: new Float64Array(F) };
    const onPath = new Uint32Array(F);
    const stack = [0];
    // Iterative DFS; a node is pushed as ~node to leave it.
    while (stack.length) {
      const v = stack.pop();
      if (v < 0) { onPath[M.frame[~v]]--; continue; }
      if (v !== 0) {
        const f = M.frame[v];
        out.self[f] += M.self[v]; out.selfCount[f] += M.selfCount[v];
        if (onPath[f] === 0) { out.total[f] += M.total[v]; out.totalCount[f] += M.totalCount[v]; }
        onPath[f]++;
        stack.push(~v);
      }
      for (let k = M.kidFirst[v]; k < M.kidFirst[v + 1]; k++) {
        const c = M.kids[k];
        if (M.totalCount[c] > 0 || M.total[c] > 0) stack.push(c);
      }
    }
    return out;
  };

  // ---- Shared formatting --------------------------------------------------------
  M.isTime = () => {
    const k = M.kinds[M.sel.kind];
    return !!k && M.events[k.events[0]].unit === 'nanoseconds';
  };
  S.pct = (w, of) => (of > 0 ? (100 * w / of) : 0);
  S.fmtPct = (v) => v.toFixed(2) + '%';
  S.fmtNs = function (w) {
    if (w >= 1e9) return (w / 1e9).toFixed(3) + ' s';
    if (w >= 1e6) return (w / 1e6).toFixed(3) + ' ms';
    if (w >= 1e3) return (w / 1e3).toFixed(3) + ' µs';
    return Math.round(w) + ' ns';
  };
  S.fmtWeight = (w) => (M.isTime() ? S.fmtNs(w) : Math.round(w).toLocaleString() + ' events');
  S.esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));
  // Absolute time of a ns offset from the first sample, as sonde script prints it (seconds, 9 decimals).
  S.absTime = function (offsetNs) {
    const t = M.first + BigInt(offsetNs);
    return `${t / 1000000000n}.${(t % 1000000000n).toString().padStart(9, '0')}`;
  };
  S.frameLabel = function (node) {
    if (node === 0) return 'all';
    const f = M.frame[node];
    let s = M.names[f];
    if (M.line && M.line[node]) {
      const file = D.files[D.frameFile[f]] || '';
      s += ` ${file ? file.slice(file.lastIndexOf('/') + 1) : ''}:${M.line[node]}`;
    }
    return s;
  };
  S.dsoOf = (f) => D.dsos[D.frameDso[f]] || '';

  // ---- Search: matching frames --------------------------------------------------
  S.matched = new Uint8Array(M.F);
  S.matchActive = false;
  S.setSearch = function (q) {
    S.matched = new Uint8Array(M.F);
    S.matchActive = q.length > 0;
    if (!S.matchActive) return;
    let re;
    try { re = new RegExp(q, 'i'); } catch (e) { re = new RegExp(q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i'); }
    for (let f = 0; f < M.F; f++) if (re.test(M.names[f])) S.matched[f] = 1;
  };
})();
