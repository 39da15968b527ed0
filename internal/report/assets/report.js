// Builds the report's charts from the JSON data block, with uPlot (inlined). Exposes
// window.dbperfCharts = [{id, step, kind, title, series}] once every chart exists.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("dbperf-data").textContent);
  var created = [];

  function hexAlpha(hex, a) {
    var n = parseInt(hex.slice(1), 16);
    return "rgba(" + ((n >> 16) & 255) + "," + ((n >> 8) & 255) + "," + (n & 255) + "," + a + ")";
  }

  function fmt(v) {
    if (v == null) return "-";
    var a = Math.abs(v);
    if (a >= 1e6) return (v / 1e6).toFixed(1) + "M";
    if (a >= 1e4) return (v / 1e3).toFixed(0) + "k";
    if (a >= 1e3) return (v / 1e3).toFixed(1) + "k";
    if (a >= 10 || a === 0) return v.toFixed(0);
    return v.toPrecision(2);
  }

  // percentile axis: x = -log10(1 - p)
  var pctTicks = [Math.log10(2), 1, 2, 3, 4, 5];
  function pctLabel(x) {
    var p = 100 * (1 - Math.pow(10, -x));
    if (x < 0.01) return "0%";
    var digits = Math.max(0, Math.round(x) - 2);
    return p.toFixed(digits) + "%";
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

  function build(c) {
    var el = document.getElementById(c.id);
    if (!el) return;
    var width = Math.max(400, Math.floor(el.getBoundingClientRect().width) || 600);
    var scales = { x: { time: false } };
    var axes = [];
    if (c.kind === "percentile") {
      scales.x.range = [0, 5];
      axes.push({ label: c.xLabel, splits: function () { return pctTicks; }, values: function (u, vals) { return vals.map(pctLabel); } });
    } else {
      axes.push({ label: c.xLabel, values: function (u, vals) { return vals.map(function (v) { return +v.toPrecision(4); }); } });
    }
    Object.keys(c.scales).forEach(function (name) {
      var sc = c.scales[name];
      scales[name] = sc.log ? { distr: 3, log: 10 } : { auto: true, range: function (u, min, max) { return [0, max > 0 ? max * 1.05 : 1]; } };
      axes.push({ scale: name, side: sc.side, label: sc.label, size: 60, grid: { show: sc.side === 3 },
        values: function (u, vals) { return vals.map(fmt); } });
    });
    var series = [{ label: c.kind === "percentile" ? "percentile" : "t_sec",
      value: c.kind === "percentile" ? function (u, v) { return v == null ? "-" : pctLabel(v); } : function (u, v) { return v == null ? "-" : v.toFixed(3); } }];
    c.series.forEach(function (s, i) {
      var n = 0;
      c.y[i].forEach(function (v) { if (v != null) n++; });
      series.push({ label: s.label, scale: s.scale, stroke: data.runs[s.run].color, width: 1.5, dash: s.dash || undefined,
        spanGaps: true, points: { show: n <= 40, size: 5 }, value: function (u, v) { return fmt(v); } });
    });
    var opts = {
      title: c.title, width: width, height: 260, scales: scales, axes: axes, series: series,
      cursor: { drag: { x: true, y: false } },
      plugins: c.kind === "throughput" ? [shadePlugin(c.shade)] : []
    };
    new uPlot(opts, [c.x].concat(c.y), el);
    created.push({ id: c.id, step: c.step, kind: c.kind, title: c.title, series: c.series.map(function (s) { return s.label; }) });
  }

  data.charts.forEach(build);
  window.dbperfCharts = created;
  // the charts moved the page: go back to the anchor the address names, if any
  if (location.hash.length > 1) {
    var target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (target) target.scrollIntoView();
  }
})();
