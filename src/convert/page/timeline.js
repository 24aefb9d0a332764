// sonde's analysis page, 3/5: the timeline. One lane per thread, grouped by
// process (labels are DOM elements: click, Shift/Ctrl-click, Enter), with
// the density of the shown samples per time bin (warm), off-CPU intervals
// (blue), SDT probe hits as markers (purple; hover for name, time and
// arguments) and lost-sample reports (red lines). Dragging selects a range
// of whole bins.
(function () {
  'use strict';
  const S = window.SondePage, M = S.model, D = S.D;
  const LANE = 22, PROC = 18;
  const canvas = document.getElementById('lanes');
  const ctx = canvas.getContext('2d');
  const labels = document.getElementById('labels');
  const T = (S.timeline = {});
  const spanNs = M.bins * M.binNs;

  // Lanes: processes in pid order, their threads in tid order.
  const rows = [];  // {y, h, thread or -1, pid}
  {
    let y = 0, pid = null;
    for (const t of M.threads) {
      if (t.pid !== pid) {
        pid = t.pid;
        const main = M.threads.find((u) => u.pid === pid && u.tid === pid) || t;
        rows.push({ y, h: PROC, thread: -1, pid, text: `${main.comm} ${pid}` });
        y += PROC;
      }
      rows.push({ y, h: LANE, thread: t.index, pid, text: `${t.comm} ${t.tid}` });
      y += LANE;
    }
    T.height = y;
  }
  const laneY = new Float64Array(M.threads.length);
  for (const r of rows) if (r.thread >= 0) laneY[r.thread] = r.y;
  for (const r of rows) {
    const el = document.createElement('div');
    el.className = r.thread >= 0 ? 'lab lane' : 'lab proc';
    el.textContent = r.text;
    el.tabIndex = 0;
    el.style.height = r.h + 'px';
    if (r.thread >= 0) el.dataset.thread = r.thread, el.dataset.tid = M.threads[r.thread].tid;
    el.dataset.pid = r.pid;
    el.title = r.thread >= 0 ? 'Click: only this thread; Shift/Ctrl-click: add or remove it' : 'Click: this process\'s threads';
    r.el = el;
    labels.appendChild(el);
  }

  function pickThreads(list, additive) {
    let set = additive && M.sel.threads ? M.sel.threads.slice() : new Uint8Array(M.threads.length);
    const allOn = list.every((i) => set[i]);
    for (const i of list) set[i] = additive && allOn ? 0 : 1;
    if (!set.some((v) => v)) set = null;
    M.sel.threads = set;
    S.onSelection();
  }
  function labelAction(el, additive) {
    if (el.dataset.thread !== undefined) pickThreads([Number(el.dataset.thread)], additive);
    else pickThreads(M.threads.filter((t) => t.pid === Number(el.dataset.pid)).map((t) => t.index), additive);
  }
  labels.addEventListener('click', (ev) => {
    const el = ev.target.closest('.lab');
    if (el) labelAction(el, ev.shiftKey || ev.ctrlKey || ev.metaKey);
  });
  labels.addEventListener('keydown', (ev) => {
    const el = ev.target.closest('.lab');
    if (!el) return;
    if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); labelAction(el, ev.shiftKey || ev.ctrlKey || ev.metaKey); }
    else if (ev.key === 'ArrowDown' && el.nextElementSibling) { ev.preventDefault(); el.nextElementSibling.focus(); }
    else if (ev.key === 'ArrowUp' && el.previousElementSibling) { ev.preventDefault(); el.previousElementSibling.focus(); }
  });

  // Density per (thread, bin) of the kind shown, off-CPU excluded (drawn as intervals).
  let density = new Float64Array(0), densityMax = 0;
  T.recomputeDensity = function () {
    density = new Float64Array(M.threads.length * M.bins);
    const kind = M.kinds[M.sel.kind];
    const on = new Uint8Array(M.events.length);
    if (kind) for (const e of kind.events) if (!M.isOff[e]) on[e] = 1;
    for (let r = 0; r < M.R; r++) if (on[M.rowEvent[r]]) density[M.rowThread[r] * M.bins + M.rowBin[r]] += M.rowCount[r];
    densityMax = 0;
    for (let i = 0; i < density.length; i++) if (density[i] > densityMax) densityMax = density[i];
  };

  let width = 0;
  const xOf = (ns) => (spanNs > 0 ? (ns / spanNs) * width : 0);

  T.layout = function () {
    const dpr = window.devicePixelRatio || 1;
    width = canvas.parentElement.clientWidth;
    canvas.style.height = T.height + 'px';
    canvas.width = Math.max(1, Math.floor(width * dpr));
    canvas.height = Math.max(1, Math.floor(T.height * dpr));
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    T.draw();
  };

  const offByThread = [];  // [end, length, event] per thread
  for (let k = 0; k < D.offcpu.length; k += 4) {
    const th = D.offcpu[k + 2];
    (offByThread[th] || (offByThread[th] = [])).push(D.offcpu[k], D.offcpu[k + 1], D.offcpu[k + 3]);
  }

  T.draw = function () {
    ctx.clearRect(0, 0, width, T.height);
    const bw = width / Math.max(1, M.bins);
    for (const r of rows) {
      if (r.thread < 0) { ctx.fillStyle = '#f3f3f5'; ctx.fillRect(0, r.y, width, r.h); continue; }
      ctx.fillStyle = '#eee';
      ctx.fillRect(0, r.y + r.h - 1, width, 1);
      const base = r.thread * M.bins;
      ctx.fillStyle = '#e8743b';
      for (let b = 0; b < M.bins; b++) {
        const v = density[base + b];
        if (v <= 0) continue;
        const h = Math.max(1, (v / densityMax) * (r.h - 4));
        ctx.fillRect(b * bw, r.y + r.h - 1 - h, Math.max(bw, 0.8), h);
      }
      const off = offByThread[r.thread];
      if (off) {
        ctx.fillStyle = 'rgba(40, 110, 220, 0.55)';
        for (let k = 0; k < off.length; k += 3) {
          const x1 = xOf(off[k]), x0 = xOf(off[k] - off[k + 1]);
          ctx.fillRect(x0, r.y + r.h - 8, Math.max(1, x1 - x0), 6);
        }
      }
      r.el.classList.toggle('picked', !!(M.sel.threads && M.sel.threads[r.thread]));
    }
    for (const r of rows) if (r.thread < 0) r.el.classList.toggle('picked', !!M.sel.threads &&
      M.threads.every((t) => t.pid !== r.pid || M.sel.threads[t.index]));
    // Probe hits.
    ctx.fillStyle = '#7b1fa2';
    for (let k = 0; k < D.markerTime.length; k++) {
      const x = xOf(D.markerTime[k]), y = laneY[D.markerThread[k]] + 2;
      ctx.beginPath(); ctx.moveTo(x, y); ctx.lineTo(x + 3.5, y + 5); ctx.lineTo(x, y + 10); ctx.lineTo(x - 3.5, y + 5); ctx.fill();
    }
    // Lost samples.
    ctx.fillStyle = '#d50000';
    for (let k = 0; k < D.losses.length; k += 2) ctx.fillRect(xOf(D.losses[k]) - 1, 0, 2, T.height);
    // The selection: everything outside it dimmed.
    if (M.sel.b0 > 0 || M.sel.b1 < M.bins) {
      ctx.fillStyle = 'rgba(60, 60, 70, 0.18)';
      ctx.fillRect(0, 0, M.sel.b0 * bw, T.height);
      ctx.fillRect(M.sel.b1 * bw, 0, width - M.sel.b1 * bw, T.height);
      ctx.fillStyle = '#2962ff';
      ctx.fillRect(M.sel.b0 * bw - 1, 0, 2, T.height);
      ctx.fillRect(M.sel.b1 * bw - 1, 0, 2, T.height);
    }
    if (drag) {
      ctx.fillStyle = 'rgba(41, 98, 255, 0.15)';
      ctx.fillRect(Math.min(drag.x0, drag.x1), 0, Math.abs(drag.x1 - drag.x0), T.height);
    }
  };

  // Markers and losses under the pointer.
  function markerAt(px, py) {
    let best = -1, bestD = 6;
    for (let k = 0; k < D.markerTime.length; k++) {
      const y = laneY[D.markerThread[k]];
      if (py < y || py > y + LANE) continue;
      const d = Math.abs(xOf(D.markerTime[k]) - px);
      if (d < bestD) bestD = d, best = k;
    }
    return best;
  }
  function lossAt(px) {
    for (let k = 0; k < D.losses.length; k += 2) if (Math.abs(xOf(D.losses[k]) - px) < 3) return k;
    return -1;
  }
  T.markerText = function (k) {
    const t = M.threads[D.markerThread[k]];
    return `<div class="n">${S.esc(M.events[D.markerEvent[k]].name)}</div>` +
      `time ${S.absTime(D.markerTime[k])} s (+${S.fmtNs(D.markerTime[k])}) · ${S.esc(t.comm)} ${t.tid}` +
      (D.markerArgs[k] ? `<br>${S.esc(D.markerArgs[k])}` : '');
  };

  let drag = null;
  const localX = (ev) => ev.clientX - canvas.getBoundingClientRect().left;
  canvas.addEventListener('mousedown', (ev) => {
    if (ev.button !== 0) return;
    ev.preventDefault();
    drag = { x0: localX(ev), x1: localX(ev) };
  });
  window.addEventListener('mousemove', (ev) => {
    if (drag) { drag.x1 = Math.max(0, Math.min(width, localX(ev))); T.draw(); return; }
    if (ev.target !== canvas) return;
    const r = canvas.getBoundingClientRect();
    const px = ev.clientX - r.left, py = ev.clientY - r.top;
    const m = markerAt(px, py);
    if (m >= 0) { S.showTip(T.markerText(m), ev); return; }
    const l = lossAt(px);
    if (l >= 0) {
      S.showTip(`<div class="n">${D.losses[l + 1]} samples lost</div>reported at ${S.absTime(D.losses[l])} s ` +
        '(the kernel reports a loss when it can write again: the samples were lost before this)', ev);
      return;
    }
    S.hideTip();
  });
  window.addEventListener('mouseup', () => {
    if (!drag) return;
    const a = Math.min(drag.x0, drag.x1), b = Math.max(drag.x0, drag.x1);
    drag = null;
    if (b - a < 3) { T.draw(); return; }  // a click, not a drag
    T.setRange(Math.floor((a / width) * M.bins), Math.ceil((b / width) * M.bins));
  });
  canvas.addEventListener('mouseleave', () => S.hideTip());

  T.setRange = function (b0, b1) {
    b0 = Math.max(0, Math.min(M.bins - 1, b0));
    b1 = Math.max(b0 + 1, Math.min(M.bins, b1));
    M.sel.b0 = b0;
    M.sel.b1 = b1;
    S.onSelection();
  };
  // Keys with the timeline focused: arrows move the range by one bin,
  // Shift+arrows move its end.
  document.getElementById('tl').addEventListener('keydown', (ev) => {
    if (ev.target.closest('.lab')) return;
    const whole = M.sel.b0 === 0 && M.sel.b1 === M.bins;
    const step = ev.key === 'ArrowRight' ? 1 : ev.key === 'ArrowLeft' ? -1 : 0;
    if (!step) return;
    ev.preventDefault();
    if (whole) T.setRange(0, Math.max(1, Math.round(M.bins / 10)));
    else if (ev.shiftKey) T.setRange(M.sel.b0, M.sel.b1 + step);
    else if (M.sel.b0 + step >= 0 && M.sel.b1 + step <= M.bins) T.setRange(M.sel.b0 + step, M.sel.b1 + step);
  });
  T.rows = rows;
})();
