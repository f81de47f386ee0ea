/* rpcspy export: draws the timeline from the page's data blocks, a window of rows at a time.
   Data (see rpcspy/render/html.py): frame lines "SEQ DIR T FLAGS NBYTES\tDATA", item arrays
   [seq,t,dir,kind,status,label,ref,latency,summary,blocks,findings,seqs,flags,severity],
   finding arrays [item index,severity,rule,message]. */
(function () {
  'use strict';
  var FR = [], IT = [], FX = [], P = [], FI = null, FRL = null;
  var PAGE = 200, MAX_CHARS = 200000, MAX_FINDINGS = 1000, FRAMES_AT_ONCE = 200;
  var ARROWS = {c2a: '\u2192', a2c: '\u2190', err: '!'};
  [].forEach.call(document.querySelectorAll('script[type="text/x-rpcspy"]'), function (s) {
    var k = s.getAttribute('data-k'), t = s.textContent;
    if (k === 'f') { FR.push(t); } else {
      var lines = t.split('\n'); lines.pop();
      if (k === 'i') { IT = IT.concat(lines); } else { FX = FX.concat(lines); }
    }
    s.parentNode.removeChild(s);
  });

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = text; }
    return e;
  }
  function item(i) { return P[i] || (P[i] = JSON.parse(IT[i])); }
  /* "<" is stored as \u003c so no data can end its block; show it as "<" again. */
  function unlt(s) { return s.replace(/(\\*)\\u003c/g, function (m, b) { return b.length % 2 ? m : b + '<'; }); }

  function frameIndex() {
    if (FI) { return FI; }
    FI = new Map();
    FR.forEach(function (t, c) {
      var p = 0, n = t.length;
      while (p < n) {
        var e = t.indexOf('\n', p); if (e < 0) { e = n; }
        FI.set(+t.slice(p, t.indexOf(' ', p)), [c, p, e]);
        p = e + 1;
      }
    });
    return FI;
  }
  function frame(seq) {
    var r = frameIndex().get(seq);
    if (!r) { return null; }
    var line = FR[r[0]].slice(r[1], r[2]), tab = line.indexOf('\t'), h = line.slice(0, tab).split(' ');
    return {seq: h[0], dir: h[1], t: h[2], flags: +h[3], bytes: +h[4], data: line.slice(tab + 1)};
  }
  /* Indent JSON text token by token: every value is shown exactly as it was written. */
  function pretty(s) {
    var o = [], ind = '', str = false, start = 0, i, c, n = s.length, j;
    for (i = 0; i < n; i++) {
      c = s.charCodeAt(i);
      if (str) { if (c === 92) { i++; } else if (c === 34) { str = false; } continue; }
      if (c === 34) { str = true; continue; }
      if (c === 123 || c === 91 || c === 125 || c === 93 || c === 44 || c === 58 || c <= 32) {
        o.push(s.slice(start, i)); start = i + 1;
        if (c === 123 || c === 91) {
          j = i + 1; while (j < n && s.charCodeAt(j) <= 32) { j++; }
          if (s.charCodeAt(j) === c + 2) { o.push(s[i] + s[j]); i = j; start = j + 1; continue; }
          ind += '  '; o.push(s[i] + '\n' + ind);
        } else if (c === 125 || c === 93) { ind = ind.slice(2); o.push('\n' + ind + s[i]); }
        else if (c === 44) { o.push(',\n' + ind); }
        else if (c === 58) { o.push(': '); }
      }
    }
    o.push(s.slice(start));
    return o.join('');
  }
  function frameText(f) {
    var data = f.data.length > MAX_CHARS ? f.data.slice(0, MAX_CHARS) : f.data;
    var text = unlt(f.flags & 8 ? data : pretty(data));
    if (f.data.length > MAX_CHARS) {
      text += '\n\u2026 ' + (f.data.length - MAX_CHARS).toLocaleString() + ' more characters (see the recording)';
    }
    return text;
  }
  function fill(box, seqs, from) {
    var end = Math.min(seqs.length, from + FRAMES_AT_ONCE);
    for (var k = from; k < end; k++) {
      var f = frame(seqs[k]);
      if (!f) { box.appendChild(el('pre', 'frame gone', '#' + seqs[k] + ' is not in this export (filtered out)')); continue; }
      var pre = el('pre', 'frame'), extra = (f.flags & 1 ? ' cr' : '') + (f.flags & 2 ? ' no-newline' : '') +
        (f.flags & 4 ? ' injected' : '') + (f.flags & 16 ? ' not-utf8' : '');
      pre.id = 'f' + f.seq;
      pre.appendChild(el('span', 'fhead', '#' + f.seq + ' ' + f.dir + ' ' + f.t + ' ' + f.bytes.toLocaleString('en') +
        ' bytes' + extra));
      pre.appendChild(document.createTextNode(frameText(f)));
      box.appendChild(pre);
    }
    if (end < seqs.length) {
      var more = el('button', 'more', (seqs.length - end) + ' more frames');
      more.onclick = function () { box.removeChild(more); fill(box, seqs, end); };
      box.appendChild(more);
    }
  }

  var expandAll = false;
  function row(i) {
    var r = item(i), seq = r[0], dir = r[2], kind = r[3], fl = r[12], sev = r[13], seqs = r[11];
    var d = el('div', 'item k-' + kind + (dir ? ' d-' + dir : '') + (r[4] ? ' s-' + r[4] : '') +
      (fl & 1 ? ' injected' : '') + (sev ? ' has-finding sev-' + sev : ''));
    d.id = 's' + seq; d.setAttribute('data-seq', seq); d.setAttribute('data-i', i);
    if (sev) { d.setAttribute('data-sev', sev); }
    var line = document.createDocumentFragment();
    line.appendChild(el('span', 't', r[1].toFixed(3)));
    line.appendChild(el('span', 'seq', '#' + seq));
    line.appendChild(el('span', 'arrow', kind === 'finding' || kind === 'eof' || kind === 'note' ? '' : ARROWS[dir] || ''));
    line.appendChild(el('span', 'label', r[5] + (fl & 2 ? ' (continued)' : '') + (fl & 1 ? ' (injected)' : '')));
    if (r[6]) { line.appendChild(document.createTextNode(' ')); line.appendChild(el('span', 'ref', '#' + r[6])); }
    if (r[7]) { line.appendChild(el('span', 'lat', '(' + r[7] + ')')); }
    if (r[8]) { line.appendChild(el('span', 'sum', r[8])); }
    if (seqs.length) {
      var det = el('details'), sum = el('summary'), box = el('div', 'frames');
      sum.appendChild(line); det.appendChild(sum); det.appendChild(box);
      det.addEventListener('toggle', function () { if (det.open && !box.firstChild) { fill(box, seqs, 0); } });
      if (expandAll) { det.open = true; }
      d.appendChild(det);
    } else { var ln = el('div', 'line'); ln.appendChild(line); d.appendChild(ln); }
    if (r[9].length) {
      var b = el('div', 'blocks');
      r[9].forEach(function (x) { b.appendChild(el('pre', 'b-' + x[0], (x[1] ? x[1] + ': ' : '') + x[2])); });
      d.appendChild(b);
    }
    var own = fl & 4 ? r[10].slice(1) : r[10];
    if (own.length) {
      var ul = el('ul', 'findings');
      own.forEach(function (f) {
        var li = el('li', 'f-' + f[0]);
        li.appendChild(el('span', 'rule', f[0] + ' ' + f[1]));
        li.appendChild(document.createTextNode(': ' + f[2]));
        if (f[3]) { li.appendChild(document.createTextNode(' ')); li.appendChild(el('code', null, f[3])); }
        ul.appendChild(li);
      });
      d.appendChild(ul);
    }
    return d;
  }

  var main = document.getElementById('timeline'), count = document.getElementById('count');
  var q = document.getElementById('q'), only = document.getElementById('onlyf');
  var view = [], lo = 0, hi = 0, bottom = el('div', 'sentinel'), top = el('button', 'more');
  function showCount() {
    count.textContent = view.length ? 'rows ' + (lo + 1) + '\u2013' + hi + ' of ' + view.length +
      (view.length < IT.length ? ' (' + IT.length + ' in all)' : '') : 'no rows';
  }
  function render() {
    main.textContent = '';
    top.textContent = '\u25b2 ' + Math.min(PAGE, lo) + ' earlier rows';
    if (lo > 0) { main.appendChild(top); }
    var frag = document.createDocumentFragment();
    for (var k = lo; k < hi; k++) { frag.appendChild(row(view[k])); }
    main.appendChild(frag); main.appendChild(bottom); showCount();
  }
  function more() {
    var n = Math.min(view.length, hi + PAGE), frag = document.createDocumentFragment();
    for (var k = hi; k < n; k++) { frag.appendChild(row(view[k])); }
    main.insertBefore(frag, bottom); hi = n; showCount();
  }
  top.onclick = function () {
    var first = top.nextSibling, y = first.getBoundingClientRect().top, n = Math.max(0, lo - PAGE);
    var frag = document.createDocumentFragment();
    for (var k = n; k < lo; k++) { frag.appendChild(row(view[k])); }
    main.insertBefore(frag, first); lo = n;
    if (lo === 0) { main.removeChild(top); } else { top.textContent = '\u25b2 ' + Math.min(PAGE, lo) + ' earlier rows'; }
    window.scrollBy(0, first.getBoundingClientRect().top - y); showCount();
  };
  if (window.IntersectionObserver) {
    new IntersectionObserver(function (es) { if (es[0].isIntersecting && hi < view.length) { more(); } })
      .observe(bottom);
  }

  /* The data holds "<" as \u003c: search for it that way. */
  function stored(s) { return s.replace(/</g, '\\u003c'); }
  function frameHits(needle) {
    var hits = new Set();
    if (!FRL) { FRL = FR.map(function (t) { return t.toLowerCase(); }); }
    FRL.forEach(function (t) {
      var p = t.indexOf(needle);
      while (p >= 0) {
        var start = t.lastIndexOf('\n', p) + 1, end = t.indexOf('\n', p);
        hits.add(+t.slice(start, t.indexOf(' ', start)));
        if (end < 0) { break; }
        p = t.indexOf(needle, end);
      }
    });
    return hits;
  }
  function select() {
    var s = stored(q.value.toLowerCase()), hits = s ? frameHits(s) : null, k;
    view = [];
    for (k = 0; k < IT.length; k++) {
      if (only.checked && !item(k)[13]) { continue; }
      if (s && IT[k].toLowerCase().indexOf(s) < 0 && !item(k)[11].some(function (x) { return hits.has(x); })) { continue; }
      view.push(k);
    }
    lo = 0; hi = Math.min(PAGE, view.length); render();
  }
  var timer = null;
  q.addEventListener('input', function () { clearTimeout(timer); timer = setTimeout(select, 150); });
  only.addEventListener('change', select);
  function openAll(open) {
    expandAll = open;
    [].forEach.call(main.querySelectorAll('.item>details'), function (d) { d.open = open; });
  }
  document.getElementById('expand').onclick = function () { openAll(true); };
  document.getElementById('collapse').onclick = function () { openAll(false); };

  function go(i) {
    var p = view.indexOf(i);
    if (p < 0) { q.value = ''; only.checked = false; select(); p = i; }
    if (p < lo || p >= hi) { lo = Math.max(0, p - 20); hi = Math.min(view.length, p + PAGE); render(); }
    var target = document.getElementById('s' + item(i)[0]);
    if (target) { target.scrollIntoView(); }
    return target;
  }

  var box = document.getElementById('findings');
  if (FX.length) {
    box.appendChild(el('div')).appendChild(el('b', null, FX.length + ' finding' + (FX.length > 1 ? 's' : '')));
    var ul = el('ul');
    FX.slice(0, MAX_FINDINGS).forEach(function (line) {
      var f = JSON.parse(line), r = item(f[0]), li = el('li', 'f-' + f[1]), a = el('a');
      a.href = '#s' + r[0];
      a.textContent = r[1].toFixed(3) + '  ' + f[1] + ' ' + f[2] + ': ' + f[3];
      a.onclick = function (e) { e.preventDefault(); go(f[0]); };
      li.appendChild(a); ul.appendChild(li);
    });
    if (FX.length > MAX_FINDINGS) { ul.appendChild(el('li', null, '\u2026 and ' + (FX.length - MAX_FINDINGS) + ' more: tick "only findings"')); }
    box.appendChild(ul);
  } else { box.textContent = 'no findings'; }

  for (var k = 0; k < IT.length; k++) { view.push(k); }
  hi = Math.min(PAGE, view.length);
  render();
  var m = /^#s(\d+)$/.exec(location.hash), h = location.hash;
  if (h === '#findings' || h.slice(0, 3) === '#q=') {  /* links to a filtered view: #findings, #q=TEXT */
    only.checked = h === '#findings';
    q.value = h === '#findings' ? '' : decodeURIComponent(h.slice(3));
    select();
  }
  if (m) {  /* a link to one row (#s42): that row, opened */
    for (k = 0; k < IT.length; k++) {
      if (item(k)[0] === +m[1]) { var t = go(k), det = t && t.querySelector('details'); if (det) { det.open = true; } break; }
    }
  }
})();
