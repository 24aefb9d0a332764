// sonde's analysis page: the annotate view (annotate/page_annotations.cpp
// writes its data). One function's instructions with the source lines
// they came from (inlined code under its own line, with the call that
// brought it in), each with its self cost and, on calls, the cost below
// them, for the current selection (bins, threads, events); the hottest
// source lines first. Only the hottest functions travel in the page
// (D.annotate.limit of them).
(function () {
  'use strict';
  const S = window.SondePage, M = S.model, D = S.D, V = S.views;
  const A = D.annotate || null;
  const esc = S.esc, column = S.column;
  const byFrame = new Map();
  const R = {};
  if (A) {
    A.functions.forEach((fn, k) => byFrame.set(fn.frame, k));
    R.bin = column(A.bin, Uint16Array); R.thread = column(A.thread, Uint32Array); R.event = column(A.event, Uint16Array);
    R.insn = column(A.insn, Uint32Array); R.self = column(A.self, Uint32Array); R.selfPeriod = column(A.selfPeriod, Float64Array);
    R.incl = column(A.incl, Uint32Array); R.inclPeriod = column(A.inclPeriod, Float64Array);
    R.n = R.bin.length;
    R.binStart = new Uint32Array(M.bins + 1);
    for (let b = 0, r = 0; b <= M.bins; b++) { while (r < R.n && R.bin[r] < b) r++; R.binStart[b] = r; }
  }

  V.annotateOf = -1;
  V.hasAnnotation = (f) => byFrame.has(f);

  // Self and inclusive weight per instruction of function k for the selection.
  function costs(k) {
    const fn = A.functions[k], n = fn.insns.length, first = fn.first;
    const self = new Float64Array(n), selfC = new Float64Array(n), incl = new Float64Array(n);
    const kind = M.kinds[M.sel.kind];
    const evOn = new Uint8Array(M.events.length);
    if (kind) for (const e of kind.events) evOn[e] = 1;
    const th = M.sel.threads;
    for (let r = R.binStart[M.sel.b0], r1 = R.binStart[M.sel.b1]; r < r1; r++) {
      const i = R.insn[r] - first;
      if (i < 0 || i >= n || !evOn[R.event[r]] || (th && !th[R.thread[r]])) continue;
      self[i] += R.selfPeriod[r]; selfC[i] += R.self[r]; incl[i] += R.inclPeriod[r];
    }
    return { self, selfC, incl };
  }

  V.annotateState = null;
  V.annotate = function () {
    const el = document.getElementById('annotate');
    if (!A) { el.innerHTML = '<p class="note">This page has no annotate data (convert --annotate-functions 0, or no code was found).</p>'; return; }
    let f = V.annotateOf >= 0 ? V.annotateOf : V.callersOf;
    if (!byFrame.has(f)) f = V.annotateOf >= 0 || V.callersOf >= 0 ? f : A.functions[0].frame;
    const k = byFrame.get(f);
    if (k === undefined) {
      el.innerHTML = `<p class="note" id="annotate-missing">${esc(M.names[f] || '')}: not among the ${A.limit} hottest functions whose code this page carries (sonde annotate shows any function).</p>`;
      V.annotateState = null;
      return;
    }
    const fn = A.functions[k], { self, selfC, incl } = costs(k);
    const all = M.total[0];
    const pct = (w) => (w > 0 ? S.fmtPct(S.pct(w, all)) : '');
    // Hottest source lines: every instruction of a line (inlined copies too).
    const lines = new Map();
    fn.insns.forEach((ins, i) => {
      if (ins[2] < 0 || !self[i]) return;
      const p = fn.places[ins[2]], key = p[0] + ':' + p[1];
      lines.set(key, (lines.get(key) || 0) + self[i]);
    });
    const hot = Array.from(lines.entries()).sort((a, b) => b[1] - a[1]);
    let html = `<h3>${esc(fn.name)} <span class="note">${esc(fn.dso)}</span></h3>` +
      '<h3>Hottest source lines (self, inlined copies added up)</h3><table id="annotate-lines"><thead><tr><th>Self</th><th class="name">Line</th></tr></thead><tbody>' +
      hot.map(([l, w]) => `<tr><td>${pct(w)}</td><td class="name">${esc(l)}</td></tr>`).join('') + '</tbody></table>' +
      '<h3>Instructions</h3><table id="annotate-insns" class="asm"><thead><tr><th>Self</th><th>Samples</th><th>Below (calls)</th><th>Address</th><th class="name">Instruction</th></tr></thead><tbody>';
    let last = -1;
    fn.insns.forEach((ins, i) => {
      const place = ins[2];
      if (place >= 0 && place !== last) {
        const p = fn.places[place];
        if (p[3]) html += `<tr class="src"><td colspan="4"></td><td class="name inl">${esc(p[3])}</td></tr>`;
        html += `<tr class="src"><td colspan="3"></td><td>${p[1]}</td><td class="name">${esc(p[2] || p[0] + ':' + p[1])}</td></tr>`;
        last = place;
      }
      html += `<tr data-addr="${ins[0]}"><td>${pct(self[i])}</td><td>${selfC[i] || ''}</td><td>${ins[3] ? pct(incl[i]) : ''}</td>` +
        `<td>${ins[0]}</td><td class="name asm">${esc(ins[1])}</td></tr>`;
    });
    el.innerHTML = html + '</tbody></table>';
    V.annotateState = { name: fn.name, hottestLine: hot.length ? hot[0][0] : '', lines: hot.map(([l, w]) => ({ line: l, percent: S.pct(w, all) })) };
  };
})();
