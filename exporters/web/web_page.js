/* fabricscope status page script (embedded into the page by the build:
 * exporters/web/embed.cmake). The server renders every table and SVG; this
 * only refreshes them from /api/* every data-refresh seconds, with the
 * same markup, classes and geometry as the C renderers (web_page.c,
 * web_page_svg.c). Everything is built with DOM calls and textContent,
 * never innerHTML, so no label value can inject markup. A failed refresh
 * is shown in #live and retried; nothing is thrown or logged. */
(function () {
  'use strict';
  var body = document.body;
  var SVGNS = 'http://www.w3.org/2000/svg';
  var refresh = Math.max(1, Number(body.getAttribute('data-refresh')) || 5);
  var top = Number(body.getAttribute('data-top')) || 10;
  var limit = Number(body.getAttribute('data-limit')) || 50;
  /* Rows of a collector table the page shows (web_page.h FSC_WEB_PAGE_ROWS). */
  var rowsShown = Number(body.getAttribute('data-rows')) || 20;
  function listLimit(id, def) {
    var e = document.getElementById(id);
    return (e && Number(e.getAttribute('data-limit'))) || def;
  }
  var healthLimit = listLimit('conditions', 20), recentLimit = listLimit('recent', 8);
  /* A port chosen in the URL stays charted; otherwise the top port. */
  var fixedPort = body.getAttribute('data-device') !== '';
  var sel = {device: body.getAttribute('data-device'), port: body.getAttribute('data-port')};
  var refreshed = 0;
  var MISMATCH = ['missing', 'down', 'speed', 'address', 'peer'];

  document.documentElement.setAttribute('data-js', 'on');

  /* ---- DOM helpers ---- */
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function sv(tag, attrs, text) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function tdText(cls, text) { return el('td', {'class': cls}, text === null ? '' : text); }
  function tdUint(cls, v) { return el('td', {'class': 'num ' + cls}, String(v)); }
  /* data-value: the exact API number; text: the human form. */
  function tdNum(cls, v, shown) {
    if (v === null || v === undefined) {
      return el('td', {'class': 'num ' + cls, 'data-value': ''}, '\u2013');
    }
    return el('td', {'class': 'num ' + cls, 'data-value': String(v)}, shown);
  }
  function fillBody(id, rows, build, cols, empty) {
    var table = document.getElementById(id);
    if (!table) return;
    var tb = document.createElement('tbody');
    rows.forEach(function (r, i) { tb.appendChild(build(r, i)); });
    if (rows.length === 0) {
      var tr = el('tr', {'class': 'empty'});
      tr.appendChild(el('td', {'colspan': String(cols)}, empty));
      tb.appendChild(tr);
    }
    table.replaceChild(tb, table.tBodies[0]);
  }
  function setText(id, text) {
    var e = document.getElementById(id);
    if (e) e.textContent = text;
  }

  /* ---- formats (web_format.c) ---- */
  function fmtBitrate(bytesPerSecond) {
    var b = bytesPerSecond * 8;
    var units = [[1e12, 'Tb/s'], [1e9, 'Gb/s'], [1e6, 'Mb/s'], [1e3, 'kb/s']];
    for (var i = 0; i < units.length; i++) {
      if (Math.abs(b) >= units[i][0]) return (b / units[i][0]).toFixed(2) + ' ' + units[i][1];
    }
    return b.toFixed(0) + ' b/s';
  }
  function fmtPct(r) { return (r * 100).toFixed(1) + ' %'; }
  function fmtSecs(s) {
    if (s < 1) return (s * 1e3).toFixed(0) + ' ms';
    if (s < 60) return s.toFixed(1) + ' s';
    if (s < 3600) return Math.floor(s / 60) + ' min';
    return (s / 3600).toFixed(1) + ' h';
  }
  function fmtBytes(b) {
    if (b >= 1e9) return (b / 1e9).toFixed(1) + ' GB';
    if (b >= 1e6) return (b / 1e6).toFixed(1) + ' MB';
    if (b >= 1e3) return (b / 1e3).toFixed(1) + ' kB';
    return b.toFixed(0) + ' B';
  }
  function fmtSpeed(bps) {
    var u = [[1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'K']];
    for (var i = 0; i < u.length; i++) {
      if (bps % u[i][0] === 0) return (bps / u[i][0]) + u[i][1];
    }
    return String(bps);
  }
  function fmtTime(ms) { return new Date(ms).toISOString(); }
  /* For people, with the date and the zone: "2026-11-30 02:16:09 UTC"
   * (digits 3: "...:09.982 UTC"), as web_format.c fsc_web_fmt_when. */
  function fmtWhen(ms, digits) {
    var t = new Date(ms).toISOString().replace('T', ' ');
    return t.slice(0, digits ? 20 + digits : 19) + ' UTC';
  }
  /* Problem rows first, at most rowsShown, as web_page.c does. */
  function firstRows(rows, isDown) {
    var down = rows.filter(isDown), up = rows.filter(function (r) { return !isDown(r); });
    return down.concat(up).slice(0, rowsShown);
  }
  function moreRow(tb, total, shown, cols) {
    if (total <= shown) return;
    var tr = el('tr', {'class': 'more'});
    var td = el('td', {'colspan': String(cols)}, 'and ' + (total - shown) + ' more: ');
    td.appendChild(el('a', {'href': '/api/status'}, '/api/status'));
    td.appendChild(document.createTextNode(' lists them'));
    tr.appendChild(td);
    tb.appendChild(tr);
  }
  function utilColour(u) {
    if (u === null || u < 0) return '#9aa0a6';
    var stop = [[46, 158, 79], [224, 176, 0], [232, 99, 10]];
    if (u > 1) u = 1;
    var s = u < 0.5 ? 0 : 1, f = (u - 0.5 * s) / 0.5, hex = '#';
    for (var i = 0; i < 3; i++) {
      var c = Math.floor(stop[s][i] + (stop[s + 1][i] - stop[s][i]) * f + 0.5);
      hex += (c < 16 ? '0' : '') + c.toString(16);
    }
    return hex;
  }

  /* ---- status ---- */
  function renderStatus(st) {
    var events = 0;
    for (var k in st.engine.events_total) events += st.engine.events_total[k];
    setText('s-series', String(st.engine.series));
    setText('s-samples', String(st.engine.samples));
    setText('s-events', String(events));
    setText('s-windows', st.engine.windows.join(' '));
    var up = document.getElementById('updated');
    if (up) {
      up.textContent = fmtWhen(Date.parse(st.time), 0);
      up.setAttribute('datetime', st.time);
    }
    var down = st.sources.filter(function (s) { return !s.up; }).length;
    setText('i-sources', st.sources.length + ' sources, ' + down + ' not up');
    var shown = firstRows(st.sources, function (s) { return !s.up; });
    fillBody('sources', shown, function (s) {
      var tr = el('tr', {'data-source': s.name});
      tr.appendChild(tdText('name', s.name));
      tr.appendChild(tdText('type', s.type));
      tr.appendChild(tdText('state', s.state));
      tr.appendChild(el('td', {'class': 'up ' + (s.up ? 'good' : 'bad')}, s.up ? 'up' : 'down'));
      tr.appendChild(tdUint('series', s.series));
      return tr;
    }, 5, 'no sources configured');
    var src = document.getElementById('sources');
    if (src) moreRow(src.tBodies[0], st.sources.length, shown.length, 5);
    renderTables(st.tables);
  }

  /* ---- plugin tables (web_page.c, section_tables) ---- */
  function statCell(c, v) {
    if (v === null || v === undefined) return tdNum(c.id, null, '');
    if (c.unit === 'word') return el('td', {'class': c.id + ' w-' + v}, v);
    if (c.unit === 'seconds') return tdNum(c.id, v, fmtSecs(v));
    if (c.unit === 'bytes') return tdNum(c.id, v, fmtBytes(v));
    if (c.unit === 'unix_seconds') return tdNum(c.id, v, v > 0 ? fmtWhen(v * 1000, 3) : 'never');
    if (Number.isInteger(v) && v >= 0) return tdUint(c.id, v);
    return tdNum(c.id, v, fmtSecs(v));
  }
  function renderTables(tables) {
    var box = document.getElementById('plugins');
    if (!box || !tables) return;
    var next = document.createElement('div');
    next.id = 'plugins';
    next.className = 'row';
    tables.forEach(function (t) {
      var shown = t.columns.filter(function (c) { return c.title !== null; });
      if (t.rows.length === 0 || shown.length === 0) return;
      var panel = el('div', {'class': 'panel', 'data-table': t.id});
      panel.appendChild(el('h2', {}, t.title));
      var table = el('table', {'id': t.id});
      var hr = el('tr', {});
      t.keys.forEach(function (k) { hr.appendChild(el('th', {}, k)); });
      shown.forEach(function (c) { hr.appendChild(el('th', {}, c.title)); });
      var thead = el('thead', {});
      thead.appendChild(hr);
      table.appendChild(thead);
      var tb = el('tbody', {});
      var hasUp = t.columns.some(function (c) { return c.id === 'up'; });
      var rows = firstRows(t.rows, function (r) { return hasUp && r.up === 0; });
      rows.forEach(function (r) {
        var attrs = {};
        t.keys.forEach(function (k) { attrs['data-' + k] = r[k]; });
        var tr = el('tr', attrs);
        t.keys.forEach(function (k) { tr.appendChild(tdText(k, r[k])); });
        shown.forEach(function (c) { tr.appendChild(statCell(c, r[c.id])); });
        tb.appendChild(tr);
      });
      moreRow(tb, t.rows.length, rows.length, t.keys.length + shown.length);
      table.appendChild(tb);
      panel.appendChild(table);
      next.appendChild(panel);
    });
    box.parentNode.replaceChild(next, box);
  }

  /* ---- ports ---- */
  function renderPorts(pp) {
    fillBody('ports', pp.ports, function (p, i) {
      var tr = el('tr', {'data-device': p.device, 'data-port': p.port});
      tr.appendChild(el('td', {'class': 'num rank'}, String(i + 1)));
      tr.appendChild(tdText('device', p.device));
      var cell = el('td', {'class': 'port'});
      cell.appendChild(el('a', {'href': '?device=' + encodeURIComponent(p.device) + '&port=' +
                                        encodeURIComponent(p.port) + '#chart'}, p.port));
      tr.appendChild(cell);
      tr.appendChild(tdText('speed', p.speed_bps === null ? '' : fmtSpeed(p.speed_bps)));
      var pk = p.peak_utilization;
      tr.appendChild(tdNum('peak', pk, pk === null ? '' : fmtPct(pk)));
      tr.appendChild(tdText('window', p.peak_window === null ? '' : p.peak_window));
      tr.appendChild(tdText('dir', p.peak_direction === null ? '' : p.peak_direction));
      tr.appendChild(tdNum('rx', p.rx_bytes_per_second,
                           p.rx_bytes_per_second === null ? '' : fmtBitrate(p.rx_bytes_per_second)));
      tr.appendChild(tdNum('tx', p.tx_bytes_per_second,
                           p.tx_bytes_per_second === null ? '' : fmtBitrate(p.tx_bytes_per_second)));
      tr.appendChild(tdNum('rxu', p.rx_utilization,
                           p.rx_utilization === null ? '' : fmtPct(p.rx_utilization)));
      tr.appendChild(tdNum('txu', p.tx_utilization,
                           p.tx_utilization === null ? '' : fmtPct(p.tx_utilization)));
      tr.appendChild(tdUint('microbursts', p.microbursts));
      tr.appendChild(tdUint('bursts', p.bursts));
      return tr;
    }, 13, 'no port has a measured rate yet');
  }

  /* ---- events ---- */
  function renderEvents(ev) {
    setText('events-info', ev.published + ' published \u00b7 ' + ev.kept + ' kept \u00b7 ' +
                           ev.lost + ' lost \u00b7 the newest ' + ev.events.length + ' shown');
    fillBody('events', ev.events, function (e) {
      var tr = el('tr', {'data-seq': String(e.seq), 'class': 'ev-' + e.kind});
      tr.appendChild(el('td', {'class': 'time', 'title': e.start}, fmtWhen(Date.parse(e.start), 3)));
      tr.appendChild(tdText('kind', e.kind));
      tr.appendChild(tdText('phase', e.phase));
      tr.appendChild(tdText('device', e.device !== null ? e.device : (e.subject || '')));
      tr.appendChild(tdText('port', e.port));
      tr.appendChild(tdText('dir', e.direction));
      var d = e.duration_seconds;
      tr.appendChild(tdNum('duration', d, d === null ? '' : fmtSecs(d)));
      tr.appendChild(tdText('summary', e.summary));
      return tr;
    }, 8, 'no events yet');
  }

  /* ---- chart (web_page_svg.c) ---- */
  function renderChart(c) {
    var svg = document.getElementById('chart-svg');
    if (!svg) return;
    var W = 900, H = 240;
    var L = Number(svg.getAttribute('data-l')), R = Number(svg.getAttribute('data-r'));
    var T = Number(svg.getAttribute('data-t')), B = Number(svg.getAttribute('data-b'));
    var PW = W - L - R, PH = H - T - B;
    var from = c.from_ms, to = c.to_ms, span = to - from;
    function x(t) { return L + (t - from) / span * PW; }
    function y(u) { return T + (1 - Math.min(1, Math.max(0, u))) * PH; }
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    svg.appendChild(sv('rect', {'class': 'plot', x: L, y: T, width: PW, height: PH}));
    for (var i = 0; i <= 4; i++) {
      var gy = y(i / 4);
      svg.appendChild(sv('line', {'class': 'grid', x1: L, y1: gy.toFixed(1), x2: L + PW,
                                  y2: gy.toFixed(1)}));
      svg.appendChild(sv('text', {'class': 'ylab', x: L - 4, y: (gy + 4).toFixed(1)},
                         (i * 25) + ' %'));
    }
    if (span <= 0) return;
    for (i = 0; i <= 4; i++) {
      var tt = from + Math.floor(span / 4) * i;
      /* The end labels stay inside the plot's width. */
      var anchor = i === 0 ? 'start' : i === 4 ? 'end' : 'middle';
      svg.appendChild(sv('text', {'class': 'xlab', x: x(tt).toFixed(1), y: H - 8,
                                  'text-anchor': anchor},
                         i === 0 ? fmtWhen(tt, 0) : fmtTime(tt).slice(11, 19)));
    }
    var yr = y(c.rise).toFixed(1);
    svg.appendChild(sv('line', {'class': 'rise', x1: L, y1: yr, x2: L + PW, y2: yr}));
    c.bursts.forEach(function (m) {
      /* No end: a microburst whose END is pending (drawn at its start), or
       * a long burst still going (drawn to now). */
      var end = m.end_ms !== null ? m.end_ms : m.kind === 'microburst' ? m.start_ms : to;
      if (end < from || m.start_ms > to) return;
      var x1 = x(Math.max(m.start_ms, from)), x2 = x(Math.min(end, to));
      var r = sv('rect', {'class': 'burst', x: x1.toFixed(1), y: T,
                          width: Math.max(2, x2 - x1).toFixed(1), height: PH});
      var dur = m.end_ms !== null ? fmtSecs((m.end_ms - m.start_ms) / 1e3)
                                  : m.kind === 'microburst' ? '(end pending)' : 'ongoing';
      r.appendChild(sv('title', {}, m.kind + ' ' + m.direction + ' ' + dur + ', peak ' +
                                    fmtPct(m.peak)));
      svg.appendChild(r);
    });
    ['rx', 'tx'].forEach(function (d) {
      /* Per pixel column the highest point: a burst is never averaged away. */
      var pts = [], col = -1, best = 0;
      c[d].forEach(function (p) {
        if (p[0] < from || p[0] > to) return;
        var k = Math.min(PW - 1, Math.floor((p[0] - from) / span * PW));
        if (k !== col) {
          if (col >= 0) pts.push((L + col + 0.5).toFixed(1) + ',' + y(best).toFixed(1));
          col = k;
          best = p[1];
        } else if (p[1] > best) {
          best = p[1];
        }
      });
      if (col >= 0) pts.push((L + col + 0.5).toFixed(1) + ',' + y(best).toFixed(1));
      svg.appendChild(sv('polyline', {'class': d, points: pts.join(' ')}));
    });
    setText('chart-port', c.device + ' ' + c.port);
    setText('chart-info', 'speed ' + (c.speed_bps === null ? 'unknown' : fmtSpeed(c.speed_bps)) +
            ' \u00b7 ' + (c.tracked ? 'history since ' + fmtWhen(Date.parse(c.tracked_since), 0)
                                 : 'no history kept') +
            ' \u00b7 ' + c.rx.length + ' rx / ' + c.tx.length + ' tx points \u00b7 ' +
            c.bursts.length + ' bursts');
  }

  /* ---- mesh (web_page_svg.c) ---- */
  function renderMesh(m) {
    var svg = document.getElementById('mesh-svg');
    var S = 440, RING = 160, NODE = 24, GAP = 6, c = S / 2;
    var n = m.nodes.length;
    function xy(i) {
      var a = -Math.PI / 2 + 2 * Math.PI * i / (n || 1);
      return n > 1 ? [c + RING * Math.cos(a), c + RING * Math.sin(a)] : [c, c];
    }
    function index(node) {
      for (var i = 0; i < n; i++) if (m.nodes[i].node === node) return i;
      return 0;
    }
    setText('mesh-info', n + ' nodes \u00b7 ' + m.links.length + ' links \u00b7 from the ' +
                         (m.source === 'plan' ? 'cable plan' : 'NIC series labels'));
    if (svg) {
      while (svg.firstChild) svg.removeChild(svg.firstChild);
      m.links.forEach(function (l, li) {
        var k = 0, cnt = 0;
        m.links.forEach(function (o, j) {
          if (o.a.node !== l.a.node || o.b.node !== l.b.node) return;
          if (j < li) k++;
          cnt++;
        });
        var pa = xy(index(l.a.node)), pb = xy(index(l.b.node));
        var dx = pb[0] - pa[0], dy = pb[1] - pa[1], len = Math.sqrt(dx * dx + dy * dy);
        var off = (k - (cnt - 1) / 2) * GAP;
        var ox = len > 0 ? -dy / len * off : 0, oy = len > 0 ? dx / len * off : 0;
        var line = sv('line', {'class': 'link' + (l.mismatch ? ' mismatch' : ''),
                               'data-key': l.a.node + '-' + l.b.node + '-' + l.link,
                               x1: (pa[0] + ox).toFixed(1), y1: (pa[1] + oy).toFixed(1),
                               x2: (pb[0] + ox).toFixed(1), y2: (pb[1] + oy).toFixed(1),
                               stroke: l.mismatch ? '#d00000' : utilColour(l.utilization)});
        line.appendChild(sv('title', {}, l.a.node + ':' + l.a.port + ' - ' + l.b.node + ':' +
                                         l.b.port + ' link ' + l.link + ', ' +
                                         (l.utilization === null ? 'no data'
                                                                 : fmtPct(l.utilization)) +
                                         (l.mismatch ? ', MISMATCH' : '')));
        svg.appendChild(line);
      });
      m.nodes.forEach(function (nd, i) {
        var p = xy(i), ty = p[1] + (p[1] >= c ? 40 : -32);
        var g = sv('g', {'class': 'node' + (nd.polled ? ' polled' : ''),
                         'data-node': String(nd.node)});
        g.appendChild(sv('circle', {cx: p[0].toFixed(1), cy: p[1].toFixed(1), r: NODE}));
        g.appendChild(sv('text', {'class': 'num', x: p[0].toFixed(1), y: (p[1] + 5).toFixed(1)},
                         String(nd.node)));
        g.appendChild(sv('text', {'class': 'name', x: p[0].toFixed(1), y: ty.toFixed(1)},
                         nd.device));
        svg.appendChild(g);
      });
    }
    fillBody('mesh-links', m.links, function (l) {
      var tr = el('tr', {'data-key': l.a.node + '-' + l.b.node + '-' + l.link});
      if (l.mismatch) tr.setAttribute('class', 'mismatch');
      tr.appendChild(tdText('a', l.a.node + ':' + l.a.port));
      tr.appendChild(tdText('b', l.b.node + ':' + l.b.port));
      tr.appendChild(tdUint('link', l.link));
      tr.appendChild(tdNum('util', l.utilization,
                           l.utilization === null ? '' : fmtPct(l.utilization)));
      var mm = [];
      [l.a, l.b].forEach(function (e) {
        MISMATCH.forEach(function (k) {
          if (e.mismatches.indexOf(k) >= 0) mm.push(e.node + ':' + e.port + ' ' + k);
        });
      });
      tr.appendChild(tdText('mm', mm.join(', ')));
      return tr;
    }, 5, 'no B300 cable plan and no NIC series with cable labels');
  }

  /* ---- fabric health (web_page_health.c) ---- */
  function healthLine(l) {
    var li = el('li', {'class': 'cond ' + l.severity, 'data-kind': l.kind,
                       'data-state': l.end === null ? 'active' : 'recent',
                       'data-device': l.device === null ? '' : l.device,
                       'data-port': l.port === null ? '' : l.port});
    li.appendChild(el('span', {'class': 'title'}, l.title));
    li.appendChild(document.createTextNode(' '));
    li.appendChild(el('span', {'class': 'what'}, l.what));
    li.appendChild(document.createTextNode(' '));
    var since = el('span', {'class': 'since'});
    var at = l.end !== null ? l.end : l.since;
    if (at !== null) {
      var recent = l.end !== null;
      var instant = ['microburst', 'queue_peak', 'buffer_threshold'].indexOf(l.kind) >= 0;
      since.appendChild(document.createTextNode(recent ? (instant ? 'at ' : 'ended ') : 'since '));
      since.appendChild(el('time', {'datetime': at}, l.when_text));
      since.appendChild(document.createTextNode(recent ? ' (' + l.age_text + ' ago)'
                                                       : ' (for ' + l.age_text + ')'));
    } else {
      since.textContent = 'since a time not known';
    }
    li.appendChild(since);
    li.appendChild(document.createTextNode(' '));
    li.appendChild(el('span', {'class': 'measure'}, l.measure));
    li.appendChild(document.createTextNode(' '));
    li.appendChild(el('span', {'class': 'check'}, 'Check ' + l.check + '.'));
    return li;
  }
  function fillList(id, lines, total, param, empty) {
    var old = document.getElementById(id);
    if (!old) return;
    var ul = el('ul', {'id': id, 'class': old.getAttribute('class'),
                       'data-limit': old.getAttribute('data-limit')});
    lines.forEach(function (l) { ul.appendChild(healthLine(l)); });
    if (total === 0 && empty) ul.appendChild(el('li', {'class': 'empty good'}, empty));
    if (total > lines.length) {
      var li = el('li', {'class': 'more'}, 'and ' + (total - lines.length) + ' more: ');
      li.appendChild(el('a', {'href': '/api/health?' + param + '=1000'}, '/api/health'));
      li.appendChild(document.createTextNode(' lists them'));
      ul.appendChild(li);
    }
    old.parentNode.replaceChild(ul, old);
  }
  function renderHealth(hm) {
    setText('health-info', hm.summary);
    fillList('conditions', hm.active, hm.active_total, 'limit',
             'Nothing wrong now: every source up, no cable, PCIe link or detector condition ' +
             'active.');
    fillList('recent', hm.recent, hm.recent_total, 'recent', null);
  }

  /* ---- the loop ---- */
  function get(url) {
    return fetch(url, {cache: 'no-store'}).then(function (r) {
      if (!r.ok) throw new Error(url + ' answered ' + r.status);
      return r.json();
    });
  }
  function live(text, ok) {
    var e = document.getElementById('live');
    if (!e) return;
    e.textContent = text;
    e.setAttribute('class', 'live ' + (ok ? 'good' : 'bad'));
  }
  function tick() {
    Promise.all([get('/api/status'), get('/api/ports?top=' + top),
                 get('/api/events?limit=' + limit), get('/api/mesh'),
                 get('/api/health?limit=' + healthLimit + '&recent=' + recentLimit)])
      .then(function (a) {
        renderHealth(a[4]);
        renderStatus(a[0]);
        renderPorts(a[1]);
        renderEvents(a[2]);
        renderMesh(a[3]);
        if (!fixedPort) {
          var p = a[1].ports[0];
          sel = p ? {device: p.device, port: p.port} : {device: '', port: ''};
        }
        if (sel.device === '') return null;
        return get('/api/port?device=' + encodeURIComponent(sel.device) + '&port=' +
                   encodeURIComponent(sel.port)).then(renderChart);
      })
      .then(function () {
        refreshed++;
        body.setAttribute('data-refreshed', String(refreshed));
        live('live', true);
      })
      .catch(function (e) { live('stale: ' + e.message, false); })
      .then(function () { setTimeout(tick, refresh * 1000); });
  }
  setTimeout(tick, refresh * 1000);
})();
