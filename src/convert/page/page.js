// sonde's analysis page, 5/5: the page around the views. Header facts, the
// kind selector, tabs, search, keys, the selection's text (its bin-aligned
// time range in the DOM, as `sonde script --time` takes it), and the
// programmatic access the browser tests use (window.sondePage and, as the
// flame graph page had it, window.sondeFlame).
(function () {
  'use strict';
  const S = window.SondePage, M = S.model, D = S.D, F = S.flame, T = S.timeline, V = S.views;
  const $ = (id) => document.getElementById(id);
  const tip = $('tip');
  S.showTip = function (html, ev) {
    tip.innerHTML = html;
    tip.style.display = 'block';
    const tx = Math.min(ev.clientX + 14, window.innerWidth - tip.offsetWidth - 8);
    const ty = ev.clientY + 18 + tip.offsetHeight > window.innerHeight ? ev.clientY - tip.offsetHeight - 10 : ev.clientY + 18;
    tip.style.left = tx + 'px';
    tip.style.top = ty + 'px';
  };
  S.hideTip = () => { tip.style.display = 'none'; };

  // ---- Header facts ---------------------------------------------------------------
  const durationNs = Number(BigInt(D.last || '0') - BigInt(D.first || '0'));
  const facts = [];
  if (D.cmdline) facts.push(`command <b>${S.esc(D.cmdline)}</b>`);
  if (D.host) facts.push(`host <b>${S.esc(D.host)}</b>`);
  facts.push('events ' + M.events.map((e) => `<b>${S.esc(e.name)}</b> (${e.samples.toLocaleString()})`).join(', '));
  facts.push(`<b>${M.events.reduce((a, e) => a + e.samples, 0).toLocaleString()}</b> samples`);
  facts.push(`<b>${(D.lost || 0).toLocaleString()}</b> lost`);
  facts.push(`duration <b>${S.fmtNs(durationNs)}</b>`);
  facts.push(`${M.threads.length} threads`);
  // The page keeps at most 200,000 probe hits and off-CPU intervals (page_data.h).
  if (D.markersDropped) facts.push(`${D.markersDropped.toLocaleString()} more probe hits not drawn`);
  if (D.spansDropped) facts.push(`${D.spansDropped.toLocaleString()} more off-CPU intervals not drawn`);
  $('facts').innerHTML = facts.join(' · ');

  if (D.empty || M.R === 0) {
    $('main').style.display = 'none';
    const e = $('empty');
    e.style.display = 'block';
    e.textContent = `Nothing to show: ${D.empty || 'no samples'}.`;
    window.sondePage = { empty: true, text: () => e.textContent, state: () => ({ empty: true }) };
    return;
  }

  // ---- Kind selector -------------------------------------------------------------
  const kindSel = $('kind');
  M.kinds.forEach((k, i) => {
    const o = document.createElement('option');
    o.value = i;
    o.textContent = k.label;
    kindSel.appendChild(o);
  });
  kindSel.value = M.sel.kind;
  kindSel.addEventListener('change', () => {
    M.sel.kind = Number(kindSel.value);
    T.recomputeDensity();
    S.onSelection();
  });

  // ---- Views and tabs ------------------------------------------------------------
  let view = 'flame';
  const dirty = new Set();
  const render = { flame: () => F.draw(), calltree: V.calltree, bottomup: V.bottomup, callers: V.callers, top: V.top, annotate: V.annotate };
  function renderView(name) {
    render[name]();
    dirty.delete(name);
  }
  function show(name) {
    const t0 = performance.now();
    view = name;
    // The caller/callee view starts with the hottest function by self time.
    if (name === 'callers' && V.callersOf < 0) {
      const hottest = V.bottomupRoots()[0];
      if (hottest) V.callersOf = hottest.f;
    }
    document.querySelectorAll('#tabs button').forEach((b) => b.setAttribute('aria-selected', String(b.dataset.view === name)));
    document.querySelectorAll('.view').forEach((v) => v.classList.toggle('on', v.id === 'view-' + name));
    if (name === 'flame') F.layout();
    if (dirty.has(name) || name !== 'flame') renderView(name);
    S.lastViewMs = performance.now() - t0;
  }
  $('tabs').addEventListener('click', (ev) => {
    const b = ev.target.closest('button');
    if (b) show(b.dataset.view);
  });

  // ---- The selection -------------------------------------------------------------
  const selEl = $('selection');
  S.onSelection = function () {
    const t0 = performance.now();
    M.compute();
    const start = S.absTime(M.sel.b0 * M.binNs), end = S.absTime(M.sel.b1 * M.binNs - 1);
    selEl.dataset.start = start;
    selEl.dataset.end = end;
    selEl.dataset.bins = `${M.sel.b0},${M.sel.b1}`;
    const tids = M.sel.threads ? M.threads.filter((t) => M.sel.threads[t.index]).map((t) => t.tid) : [];
    selEl.dataset.tids = tids.join(',');
    const whole = M.sel.b0 === 0 && M.sel.b1 === M.bins;
    selEl.textContent = `Selection: ${whole ? 'the whole recording' : `${start} – ${end} s (${S.fmtNs((M.sel.b1 - M.sel.b0) * M.binNs)})`}` +
      `, ${tids.length ? 'threads ' + tids.join(', ') : 'all threads'} · ${Math.round(M.totalCount[0]).toLocaleString()} samples` +
      (M.isTime() ? `, ${S.fmtNs(M.total[0])}` : '') + ` of ${M.kinds[M.sel.kind] ? M.kinds[M.sel.kind].label : ''}`;
    T.draw();
    for (const k of Object.keys(render)) dirty.add(k);
    renderView(view);
    updateMatch();
    S.lastSelectionMs = performance.now() - t0;
  };
  $('clear-sel').addEventListener('click', () => { M.sel.b0 = 0; M.sel.b1 = M.bins; M.sel.threads = null; S.onSelection(); });

  // ---- Search --------------------------------------------------------------------
  const search = $('search'), matchEl = $('match');
  function updateMatch() { matchEl.textContent = S.matchActive ? `Matched: ${S.fmtPct(F.matchedPercent())}` : ''; }
  function runSearch() {
    S.setSearch(search.value);
    // The caller/callee view follows the search to its hottest match.
    if (S.matchActive && (V.callersOf < 0 || !S.matched[V.callersOf])) {
      const t = M.functionTotals();
      let best = -1;
      for (let f = 0; f < M.F; f++) if (S.matched[f] && t.total[f] > 0 && (best < 0 || t.total[f] > t.total[best])) best = f;
      if (best >= 0) V.callersOf = best;
    }
    for (const k of Object.keys(render)) dirty.add(k);
    renderView(view);
    updateMatch();
  }
  let searchTimer = 0;
  search.addEventListener('input', () => { clearTimeout(searchTimer); searchTimer = setTimeout(runSearch, 120); });
  search.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') { clearTimeout(searchTimer); runSearch(); } });

  // ---- Tables: pointer and keys --------------------------------------------------
  function showCallers(f) { V.callersOf = f; V.annotateOf = f; dirty.add('callers'); dirty.add('annotate'); show('callers'); }
  function toggle(tr, open) {
    const table = tr.closest('table');
    if (!table) return;
    const ok = table.id === 'calltree' ? V.calltreeToggle(tr, open) : table.id === 'bottomup' ? V.bottomupToggle(tr, open) : false;
    if (!ok) return;
    const key = tr.dataset.node || tr.dataset.key;
    renderView(table.id);
    const again = document.querySelector(`#${table.id} tr[data-${tr.dataset.node ? 'node' : 'key'}="${key}"]`);
    if (again) again.focus();
  }
  document.querySelectorAll('.view').forEach((v) => {
    v.addEventListener('click', (ev) => {
      const tr = ev.target.closest('tbody tr');
      if (!tr) return;
      // A tree row's function is the one the annotate tab shows next.
      if (tr.dataset.f !== undefined) { V.annotateOf = Number(tr.dataset.f); dirty.add('annotate'); }
      if (tr.dataset.node || tr.dataset.key) { toggle(tr); return; }
      if (tr.dataset.f !== undefined) showCallers(Number(tr.dataset.f));
    });
    v.addEventListener('dblclick', (ev) => {
      const tr = ev.target.closest('tbody tr');
      if (tr && tr.dataset.f !== undefined) showCallers(Number(tr.dataset.f));
    });
    v.addEventListener('keydown', (ev) => {
      const tr = ev.target.closest('tbody tr');
      if (!tr) return;
      let next = null;
      if (ev.key === 'ArrowDown') next = tr.nextElementSibling;
      else if (ev.key === 'ArrowUp') next = tr.previousElementSibling;
      else if (ev.key === 'ArrowRight') toggle(tr, true);
      else if (ev.key === 'ArrowLeft') toggle(tr, false);
      else if (ev.key === 'Enter' && tr.dataset.f !== undefined) showCallers(Number(tr.dataset.f));
      else return;
      ev.preventDefault();
      if (next) next.focus();
    });
  });

  // ---- Page keys -----------------------------------------------------------------
  const views = ['flame', 'calltree', 'bottomup', 'callers', 'top', 'annotate'];
  document.addEventListener('keydown', (ev) => {
    const typing = ev.target === search || ev.target === kindSel;
    if (ev.key === 'Escape') {
      if (ev.target === search && search.value) { search.value = ''; runSearch(); }
      else if (F.zoom !== 0) F.zoomTo(0);
      else $('clear-sel').click();
      return;
    }
    if ((ev.ctrlKey || ev.metaKey) && ev.key === 'f') { ev.preventDefault(); search.focus(); return; }
    if (typing || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.key === '/') { ev.preventDefault(); search.focus(); }
    else if (ev.key >= '1' && ev.key <= '6') {
      show(views[Number(ev.key) - 1]);
      const first = document.querySelector(`#view-${views[Number(ev.key) - 1]} tbody tr`);
      if (first && view !== 'flame') first.focus();
    } else if (ev.key === 'a') $('clear-sel').click();
  });
  $('reset').addEventListener('click', () => F.zoomTo(0));
  let resizeTimer = 0;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => { T.layout(); if (view === 'flame') F.layout(); }, 80);
  });

  // ---- Start ---------------------------------------------------------------------
  T.recomputeDensity();
  T.layout();
  M.compute();
  F.layout();
  S.onSelection();
  // The other views are rendered when first shown (dirty), but the top
  // functions table, which the page has always shown at once.
  renderView('top');

  // ---- Programmatic access (sonde's browser tests) -------------------------------
  const flameState = () => ({
    zoom: S.frameLabel(F.zoom), zoomPercent: S.pct(M.total[F.zoom], M.total[0]), search: search.value,
    matchPercent: S.matchActive ? F.matchedPercent() : 0, drawn: F.drawn, highlightedDrawn: F.highlightedDrawn,
    coldDrawn: F.coldDrawn, warmDrawn: F.warmDrawn,
  });
  window.sondeFlame = {
    nodeCount: M.N,
    percentOf: (name) => F.percentOf(name),
    names: () => M.names.slice(),
    diffOf: () => null,
    boxes: (name) => F.boxes(name),
    state: flameState,
  };
  window.sondePage = {
    empty: false,
    lanes: () => T.rows.filter((r) => r.thread >= 0).map((r) => ({ pid: r.pid, tid: M.threads[r.thread].tid, comm: M.threads[r.thread].comm, y: r.y })),
    markers: () => D.markerTime.map((t, k) => ({
      tid: M.threads[D.markerThread[k]].tid, event: M.events[D.markerEvent[k]].name, time: S.absTime(t), args: D.markerArgs[k],
      x: (t / (M.bins * M.binNs)) * $('lanes').clientWidth,
      y: T.rows.find((r) => r.thread === D.markerThread[k]).y,
    })),
    kinds: () => M.kinds.map((k) => k.label),
    state: () => ({
      view, rootCount: M.totalCount[0], rootWeight: M.total[0], rootOff: M.totalOff[0], b0: M.sel.b0, b1: M.sel.b1, bins: M.bins,
      start: selEl.dataset.start, end: selEl.dataset.end, tids: selEl.dataset.tids,
      kind: M.kinds[M.sel.kind] ? M.kinds[M.sel.kind].label : '', computeMs: M.computeMs, selectionMs: S.lastSelectionMs, viewMs: S.lastViewMs,
      flame: flameState(),
    }),
    hits: (name) => document.querySelectorAll(`#view-${name} .hit`).length,
    annotate: () => V.annotateState,
    showAnnotate: (name) => { const f = M.names.indexOf(name); if (f >= 0) V.annotateOf = f; dirty.add('annotate'); show('annotate'); return V.annotateState; },
    percentOf: (name) => F.percentOf(name),
    coldOf: (name) => F.coldOf(name),
    flameLabels: () => F.drawnLabels(),
  };
})();
