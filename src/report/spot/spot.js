(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('spot-data').textContent);
  var RANKS = '23456789TJQKA', SUITS = 'cdhs', GRID = 'AKQJT98765432';
  var MADE = ['high card', 'pair', 'two pair', 'trips', 'straight', 'flush', 'full house', 'quads', 'straight flush'];
  var el = function (id) { return document.getElementById(id); };
  var esc = function (s) { return String(s).replace(/[&<>"']/g, function (c) { return '&#' + c.charCodeAt(0) + ';'; }); };
  var fmt = function (x, d) { return x === null || x === undefined || !isFinite(x) ? '\u2014' : Number(x).toFixed(d); };

  // Colours by action name: check/call greens, bets and raises reds (darker for bigger), fold blue, all-in purple.
  function actionColor(name) {
    if (name === 'check') return '#5cb85c';
    if (name === 'call') return '#2e8b57';
    if (name === 'fold') return '#5b9bd5';
    if (name === 'allin') return '#7b2d8e';
    var m = /^(bet|raise)(\d+)$/.exec(name);
    if (m) {
      var t = Math.min(1, Number(m[2]) / (D.pot + D.stack));
      var light = Math.round(72 - 42 * Math.sqrt(t));
      return 'hsl(' + (m[1] === 'bet' ? 8 : 350) + ', 75%, ' + light + '%)';
    }
    return '#999';
  }

  // Cards and suit swaps.
  function cardIndex(s) { return 4 * RANKS.indexOf(s[0]) + SUITS.indexOf(s[1]); }
  function cardName(i) { return RANKS[i >> 2] + SUITS[i & 3]; }
  function mapCard(perm, s) { var i = cardIndex(s); return cardName((i & ~3) | perm[i & 3]); }
  function mapCards(perm, text) {
    var out = '';
    for (var i = 0; i + 1 < text.length; i += 2) out += mapCard(perm, text.substr(i, 2));
    return out;
  }
  function inverse(perm) { var inv = [0, 0, 0, 0]; for (var s = 0; s < 4; s++) inv[perm[s]] = s; return inv; }
  function realPath(path, perm) {
    return path.replace(/(turn|river):([2-9TJQKA][cdhs])/g, function (m, st, c) { return st + ':' + mapCard(perm, c); });
  }
  function splitCards(text) { var out = []; for (var i = 0; i + 1 < text.length; i += 2) out.push(text.substr(i, 2)); return out; }

  // The hands of each cell, per player.
  var cellHands = [[], []];
  for (var p = 0; p < 2; p++) {
    for (var c = 0; c < 169; c++) cellHands[p].push([]);
    D.cells[p].forEach(function (cell, h) { cellHands[p][cell].push(h); });
  }
  function cellName(i) {
    var r = Math.floor(i / 13), c = i % 13;
    if (r === c) return GRID[r] + GRID[r];
    return r < c ? GRID[r] + GRID[c] + 's' : GRID[c] + GRID[r] + 'o';
  }

  // State: the walked node shown and the suit swap from the walked deals to the real ones.
  var state = { id: 0, perm: [0, 1, 2, 3], trail: [], cell: null };

  function buildGrid(id, cls) {
    var g = el(id), html = '';
    for (var i = 0; i < 169; i++) html += '<div class="cell ' + cls + '" data-cell="' + cellName(i) + '" data-i="' + i + '"><div class="fill"></div><span class="name">' + cellName(i) + '</span><span class="w"></span></div>';
    g.innerHTML = html;
    g.addEventListener('mouseover', function (e) { var t = e.target.closest('.cell'); if (t && state.cell === null) showCell(+t.dataset.i); });
    g.addEventListener('click', function (e) {
      var t = e.target.closest('.cell'); if (!t) return;
      var i = +t.dataset.i;
      state.cell = state.cell === i ? null : i;
      document.querySelectorAll('.cell.sel').forEach(function (x) { x.classList.remove('sel'); });
      if (state.cell !== null) document.querySelectorAll('.cell[data-i="' + i + '"]').forEach(function (x) { x.classList.add('sel'); });
      showCell(i);
    });
  }

  function node() { return D.nodes[state.id]; }

  // Per-cell aggregates of the acting player at a node with data.
  function cellStats(n, i) {
    var p = n.player, d = n.data, k = n.actions.length, hs = cellHands[p][i];
    var s = { reach: 0, combos: hs.length, freq: new Array(k).fill(0), ev: 0, evw: 0, eq: 0, eqw: 0, gain: 0, gw: 0 };
    hs.forEach(function (h) {
      var r = d.reach[h];
      s.reach += r;
      for (var a = 0; a < k; a++) s.freq[a] += r * d.strategy[h * k + a];
      if (d.ev[h] !== null) { s.ev += r * d.ev[h]; s.evw += r; }
      if (d.equity[h] !== null) { s.eq += r * d.equity[h]; s.eqw += r; }
      if (d.gain[h] !== null) { s.gain += r * d.gain[h]; s.gw += r; }
    });
    if (s.reach > 0) for (var a = 0; a < k; a++) s.freq[a] /= s.reach;
    s.ev = s.evw > 0 ? s.ev / s.evw : null;
    s.eq = s.eqw > 0 ? s.eq / s.eqw : null;
    s.gain = s.gw > 0 ? s.gain / s.gw : null;
    return s;
  }

  function gradient(actions, freq) {
    var stops = [], at = 0;
    actions.forEach(function (a, j) {
      var to = at + 100 * freq[j];
      stops.push(actionColor(a) + ' ' + at.toFixed(2) + '% ' + to.toFixed(2) + '%');
      at = to;
    });
    return 'linear-gradient(to right, ' + stops.join(', ') + ')';
  }

  function heat(mode, v, scale) {
    if (v === null) return '#eee';
    if (mode === 'equity') return 'hsl(' + Math.round(120 * v) + ', 65%, 55%)';
    var t = scale > 0 ? Math.max(-1, Math.min(1, v / scale)) : 0;
    if (mode === 'gain') return 'hsl(0, 80%, ' + Math.round(97 - 45 * Math.max(0, t)) + '%)';
    return t >= 0 ? 'hsl(120, 55%, ' + Math.round(95 - 45 * t) + '%)' : 'hsl(0, 70%, ' + Math.round(95 + 45 * t) + '%)';
  }

  function drawGrids() {
    var n = node(), cells = document.querySelectorAll('#grid .cell'), vcells = document.querySelectorAll('#value-grid .cell');
    var mode = el('value-mode').value;
    var stats = [], scale = 0;
    for (var i = 0; i < 169; i++) {
      var s = n.data ? cellStats(n, i) : null;
      stats.push(s);
      if (s && s.reach > 0) {
        var v = mode === 'gain' ? s.gain : mode === 'ev' ? s.ev : s.eq;
        if (v !== null) scale = Math.max(scale, Math.abs(v));
      }
    }
    for (i = 0; i < 169; i++) {
      s = stats[i];
      var cell = cells[i], vc = vcells[i];
      var fill = cell.querySelector('.fill'), w = cell.querySelector('.w');
      var vfill = vc.querySelector('.fill'), vw = vc.querySelector('.w');
      if (!s || s.reach <= 0) {
        cell.classList.add('empty'); vc.classList.add('empty');
        fill.style.height = '0'; vfill.style.height = '0';
        fill.style.background = ''; vfill.style.background = '';
        w.textContent = ''; vw.textContent = '';
        cell.title = ''; vc.title = '';
        continue;
      }
      cell.classList.remove('empty'); vc.classList.remove('empty');
      var h = Math.min(100, 100 * s.reach / Math.max(1, s.combos));
      fill.style.height = h.toFixed(1) + '%';
      fill.style.background = gradient(n.actions, s.freq);
      w.textContent = s.reach.toFixed(2);
      cell.title = cellName(i) + ': ' + n.actions.map(function (a, j) { return a + ' ' + (100 * s.freq[j]).toFixed(1) + '%'; }).join(', ');
      var v = mode === 'gain' ? s.gain : mode === 'ev' ? s.ev : s.eq;
      vfill.style.height = '100%';
      vfill.style.background = heat(mode, v, scale);
      vw.textContent = fmt(v, mode === 'equity' ? 3 : 2);
      vc.title = cellName(i) + ': ' + mode + ' ' + fmt(v, 4);
    }
  }

  function handName(p, h) { return mapCards(state.perm, D.hands[p][h]); }

  function showCell(i) {
    var n = node(), box = el('cell-info');
    if (!n.data) { box.textContent = 'No per-hand data at this node.'; return; }
    var p = n.player, d = n.data, k = n.actions.length;
    var rows = cellHands[p][i].map(function (h) {
      return '<tr data-hand="' + handName(p, h) + '"><td>' + handName(p, h) + '</td><td>' + fmt(d.reach[h], 4) + '</td>' +
        n.actions.map(function (a, j) { return '<td>' + fmt(100 * d.strategy[h * k + j], 1) + '%</td>'; }).join('') +
        '<td>' + fmt(d.ev[h], 2) + '</td><td>' + fmt(d.equity[h], 3) + '</td><td>' + fmt(d.gain[h], 3) + '</td></tr>';
    });
    box.innerHTML = '<b>' + cellName(i) + '</b> (' + cellHands[p][i].length + ' combos in the range)' +
      '<table><thead><tr><th>combo</th><th>reach</th>' + n.actions.map(function (a) { return '<th>' + esc(a) + '</th>'; }).join('') +
      '<th>EV</th><th>equity</th><th>BR gain</th></tr></thead><tbody>' + rows.join('') + '</tbody></table>';
  }

  function drawRange() {
    var n = node(), tb = el('range-table').querySelector('tbody'), bar = el('range-bar');
    if (!n.data) { tb.innerHTML = ''; bar.innerHTML = ''; return; }
    var r = n.data.range;
    var html = '<tr><th>combos arriving</th><td id="range-weight">' + fmt(r.weight, 3) + '</td></tr>';
    n.actions.forEach(function (a, j) {
      html += '<tr class="freq" data-action="' + esc(a) + '"><th><span class="sw" style="background:' + actionColor(a) + '"></span>' + esc(a) + '</th><td>' + fmt(100 * r.frequencies[j], 2) + '%</td></tr>';
    });
    html += '<tr><th>EV (chips)</th><td id="range-ev">' + fmt(r.ev, 3) + '</td></tr>';
    html += '<tr><th>equity</th><td id="range-equity">' + fmt(r.equity, 4) + '</td></tr>';
    html += '<tr><th>best-response gain (chips)</th><td id="range-gain">' + fmt(r.gain, 4) + '</td></tr>';
    tb.innerHTML = html;
    bar.innerHTML = n.actions.map(function (a, j) { return '<span title="' + esc(a) + '" style="width:' + (100 * r.frequencies[j]).toFixed(2) + '%;background:' + actionColor(a) + '"></span>'; }).join('');
    el('legend').innerHTML = n.actions.map(function (a) { return '<span><span class="sw" style="background:' + actionColor(a) + '"></span>' + esc(a) + '</span>'; }).join('') +
      '<span class="note">bar height: the share of the cell\'s combos arriving here</span>';
  }

  function drawTables() {
    var n = node(), ct = el('class-table'), mt = el('made-table'), lt = el('leak-table').querySelector('tbody');
    if (!n.data) { ct.querySelector('tbody').innerHTML = ''; mt.querySelector('tbody').innerHTML = ''; lt.innerHTML = ''; return; }
    var head = '<th>combos</th>' + n.actions.map(function (a) { return '<th>' + esc(a) + '</th>'; }).join('') + '<th>EV</th><th>equity</th><th>BR gain</th>';
    ct.querySelector('thead tr').innerHTML = '<th>class</th>' + head;
    mt.querySelector('thead tr').innerHTML = '<th>made hand</th>' + head;
    var row = function (name, s) {
      return '<tr data-class="' + esc(name) + '"><td>' + esc(name) + '</td><td>' + fmt(s.reach, 3) + '</td>' + s.freq.map(function (f) { return '<td>' + fmt(100 * f, 1) + '%</td>'; }).join('') +
        '<td>' + fmt(s.ev, 2) + '</td><td>' + fmt(s.eq, 3) + '</td><td>' + fmt(s.gain, 3) + '</td></tr>';
    };
    var rows = [];
    for (var i = 0; i < 169; i++) { var s = cellStats(n, i); if (s.reach > 0) rows.push(row(cellName(i), s)); }
    ct.querySelector('tbody').innerHTML = rows.join('');
    // By made hand: the same aggregates over the hands of each class.
    var p = n.player, d = n.data, k = n.actions.length, made = [];
    for (var m = 0; m < MADE.length; m++) made.push([]);
    d.made.forEach(function (m, h) { made[m].push(h); });
    var mrows = [];
    made.forEach(function (hs, m) {
      var saved = cellHands[p][0];
      cellHands[p][0] = hs;
      var s = cellStats(n, 0);
      cellHands[p][0] = saved;
      if (s.reach > 0) mrows.push(row(MADE[m], s));
    });
    mt.querySelector('tbody').innerHTML = mrows.join('');
    var hands = [];
    d.reach.forEach(function (r, h) { if (r > 1e-6 && d.gain[h] !== null) hands.push(h); });
    hands.sort(function (a, b) { return d.gain[b] - d.gain[a]; });
    lt.innerHTML = hands.slice(0, 15).map(function (h) {
      return '<tr><td>' + handName(p, h) + '</td><td>' + fmt(d.reach[h], 4) + '</td><td>' + fmt(d.gain[h], 3) + '</td><td>' + fmt(d.ev[h], 2) + '</td><td>' + fmt(d.equity[h], 3) + '</td></tr>';
    }).join('');
    void k;
  }

  function drawPicker() {
    var n = node(), who = ['OOP', 'IP'];
    el('node-path').textContent = realPath(n.path, state.perm);
    var board = mapCards(state.perm, n.board);
    var facts = n.street + ' \u00b7 board ' + board + ' \u00b7 pot ' + (D.pot + n.committed[0] + n.committed[1]) + ' (OOP put in ' + n.committed[0] + ', IP ' + n.committed[1] + ')';
    if (n.kind === 'decision') facts = who[n.player] + ' to act \u00b7 ' + facts;
    else if (n.kind === 'fold') facts = who[n.player] + ' folded \u00b7 ' + facts;
    else if (n.kind === 'showdown' || n.kind === 'allin') facts = 'showdown \u00b7 ' + facts;
    else if (n.kind === 'chance') facts = 'deal the next card \u00b7 ' + facts;
    el('node-facts').textContent = facts;
    var ch = el('choices'), html = '';
    if (n.kind === 'decision') {
      n.actions.forEach(function (a, j) {
        var c = n.children[j];
        html += '<button type="button" class="act" data-action="' + esc(a) + '" style="background:' + actionColor(a) + '"' + (c === null ? ' disabled title="not embedded in this page"' : '') + '>' + esc(a) + '</button>';
      });
    } else if (n.kind === 'chance') {
      var inv = inverse(state.perm), byWalked = {};
      n.deals.forEach(function (d) { byWalked[d[0]] = d; });
      html += '<div class="cards">';
      for (var r = 12; r >= 0; r--) for (var s = 3; s >= 0; s--) {
        var real = RANKS[r] + SUITS[s], w = mapCard(inv, real), d = byWalked[w];
        if (!d) continue;
        html += '<button type="button" data-card="' + real + '"' + (d[1] === null ? ' disabled title="not embedded in this page"' : '') + '>' + real + '</button>';
      }
      html += '</div>';
    }
    ch.innerHTML = html;
    el('node-heading').textContent = n.data ? 'Strategy of ' + who[n.player] + ' at ' + realPath(n.path, state.perm) : (n.kind === 'decision' ? 'No per-hand data at this node (beyond the page\'s bound)' : 'Not a decision node');
    el('node-select').value = String(state.id);
  }

  function draw() {
    drawPicker(); drawRange(); drawGrids(); drawTables();
    if (state.cell !== null) showCell(state.cell); else el('cell-info').textContent = 'Hover or click a cell to list its combos.';
    document.body.dataset.node = realPath(node().path, state.perm);
  }

  function go(id, perm) {
    state.trail.push({ id: state.id, perm: state.perm });
    state.id = id; state.perm = perm;
    draw();
  }

  el('choices').addEventListener('click', function (e) {
    var b = e.target.closest('button'); if (!b || b.disabled) return;
    var n = node();
    if (b.dataset.action !== undefined) {
      var j = n.actions.indexOf(b.dataset.action);
      if (n.children[j] !== null) go(n.children[j], state.perm);
    } else if (b.dataset.card) {
      var w = mapCard(inverse(state.perm), b.dataset.card);
      var d = n.deals.filter(function (x) { return x[0] === w; })[0];
      if (!d || d[1] === null) return;
      var perm = state.perm;
      if (d[2] > 0) { var q = D.perms[d[2] - 1]; perm = [0, 1, 2, 3].map(function (s) { return state.perm[q[s]]; }); }
      go(d[1], perm);
    }
  });
  el('back').addEventListener('click', function () {
    var t = state.trail.pop(); if (!t) return;
    state.id = t.id; state.perm = t.perm; draw();
  });
  el('to-root').addEventListener('click', function () { state.trail = []; state.id = 0; state.perm = [0, 1, 2, 3]; draw(); });
  el('node-select').addEventListener('change', function () { go(+this.value, [0, 1, 2, 3]); });
  el('value-mode').addEventListener('change', drawGrids);

  // The root's figures and the bound.
  var rs = el('root-summary').querySelector('tbody');
  rs.innerHTML = '<tr><th>EV (chips)</th><td id="root-ev-oop">' + fmt(D.root.ev[0], 4) + '</td><td id="root-ev-ip">' + fmt(D.root.ev[1], 4) + '</td></tr>' +
    '<tr><th>equity (checked down)</th><td>' + fmt(D.root.equity[0], 5) + '</td><td>' + fmt(D.root.equity[1], 5) + '</td></tr>' +
    '<tr><th>best-response gain (chips)</th><td id="root-gain-oop">' + fmt(D.root.gain[0], 4) + '</td><td id="root-gain-ip">' + fmt(D.root.gain[1], 4) + '</td></tr>' +
    '<tr><th>exploitability (chips)</th><td colspan="2">' + fmt((D.root.gain[0] + D.root.gain[1]) / 2, 4) + ' (' + fmt(50 * (D.root.gain[0] + D.root.gain[1]) / D.pot, 4) + '% of the pot)</td></tr>';
  el('bound-note').textContent = 'This page holds per-hand data for ' + D.embedded + ' of the ' + D.decision_nodes +
    ' decision nodes the solver walks (the first ' + D.max_nodes + ' breadth first from the root: bluff report --max-nodes N embeds more). ' +
    (D.embedded < D.decision_nodes ? 'Actions and cards leading to nodes left out are greyed; bluff export-strategy SPOT S --node PATH prints any node. ' : '') +
    (D.perms.length ? 'Deals equivalent under a suit swap share the data of the deal the solver walked, with the suits swapped back. ' : '') +
    'EV counts chips won from the pot less every chip put in since the spot\'s start.';
  var opts = [];
  D.nodes.forEach(function (n, i) { if (n.data) opts.push('<option value="' + i + '">' + esc(n.path) + '</option>'); });
  el('node-select').innerHTML = opts.join('');
  buildGrid('grid', 'strat');
  buildGrid('value-grid', 'value');
  draw();
  el('js-status').dataset.ms = performance.now().toFixed(0);
  el('js-status').textContent = 'ready';
})();
