/* BloomBench leaderboard: draws the Plotly figures embedded as JSON, builds the overview's
 * radars from their compact data, and drives the results table (sorting, filters, URL
 * state) and the compare page. Vanilla JS, no network: every figure and number is already
 * in the page. User-supplied strings only ever reach the DOM through textContent, never
 * innerHTML, and reach Plotly (which reads a subset of HTML in names) escaped. */
(function () {
  "use strict";

  var PLOT_CONFIG = { responsive: true, displaylogo: false, modeBarButtonsToRemove: ["lasso2d", "select2d"] };

  function readJSON(id) {
    var el = document.getElementById(id);
    return el ? JSON.parse(el.textContent) : null;
  }

  function plot(el, data, layout) {
    if (!window.Plotly) {
      el.textContent = "Plotly did not load (assets/plotly-custom.min.js).";
      return;
    }
    el.setAttribute("dir", "ltr");
    window.Plotly.newPlot(el, data, layout, PLOT_CONFIG);
  }

  function drawFigures() {
    var nodes = document.querySelectorAll("[data-figure]");
    for (var i = 0; i < nodes.length; i++) {
      var fig = readJSON(nodes[i].getAttribute("data-figure"));
      if (fig) plot(nodes[i], fig.data || [], fig.layout || {});
    }
  }

  /* Plotly reads a subset of HTML in names and labels: escape user-supplied text. */
  function plotlyText(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }

  function copy(value) {
    return JSON.parse(JSON.stringify(value));
  }

  /* One radar trace in the shared style (figures.RADAR_TRACE): the polygon closes on the first
   * level; the hover shows the score and its 95% interval, or N/A (a gap, never 0). */
  function radarTrace(style, name, scores, lo, hi, theta, na, visible) {
    var text = scores.map(function (v, j) {
      var s = v === null ? na : v.toFixed(3);
      if (lo && hi && lo[j] !== null && hi[j] !== null) s += " [" + lo[j].toFixed(3) + ", " + hi[j].toFixed(3) + "]";
      return s;
    });
    var trace = copy(style);
    trace.name = plotlyText(name);
    trace.r = scores.concat([scores[0]]);
    trace.theta = theta.concat([theta[0]]);
    trace.text = text.concat([text[0]]);
    trace.visible = visible ? true : "legendonly";
    return trace;
  }

  /* The overview's radars: one trace per row of compact data, the first max_visible shown. */
  function drawRadars() {
    var d = readJSON("radar-data");
    if (!d) return;
    var nodes = document.querySelectorAll("[data-radar]");
    for (var i = 0; i < nodes.length; i++) {
      var chart = d.charts[Number(nodes[i].getAttribute("data-radar"))];
      var traces = chart.rows.map(function (row, k) {
        return radarTrace(d.trace, d.names[row[0]], row[1], row[2], row[3], d.theta, d.na, k < d.max_visible);
      });
      plot(nodes[i], traces, chart.layout);
    }
  }

  function setURL(params) {
    var query = params.toString();
    var url = location.pathname + (query ? "?" + query : "") + location.hash;
    try {
      history.replaceState(null, "", url);
    } catch (e) {
      /* some file:// setups refuse; the view still works */
    }
    var sw = document.querySelector("a.lang-switch");
    if (sw) {
      var base = sw.getAttribute("href").split("?")[0];
      sw.setAttribute("href", base + (query ? "?" + query : ""));
    }
  }

  /* ------------------------------------------------------------ results table */

  var FILTERS = ["lang", "method", "weights", "status", "org", "size_min", "size_max", "q"];

  function ResultsTable(table, form) {
    this.table = table;
    this.form = form;
    this.tbody = table.tBodies[0];
    this.rows = Array.prototype.slice.call(this.tbody.rows);
    this.rows.forEach(function (row, i) {
      row._order = i;
      row._name = row.querySelector("th").textContent.toLocaleLowerCase(); // searched
      row._org = row.querySelector("td.t").textContent; // the organisation: the first text cell
    });
    this.headers = Array.prototype.slice.call(table.tHead.rows[0].cells);
    this.sortKey = "";
    this.sortDir = "";
    var self = this;
    this.headers.forEach(function (th, col) {
      var button = th.querySelector("button[data-sort]");
      if (!button) return;
      button.addEventListener("click", function () {
        var key = button.getAttribute("data-sort");
        var numeric = button.getAttribute("data-type") === "num";
        var dir = key === self.sortKey ? (self.sortDir === "asc" ? "desc" : "asc") : numeric ? "desc" : "asc";
        self.sort(key, dir);
        self.save();
      });
      th._col = col;
    });
    form.addEventListener("input", function () {
      self.filter();
      self.save();
    });
    form.addEventListener("change", function () {
      self.filter();
      self.save();
    });
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
    });
    form.addEventListener("reset", function () {
      setTimeout(function () {
        self.filter();
        self.save();
      }, 0);
    });
    this.load();
  }

  ResultsTable.prototype.control = function (name) {
    return this.form.elements.namedItem(name);
  };

  ResultsTable.prototype.load = function () {
    var params = new URLSearchParams(location.search);
    var self = this;
    FILTERS.forEach(function (name) {
      var el = self.control(name);
      var value = params.get(name);
      if (!el || value === null) return;
      if (el.tagName === "SELECT") {
        var ok = Array.prototype.some.call(el.options, function (o) {
          return o.value === value;
        });
        if (ok) el.value = value;
      } else {
        el.value = value;
      }
    });
    this.filter();
    var key = params.get("sort");
    if (key && this.button(key)) this.sort(key, params.get("dir") === "asc" ? "asc" : "desc");
  };

  ResultsTable.prototype.save = function () {
    var params = new URLSearchParams(location.search);
    var self = this;
    FILTERS.forEach(function (name) {
      var el = self.control(name);
      var value = el ? String(el.value).trim() : "";
      if (value) params.set(name, value);
      else params.delete(name);
    });
    if (this.sortKey) {
      params.set("sort", this.sortKey);
      params.set("dir", this.sortDir);
    } else {
      params.delete("sort");
      params.delete("dir");
    }
    setURL(params);
  };

  ResultsTable.prototype.button = function (key) {
    return this.table.tHead.querySelector('button[data-sort="' + key.replace(/[^a-z0-9_-]/gi, "") + '"]');
  };

  ResultsTable.prototype.filter = function () {
    var get = function (name) {
      var el = this.control(name);
      return el ? String(el.value).trim() : "";
    }.bind(this);
    var lang = get("lang"),
      method = get("method"),
      weights = get("weights"),
      status = get("status"),
      org = get("org");
    var sizeMin = parseFloat(get("size_min")),
      sizeMax = parseFloat(get("size_max"));
    var words = get("q").toLocaleLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0;
    this.rows.forEach(function (row) {
      var d = row.dataset;
      var size = parseFloat(d.size);
      var ok =
        (!lang || d.lang === lang) &&
        (!method || d.method === method) &&
        (!weights || d.weights === weights) &&
        (!status || d.status === status) &&
        (!org || row._org === org) &&
        (isNaN(sizeMin) || (!isNaN(size) && size >= sizeMin)) &&
        (isNaN(sizeMax) || (!isNaN(size) && size <= sizeMax)) &&
        words.every(function (w) {
          return row._name.indexOf(w) !== -1 || row._org.toLocaleLowerCase().indexOf(w) !== -1;
        });
      row.hidden = !ok;
      if (ok) shown++;
    });
    var count = document.getElementById("row-count-n");
    if (count) count.textContent = String(shown);
  };

  ResultsTable.prototype.sort = function (key, dir) {
    var button = this.button(key);
    if (!button) return;
    var th = button.closest("th");
    var col = th._col;
    var numeric = button.getAttribute("data-type") === "num";
    var sign = dir === "asc" ? 1 : -1;
    var value = function (row) {
      var text = row.cells[col].textContent.trim();
      if (!numeric) return text.toLocaleLowerCase();
      var v = parseFloat(text);
      return isNaN(v) ? null : v;
    };
    var keyed = this.rows.map(function (row) {
      return { row: row, v: value(row) };
    });
    keyed.sort(function (a, b) {
      if (a.v === null || a.v === "") return b.v === null || b.v === "" ? a.row._order - b.row._order : 1;
      if (b.v === null || b.v === "") return -1; // N/A always last
      var c = numeric ? a.v - b.v : a.v.localeCompare(b.v);
      return c !== 0 ? sign * c : a.row._order - b.row._order;
    });
    var frag = document.createDocumentFragment();
    keyed.forEach(function (k) {
      frag.appendChild(k.row);
    });
    this.tbody.appendChild(frag);
    this.headers.forEach(function (h) {
      if (h.querySelector("button[data-sort]")) h.setAttribute("aria-sort", "none");
    });
    th.setAttribute("aria-sort", dir === "asc" ? "ascending" : "descending");
    this.sortKey = key;
    this.sortDir = dir;
  };

  /* ------------------------------------------------------------ compare page */

  function el(tag, text, attrs) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = text;
    if (attrs)
      Object.keys(attrs).forEach(function (k) {
        node.setAttribute(k, attrs[k]);
      });
    return node;
  }

  function fmt(v, signed) {
    if (v === null || v === undefined) return null;
    return (signed && v > 0 ? "+" : "") + v.toFixed(3);
  }

  function fillTable(table, head, rows, na) {
    while (table.firstChild) table.removeChild(table.firstChild);
    var thead = el("thead"),
      tr = el("tr");
    head.forEach(function (h) {
      tr.appendChild(el("th", h, { scope: "col" }));
    });
    thead.appendChild(tr);
    table.appendChild(thead);
    var tbody = el("tbody");
    rows.forEach(function (cells) {
      var r = el("tr");
      cells.forEach(function (c, i) {
        var cell = el(i === 0 ? "th" : "td", c === null ? na : c, i === 0 ? { scope: "row" } : { class: "num" });
        r.appendChild(cell);
      });
      tbody.appendChild(r);
    });
    table.appendChild(tbody);
  }

  function ComparePage(data, form) {
    this.data = data;
    this.form = form;
    this.byId = {};
    var self = this;
    data.models.forEach(function (m) {
      self.byId[m.id] = m;
    });
    this.selects = Array.prototype.slice.call(form.querySelectorAll("select[data-slot]"));
    var params = new URLSearchParams(location.search);
    var picked = params.getAll("m").filter(function (id) {
      return self.byId[id];
    });
    if (!params.has("m")) picked = data.default.slice();
    this.selects.forEach(function (s, i) {
      s.value = picked[i] || "";
    });
    ["lang", "method"].forEach(function (name) {
      var v = params.get(name);
      var sel = form.elements.namedItem(name);
      if (v && sel && Array.prototype.some.call(sel.options, function (o) { return o.value === v; })) sel.value = v;
    });
    form.addEventListener("change", function () {
      self.save();
      self.draw();
    });
    this.draw();
  }

  ComparePage.prototype.picked = function () {
    var seen = {};
    return this.selects
      .map(function (s) {
        return s.value;
      })
      .filter(function (id) {
        if (!id || seen[id]) return false;
        seen[id] = true;
        return true;
      });
  };

  ComparePage.prototype.save = function () {
    var params = new URLSearchParams();
    this.picked().forEach(function (id) {
      params.append("m", id);
    });
    params.set("lang", this.form.elements.namedItem("lang").value);
    params.set("method", this.form.elements.namedItem("method").value);
    setURL(params);
  };

  ComparePage.prototype.draw = function () {
    var d = this.data,
      text = d.text,
      self = this;
    var lang = this.form.elements.namedItem("lang").value;
    var method = this.form.elements.namedItem("method").value;
    var ids = this.picked();
    var models = ids.map(function (id) {
      return self.byId[id];
    });
    var status = document.getElementById("compare-status");
    status.textContent = ids.length < 2 ? text.pick : "";

    var traces = [],
      levelRows = [];
    models.forEach(function (m) {
      var values = (m.levels[lang] || {})[method];
      levelRows.push([m.name].concat(values ? values.map(function (v) { return fmt(v); }) : d.levels.map(function () { return null; })));
      if (values) traces.push(radarTrace(d.trace, m.name, values, null, null, d.levels, text.na, true));
    });
    plot(document.getElementById("compare-radar"), traces, copy(d.radar_layout));
    fillTable(document.getElementById("compare-levels-table"), [""].concat(d.levels), levelRows, text.na);

    var leavesDiv = document.getElementById("compare-leaves");
    var ref = models[0];
    var refLeaves = ref ? (ref.leaves[lang] || {})[method] : null;
    var bars = [],
      head = [""],
      rows = d.leaves.map(function (label) {
        return [label];
      });
    if (ref) {
      head.push(ref.name);
      rows.forEach(function (row, i) {
        row.push(refLeaves ? fmt(refLeaves[i]) : null);
      });
    }
    models.slice(1).forEach(function (m) {
      var values = (m.leaves[lang] || {})[method];
      head.push(m.name + " − " + ref.name);
      var diffs = d.leaves.map(function (_, i) {
        if (!values || !refLeaves || values[i] === null || refLeaves[i] === null) return null;
        return Math.round((values[i] - refLeaves[i]) * 10000) / 10000;
      });
      rows.forEach(function (row, i) {
        row.push(fmt(diffs[i], true));
      });
      if (values && refLeaves) {
        bars.push({ type: "bar", orientation: "h", name: plotlyText(m.name), x: diffs, y: d.leaves.map(plotlyText), hovertemplate: "%{y}: %{x:+.3f}<extra>%{fullData.name}</extra>" });
      }
    });
    var layout = {
      template: "none",
      barmode: "group",
      height: Math.max(300, 18 * d.leaves.length + 120),
      margin: { l: 10, r: 10, t: 40, b: 40 },
      xaxis: { title: { text: text.accuracy + " (Δ)" }, zeroline: true, zerolinecolor: "#555", gridcolor: "#e3e3e3", side: "top" },
      yaxis: { autorange: "reversed", automargin: true, tickfont: { size: 10 } },
      legend: { orientation: "h", y: 1.02, yanchor: "bottom", x: 0 },
      font: d.radar_layout.font,
      colorway: (d.radar_layout.colorway || []).slice(1),
    };
    if (!bars.length) {
      layout = {
        template: "none",
        height: 200,
        xaxis: { visible: false },
        yaxis: { visible: false },
        annotations: [{ text: ids.length < 2 ? text.pick : text.no_leaves, showarrow: false, x: 0.5, y: 0.5, xref: "paper", yref: "paper", font: { size: 15 } }],
      };
    }
    plot(leavesDiv, bars, layout);
    fillTable(document.getElementById("compare-leaves-table"), head, ref ? rows : [], text.na);
  };

  /* ------------------------------------------------------------ start */

  function start() {
    drawFigures();
    drawRadars();
    var table = document.getElementById("results");
    var form = document.getElementById("filters");
    if (table && form) new ResultsTable(table, form);
    var compare = readJSON("compare-data");
    var compareForm = document.getElementById("compare-form");
    if (compare && compareForm) new ComparePage(compare, compareForm);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
