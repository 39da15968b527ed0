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
      k.appendChild(document.createTextNode(s.label + unit));
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

  function build(c) {
    var el = document.getElementById(c.id);
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
      axes.push({ label: c.xLabel, values: function (u, vals) { return vals.map(function (v) { return v == null ? "" : String(+v.toPrecision(4)); }); } });
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
        spanGaps: true, points: { show: n <= 40, size: 5 } });
    });
    var values;
    var opts = {
      title: c.title, width: width, height: narrow ? 200 : 230, scales: scales, axes: axes, series: series,
      legend: { show: false },
      cursor: { drag: { x: true, y: false } },
      plugins: c.kind === "throughput" || c.kind === "counters" ? [shadePlugin(c.shade)] : [],
      hooks: {
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
    plots.push({ plot: plot, el: el });
    created.push({ id: c.id, step: c.step, kind: c.kind, title: c.title, series: c.series.map(function (s) { return s.label; }) });
  }

  data.charts.forEach(build);

  // Charts follow their box's width (a rotated phone, a resized window).
  var pending = 0;
  window.addEventListener("resize", function () {
    clearTimeout(pending);
    pending = setTimeout(function () {
      plots.forEach(function (p) {
        var w = chartWidth(p.el);
        if (Math.abs(w - p.plot.width) > 4) p.plot.setSize({ width: w, height: p.plot.height });
      });
    }, 100);
  });

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
