/// `GET /dashboard/metrics.js`: a parser of the Prometheus text format (0.0.4) and the live tiles.
///
/// A cell's `data-labels` is a comma-separated list of conditions on a sample's labels: `key=value`,
/// `key=a|b` (any of), `key!=value`. The cell shows the sum of the samples of `data-metric` that meet all of
/// them; `—` when the scrape has no sample of that metric at all (the metric does not exist in this server).
extension DashboardAssets {
    static let metricsScript = #"""
"use strict";
(function () {
  const NONE = "\u2014";

  /** Parses the text format into Map(name -> [{labels, value}]). Comments and TYPE lines are skipped. */
  function parse(text) {
    const samples = new Map();
    for (const raw of text.split("\n")) {
      const line = raw.trim();
      if (line === "" || line[0] === "#") continue;
      let i = 0;
      while (i < line.length && /[A-Za-z0-9_:]/.test(line[i])) i++;
      const name = line.slice(0, i);
      const labels = {};
      if (line[i] === "{") {
        i++;
        while (i < line.length && line[i] !== "}") {
          let k = i;
          while (k < line.length && line[k] !== "=") k++;
          const key = line.slice(i, k).trim();
          i = k + 2; // past ="
          let value = "";
          while (i < line.length && line[i] !== "\"") {
            if (line[i] === "\\" && i + 1 < line.length) {
              const next = line[i + 1];
              value += next === "n" ? "\n" : next;
              i += 2;
            } else {
              value += line[i++];
            }
          }
          i++; // past the closing quote
          labels[key] = value;
          while (i < line.length && (line[i] === "," || line[i] === " ")) i++;
        }
        i++; // past }
      }
      const fields = line.slice(i).trim().split(/\s+/);
      if (name === "" || fields.length === 0) continue;
      const value = number(fields[0]);
      if (!samples.has(name)) samples.set(name, []);
      samples.get(name).push({ labels: labels, value: value });
    }
    return samples;
  }

  function number(text) {
    if (text === "+Inf") return Infinity;
    if (text === "-Inf") return -Infinity;
    return Number(text);
  }

  /** "k=v,k=a|b,k!=v" -> [{key, values, negated}]. */
  function conditions(spec) {
    if (!spec) return [];
    return spec.split(",").filter(Boolean).map(function (part) {
      const negated = part.includes("!=");
      const [key, values] = part.split(negated ? "!=" : "=");
      return { key: key, values: values.split("|"), negated: negated };
    });
  }

  function matches(labels, conds) {
    return conds.every(function (c) {
      const has = c.values.includes(labels[c.key] === undefined ? "" : labels[c.key]);
      return c.negated ? !has : has;
    });
  }

  /** The sum of the matching samples; null when the metric has no sample at all. */
  function sum(samples, name, spec) {
    const list = samples.get(name);
    if (!list) return null;
    const conds = conditions(spec);
    return list.filter(function (s) { return matches(s.labels, conds); }).reduce(function (a, s) { return a + s.value; }, 0);
  }

  function format(value) {
    if (value === null || value === undefined || Number.isNaN(value)) return NONE;
    if (Number.isInteger(value)) return String(value);
    return String(Math.round(value * 1000) / 1000);
  }

  function percent(part, whole) {
    if (part === null || whole === null) return NONE;
    if (whole === 0) return "0%";
    return (Math.round(1000 * part / whole) / 10) + "%";
  }

  /** Rows of a table body, one per value of `data-by` in `data-family`, each cell a summing cell. */
  function fillFamilyRows(body, samples) {
    const family = body.dataset.family, by = body.dataset.by;
    const list = samples.get(family) || [];
    const keys = Array.from(new Set(list.map(function (s) { return s.labels[by] || ""; }))).sort();
    body.replaceChildren();
    if (!samples.has(family)) {
      const row = body.insertRow();
      const name = row.insertCell(); name.textContent = "(metric absent)";
      const cell = row.insertCell(); cell.className = "v"; cell.dataset.metric = family; cell.dataset.labels = ""; cell.textContent = NONE;
      return;
    }
    for (const key of keys) {
      const row = body.insertRow();
      const name = row.insertCell(); name.textContent = key;
      const cell = row.insertCell();
      cell.className = "v";
      cell.dataset.metric = family;
      cell.dataset.labels = by + "=" + key;
      if (body.dataset.volatile !== undefined || (by === "route" && (key === "/metrics" || key === "/admin/metrics"))) {
        cell.dataset.volatile = "";
      }
    }
  }

  function drawTimerBars(svg, samples) {
    const horizons = ["le_1m", "le_10m", "le_1h", "le_1d", "gt_1d"];
    const names = ["1m", "10m", "1h", "1d", ">1d"];
    const values = horizons.map(function (h) { return sum(samples, "tandem_timers_pending", "horizon=" + h); });
    const max = Math.max(1, ...values.map(function (v) { return v || 0; }));
    const ns = "http://www.w3.org/2000/svg";
    svg.replaceChildren();
    values.forEach(function (v, i) {
      const height = v === null ? 0 : Math.round(80 * v / max);
      const bar = document.createElementNS(ns, "rect");
      bar.setAttribute("x", String(10 + i * 58)); bar.setAttribute("y", String(85 - height));
      bar.setAttribute("width", "40"); bar.setAttribute("height", String(height));
      bar.dataset.horizon = horizons[i];
      svg.appendChild(bar);
      const label = document.createElementNS(ns, "text");
      label.setAttribute("x", String(30 + i * 58)); label.setAttribute("y", "100"); label.setAttribute("text-anchor", "middle");
      label.textContent = names[i] + " " + format(v);
      svg.appendChild(label);
    });
  }

  let previous = null; // {samples, at}

  /** Fills every tile from one scrape's text; `at` in milliseconds. */
  function render(text, at) {
    const samples = parse(text);
    document.querySelectorAll("tbody[data-family]").forEach(function (body) { fillFamilyRows(body, samples); });
    document.querySelectorAll("[data-metric]").forEach(function (cell) {
      cell.textContent = format(sum(samples, cell.dataset.metric, cell.dataset.labels));
    });
    document.querySelectorAll("[data-ratio]").forEach(function (cell) {
      cell.textContent = percent(sum(samples, cell.dataset.ratio, cell.dataset.labels), sum(samples, cell.dataset.of, cell.dataset.ofLabels));
    });
    document.querySelectorAll("[data-rate]").forEach(function (cell) {
      const now = sum(samples, cell.dataset.rate, cell.dataset.labels);
      const before = previous ? sum(previous.samples, cell.dataset.rate, cell.dataset.labels) : null;
      cell.textContent = now === null || before === null || at <= previous.at ? NONE : format(Math.round(10000 * (now - before) / (at - previous.at)) / 10);
    });
    const bars = document.getElementById("timer-bars");
    if (bars) drawTimerBars(bars, samples);
    previous = { samples: samples, at: at };
  }

  window.TandemMetrics = { parse: parse, sum: sum, render: render, format: format, NONE: NONE };
})();
"""#
}
