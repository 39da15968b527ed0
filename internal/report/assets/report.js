// Builds the report's charts from the JSON data block, with uPlot (inlined). Each chart has its
// own legend: one entry per line, drawn in the line's colour (the run) and dash (the op type or
// measure), with the value under the cursor. Exposes window.dbperfCharts =
// [{id, step, kind, title, series}] once every chart exists.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("dbperf-data").textContent);
  var created = [];
  var plots = [];
  var SVG = "http://www.w3.org/2000/svg";

  function hexAlpha(hex, a) {
    var n = parseInt(hex.slice(1), 16);
    return "rgba(" + ((n >> 16) & 255) + "," + ((n >> 8) & 255) + "," + (n & 255) + "," + a + ")";
  }

  // fmt prints an axis or legend value; null (a log axis's unlabelled minor tick) prints nothing.
  function fmt(v) {
    if (v == null) return "";
    var a = Math.abs(v);
    if (a >= 1e6) return +(v / 1e6).toFixed(1) + "M";
    if (a >= 1e4) return (v / 1e3).toFixed(0) + "k";
    if (a >= 1e3) return +(v / 1e3).toFixed(1) + "k";
    if (a >= 10 || a === 0) return v.toFixed(0);
    return String(+v.toPrecision(2));
  }

  // percentile axis: x = -log10(1 - p)
  var pctTicks = [Math.log10(2), 1, 2, 3, 4, 5];
  function pctLabel(x) {
    var p = 100 * (1 - Math.pow(10, -x));
    if (x < 0.01) return "0%";
    var digits = Math.max(0, Math.round(x) - 2);
    return p.toFixed(digits) + "%";
  }

  // logSplits are the powers of ten in [min, max] (one tick per decade, each labelled).
  function logSplits(u, axisIdx, min, max) {
    var out = [];
    for (var e = Math.floor(Math.log10(Math.max(min, 1e-9))); Math.pow(10, e) <= max * 1.0001; e++) {
      var v = Math.pow(10, e);
      if (v >= min * 0.9999) out.push(v);
    }
    return out.length ? out : [min, max];
  }

  function shadePlugin(shade) {
    return {
      hooks: {
        drawClear: [function (u) {
          if (!shade || !shade.length) return;
          var ctx = u.ctx;
          ctx.save();
          for (var i = 0; i < shade.length; i++) {
            var s = shade[i];
            var x0 = u.valToPos(s.from, "x", true), x1 = u.valToPos(s.to, "x", true);
            ctx.fillStyle = hexAlpha(data.runs[s.run].color, 0.18);
            ctx.fillRect(Math.min(x0, x1), u.bbox.top, Math.max(1, Math.abs(x1 - x0)), u.bbox.height);
          }
          ctx.restore();
        }]
      }
    };
  }

  // bandPlugin marks the overview's steps: alternate bands, each named at its top.
  function bandPlugin(bands) {
    return {
      hooks: {
        drawClear: [function (u) {
          if (!bands || !bands.length) return;
          var ctx = u.ctx;
          ctx.save();
          ctx.font = Math.round(11 * devicePixelRatio) + "px system-ui, sans-serif";
          ctx.textBaseline = "top";
          for (var i = 0; i < bands.length; i++) {
            var b = bands[i];
            var x0 = Math.max(u.valToPos(b.from, "x", true), u.bbox.left);
            var x1 = Math.min(u.valToPos(b.to, "x", true), u.bbox.left + u.bbox.width);
            if (x1 <= x0) continue;
            if (i % 2 === 1) {
              ctx.fillStyle = "rgba(0,0,0,0.05)";
              ctx.fillRect(x0, u.bbox.top, Math.max(1, x1 - x0), u.bbox.height);
            }
            ctx.fillStyle = "#555";
            if (ctx.measureText(b.name).width < x1 - x0 - 2) ctx.fillText(b.name, x0 + 2, u.bbox.top + 2);
          }
          ctx.restore();
        }]
      }
    };
  }

  // swatch is a short line in a series' colour and dash pattern.
  function swatch(color, dash) {
    var svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("width", "30");
    svg.setAttribute("height", "8");
    var line = document.createElementNS(SVG, "line");
    line.setAttribute("x1", "0"); line.setAttribute("y1", "4");
    line.setAttribute("x2", "30"); line.setAttribute("y2", "4");
    line.setAttribute("stroke", color);
    line.setAttribute("stroke-width", "2");
    if (dash && dash.length) line.setAttribute("stroke-dasharray", dash.join(" "));
    svg.appendChild(line);
    return svg;
  }

  // legend builds the chart's legend under it and returns the value cells to update.
  function legend(el, c) {
    var box = document.createElement("div");
    box.className = "legend-box";
    var values = [];
    c.series.forEach(function (s) {
      var k = document.createElement("span");
      k.className = "k";
      k.appendChild(swatch(data.runs[s.run].color, s.dash));
      // on the throughput chart, the unit tells which axis a line is read on
      var unit = c.kind === "throughput" && Object.keys(c.scales).length > 1 ? " (" + c.scales[s.scale].label + ")" : "";
      if (c.kind === "vital") k.title = s.label; // a run's colour: the page's key names it
      else k.appendChild(document.createTextNode(s.label + unit));
      var v = document.createElement("span");
      v.className = "v";
      k.appendChild(v);
      values.push(v);
      box.appendChild(k);
    });
    el.appendChild(box);
    return values;
  }

  function chartWidth(el) {
    return Math.max(240, Math.floor(el.getBoundingClientRect().width) || 600);
  }

  function build(c, into) {
    var el = into || document.getElementById(c.id);
    if (!el) return;
    var width = chartWidth(el);
    var narrow = width < 480;
    var scales = { x: { time: false } };
    var axes = [];
    if (c.kind === "percentile") {
      scales.x.range = [0, 5];
      var ticks = narrow ? pctTicks.filter(function (t) { return t !== 4; }) : pctTicks; // room for each label
      axes.push({ label: c.xLabel, splits: function () { return ticks; }, values: function (u, vals) { return vals.map(pctLabel); } });
    } else {
      var x = { label: c.xLabel, values: function (u, vals) { return vals.map(function (v) { return v == null ? "" : String(+v.toPrecision(4)); }); } };
      if (!c.xLabel) { delete x.label; x.size = 24; } // a vital sign's: the step's other charts name the axis
      axes.push(x);
    }
    Object.keys(c.scales).forEach(function (name) {
      var sc = c.scales[name];
      scales[name] = sc.log ? { distr: 3, log: 10 } : { auto: true, range: function (u, min, max) { return [0, max > 0 ? max * 1.05 : 1]; } };
      var axis = { scale: name, side: sc.side, label: narrow ? "" : sc.label, size: narrow ? 44 : 60, grid: { show: sc.side === 3 },
        values: function (u, vals) { return vals.map(fmt); } };
      if (sc.log) axis.splits = logSplits;
      axes.push(axis);
    });
    var series = [{}];
    c.series.forEach(function (s, i) {
      var n = 0;
      c.y[i].forEach(function (v) { if (v != null) n++; });
      series.push({ label: s.label, scale: s.scale, stroke: data.runs[s.run].color, width: 1.5, dash: s.dash || undefined,
        spanGaps: c.kind !== "overview", points: { show: n <= 40, size: 5 } });
    });
    var values;
    var small = c.kind === "vital";
    var timed = c.xRange && c.kind !== "overview" && c.kind !== "percentile";
    var opts = {
      title: c.title, width: width, height: small ? (narrow ? 150 : 170) : narrow ? 200 : 230, scales: scales, axes: axes, series: series,
      legend: { show: false },
      cursor: timed ? { drag: { x: true, y: false }, sync: { key: "t-" + c.step }, bind: { dblclick: function () { return function () { whole(c); return null; }; } } }
        : { drag: { x: true, y: false } },
      plugins: c.kind === "overview" ? [bandPlugin(c.bands)] : c.shade ? [shadePlugin(c.shade)] : [],
      hooks: {
        setScale: [function (u, key) { if (key === "x" && timed) follow(u, c.step); }],
        setCursor: [function (u) {
          var idx = u.cursor.idx;
          values.forEach(function (v, i) {
            var y = idx == null ? null : u.data[i + 1][idx];
            v.textContent = y == null ? "" : fmt(y);
          });
        }]
      }
    };
    var plot = new uPlot(opts, [c.x].concat(c.y), el);
    values = legend(el, c);
    if (c.doc) el.title = c.title + ": " + c.doc;
    if (!into) el.dbperfPlot = plot; // for tests: the plot's scales and data
    plots.push({ plot: plot, el: el, step: timed ? c.step : null });
    if (timed) plot.setScale("x", { min: c.xRange[0], max: c.xRange[1] });
    if (!into) created.push({ id: c.id, step: c.step, kind: c.kind, title: c.title, series: c.series.map(function (s) { return s.label; }) });
    return plot;
  }

  // A step's charts over time share one axis: zooming one (a drag) zooms the others to the
  // same seconds, a double-click resets them all to the step's whole length.
  var following = false;
  function whole(c) {
    plots.forEach(function (p) {
      if (p.step === c.step && p.plot.root.isConnected) p.plot.setScale("x", { min: c.xRange[0], max: c.xRange[1] });
    });
  }
  function follow(u, step) {
    if (following) return;
    following = true;
    var min = u.scales.x.min, max = u.scales.x.max;
    plots.forEach(function (p) {
      if (p.plot === u || p.step !== step || !p.plot.root.isConnected) return;
      if (p.plot.scales.x.min !== min || p.plot.scales.x.max !== max) {
        p.plot.setScale("x", { min: min, max: max });
      }
    });
    following = false;
  }

  data.charts.forEach(function (c) { build(c); });

  // decode reads html_picker.go's encoding: comma-separated values, "" unknown, "v*n" repeats.
  function decode(s) {
    var out = [];
    if (s === "") return out;
    s.split(",").forEach(function (tok) {
      var star = tok.indexOf("*"), n = 1;
      if (star >= 0) { n = +tok.slice(star + 1); tok = tok.slice(0, star); }
      var v = tok === "" ? null : +tok;
      for (var i = 0; i < n; i++) out.push(v);
    });
    return out;
  }

  // undelta adds up differences; unknowns stay unknown and are skipped.
  function undelta(v) {
    var prev = null;
    return v.map(function (d) {
      if (d == null) return null;
      prev = prev == null ? d : prev + d;
      return prev;
    });
  }

  // pickerSeries is a run's counter per interval: [x, y], per second or per op.
  function pickerSeries(r, name, perOp) {
    var enc = r.c[name];
    if (!enc) return null;
    var kind = enc.charAt(0), vals = decode(enc.slice(2));
    if (kind === "d") vals = undelta(vals);
    var t = undelta(decode(r.t)).map(function (ms) { return ms / 1000; });
    var ops = decode(r.ops);
    var x = [], y = [];
    for (var i = 0; i < vals.length && i + 1 < t.length; i++) {
      var v = vals[i];
      if (v != null && kind === "c") {
        if (perOp) v = ops[i] ? v / ops[i] : null;
        else v = t[i + 1] > t[i] ? v / (t[i + 1] - t[i]) : null;
      }
      x.push(t[i + 1]);
      y.push(v);
    }
    return { x: x, y: y, gauge: kind !== "c" };
  }

  // Each step's counter picker: a search box over every counter that changed in the step,
  // drawn per second or per op on the step's time axis, its stalls shaded.
  function picker(p) {
    var box = document.getElementById(p.id);
    if (!box) return;
    var input = box.querySelector("input[type=search]"), chartEl = box.querySelector(".pick-chart");
    var note = box.querySelector(".pick-note"), list = document.getElementById(p.id + "-names");
    var names = {};
    p.runs.forEach(function (r) { Object.keys(r.c).forEach(function (n) { names[n] = true; }); });
    var sorted = Object.keys(names).sort();
    sorted.forEach(function (n) { var o = document.createElement("option"); o.value = n; list.appendChild(o); });
    input.placeholder = "type one of " + sorted.length + " counters' names";
    var plot = null;
    function draw() {
      var name = input.value.trim();
      if (!names[name]) { note.textContent = name ? "no counter " + name + " changed in this step" : ""; return; }
      var perOp = box.querySelector("input[value=op]").checked;
      var xs = {}, per = [], gauge = false;
      p.runs.forEach(function (r, i) {
        var s = pickerSeries(r, name, perOp);
        if (!s) return;
        gauge = gauge || s.gauge;
        var m = {};
        s.x.forEach(function (x, j) { xs[x] = true; m[x] = s.y[j]; });
        per.push({ run: r.run, m: m, main: p.main[i] });
      });
      var x = Object.keys(xs).map(Number).sort(function (a, b) { return a - b; });
      var what = gauge ? "value (a level, not a total)" : perOp ? "per op (" + per.map(function (s) { return s.main; }).filter(function (v, i, a) { return a.indexOf(v) === i; }).join(", ") + ")" : "per second";
      var c = { id: p.id + "-chart", step: p.step, kind: "counter", title: p.step + ": " + name + " " + what,
        xLabel: "seconds since the step started", scales: { v: { label: gauge ? "value" : perOp ? "per op" : "per second", side: 3 } }, shade: p.shade, xRange: p.xRange,
        series: per.map(function (s) { return { label: data.runs[s.run].name + " " + name, what: name, run: s.run, scale: "v" }; }),
        x: x, y: per.map(function (s) { return x.map(function (v) { return s.m[v] == null ? null : s.m[v]; }); }) };
      if (plot) { plot.destroy(); }
      chartEl.textContent = "";
      note.textContent = gauge && perOp ? "a gauge has no rate: its value is drawn" : "";
      plot = build(c, chartEl);
      box.dbperfPlot = plot; // for tests: the values drawn
      box.setAttribute("data-drawn", name + (perOp && !gauge ? " per op" : gauge ? " value" : " per second"));
    }
    if (p.default) { input.value = p.default; draw(); }
    input.addEventListener("change", draw);
    input.addEventListener("input", function () { if (names[input.value.trim()]) draw(); });
    box.querySelectorAll("input[type=radio]").forEach(function (r) { r.addEventListener("change", draw); });
  }
  (data.pickers || []).forEach(picker);

  // Charts follow their box's width (a rotated phone, a resized window, a window sized after
  // the page was first laid out): when the body's size changes, on the next frame.
  function fit() {
    plots.forEach(function (p) {
      if (!p.el.isConnected || !p.plot.root.isConnected) return;
      var w = chartWidth(p.el);
      if (Math.abs(w - p.plot.width) > 4) p.plot.setSize({ width: w, height: p.plot.height });
    });
  }
  var pending = 0;
  function refit() { cancelAnimationFrame(pending); pending = requestAnimationFrame(fit); }
  if (window.ResizeObserver) new ResizeObserver(refit).observe(document.body);
  window.addEventListener("resize", refit);

  // A link to a folded step unfolds it.
  function openTarget() {
    if (location.hash.length < 2) return;
    var target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (!target) return;
    if (target.tagName === "DETAILS") target.open = true;
    target.scrollIntoView();
  }
  window.addEventListener("hashchange", openTarget);
  window.dbperfCharts = created;
  openTarget(); // the charts moved the page: go back to the anchor the address names
})();
