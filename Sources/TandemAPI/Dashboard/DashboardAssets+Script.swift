/// `GET /dashboard/dashboard.js`: the token, the two views (`#live`, `#messages`), the scrape loop and the
/// message search. Every text from the server is set as text (`textContent`), never parsed as HTML.
extension DashboardAssets {
    static let script = #"""
"use strict";
(function () {
  const KEY = "tandem.adminToken";
  const REFRESH_MS = 3000;
  let timer = null;

  const $ = function (id) { return document.getElementById(id); };
  const token = function () { return sessionStorage.getItem(KEY); };

  function status(text) { $("status").textContent = text; }

  /** GET with the admin token; a 401 or 403 sends the user back to the token form. */
  async function get(path) {
    const response = await fetch(path, { headers: { "Authorization": "Bearer " + token() }, cache: "no-store" });
    if (response.status === 401 || response.status === 403) {
      const body = await response.json().catch(function () { return {}; });
      sessionStorage.removeItem(KEY);
      showLogin(body.error || ("refused: " + response.status));
      throw new Error("unauthorized");
    }
    return response;
  }

  function showLogin(error) {
    stop();
    $("login").hidden = false; $("live").hidden = true; $("messages").hidden = true; $("signout").hidden = true;
    $("login-error").textContent = error || "";
    $("token").focus();
  }

  function show() {
    if (!token()) { showLogin(""); return; }
    $("login").hidden = true; $("signout").hidden = false;
    const messages = location.hash.startsWith("#messages");
    $("live").hidden = messages; $("messages").hidden = !messages;
    $("nav-live").classList.toggle("current", !messages);
    $("nav-messages").classList.toggle("current", messages);
    if (messages) { stop(); searchFromHash(); } else { start(); }
  }

  function start() { if (timer === null) { scrape(); timer = setInterval(scrape, REFRESH_MS); } }
  function stop() { if (timer !== null) { clearInterval(timer); timer = null; } }

  async function scrape() {
    try {
      const response = await get("/admin/metrics");
      if (!response.ok) { status("metrics: HTTP " + response.status); return; }
      const text = await response.text();
      const at = Date.now();
      window.TandemMetrics.render(text, at);
      window.__tandemLastScrape = text;
      document.body.dataset.scrapes = String(Number(document.body.dataset.scrapes) + 1);
      status("updated " + new Date(at).toLocaleTimeString() + " · every " + REFRESH_MS / 1000 + " s");
    } catch (error) {
      if (error.message !== "unauthorized") status("metrics unavailable: " + error.message);
    }
  }

  function searchFromHash() {
    const match = /^#messages\/(id|reference|msisdn)\/(.+)$/.exec(location.hash);
    if (!match) return;
    $("search-by").value = match[1];
    $("search-value").value = decodeURIComponent(match[2]);
    search(match[1], decodeURIComponent(match[2]));
  }

  async function search(by, value) {
    const results = $("results");
    results.replaceChildren();
    $("search-summary").textContent = "searching…";
    let body;
    try {
      const response = await get("/admin/messages?" + by + "=" + encodeURIComponent(value));
      body = await response.json();
      if (!response.ok) { $("search-summary").textContent = body.error || ("HTTP " + response.status); return; }
    } catch (error) {
      if (error.message !== "unauthorized") $("search-summary").textContent = "search failed: " + error.message;
      return;
    }
    $("search-summary").textContent = body.messages.length + " message(s) for " + body.query.by + " " + body.query.value;
    for (const message of body.messages) results.appendChild(messageCard(message));
    document.body.dataset.searches = String(Number(document.body.dataset.searches || 0) + 1);
  }

  function text(tag, content, className) {
    const node = document.createElement(tag);
    node.textContent = content;
    if (className) node.className = className;
    return node;
  }

  function messageCard(message) {
    const card = document.createElement("section");
    card.className = "message";
    card.dataset.messageId = message.id;
    card.appendChild(text("h3", message.appMessageType + " message " + message.id));
    card.appendChild(text("p", "account " + message.account + " · from " + message.from + " · reference " + (message.reference || "none") +
      " · created " + message.createdAt + " · " + message.recipientCount + " recipient(s)" +
      (message.fallbackFor ? " · SMS for " + message.fallbackFor : ""), "meta"));
    for (const recipient of message.recipients) card.appendChild(recipientBlock(recipient));
    return card;
  }

  function recipientBlock(recipient) {
    const block = document.createElement("div");
    block.className = "recipient";
    block.dataset.to = recipient.to;
    block.appendChild(text("p", recipient.to + " · " + recipient.status + (recipient.channel ? " by " + recipient.channel : "") +
      (recipient.updateId !== null ? " · UpdateID " + recipient.updateId : ""), "meta"));
    block.appendChild(text("p", window.TandemTimeline.why(recipient), "why" + (recipient.fallback ? " fallback" : "")));
    const drawn = window.TandemTimeline.draw(recipient);
    block.appendChild(drawn.svg);
    if (drawn.offAxis.length > 0) {
      block.appendChild(text("p", "Later deadlines: " + drawn.offAxis.map(function (d) { return d.timer + " at " + d.at + (d.armed ? " (armed)" : ""); }).join(", "), "meta"));
    }
    const table = document.createElement("table");
    table.className = "events";
    const start = recipient.events.length ? Number(recipient.events[0].ms) : 0;
    for (const e of recipient.events) {
      const row = table.insertRow();
      row.insertCell().textContent = "+" + window.TandemTimeline.seconds(Number(e.ms) - start);
      row.insertCell().textContent = window.TandemTimeline.names[e.event] || e.event;
      row.insertCell().textContent = e.detail;
      row.insertCell().textContent = e.at;
    }
    block.appendChild(table);
    return block;
  }

  document.addEventListener("DOMContentLoaded", function () {
    $("login-form").addEventListener("submit", function (event) {
      event.preventDefault();
      sessionStorage.setItem(KEY, $("token").value.trim());
      $("token").value = "";
      show();
    });
    $("signout").addEventListener("click", function () { sessionStorage.removeItem(KEY); showLogin(""); });
    $("search-form").addEventListener("submit", function (event) {
      event.preventDefault();
      const by = $("search-by").value, value = $("search-value").value.trim();
      history.replaceState(null, "", "#messages/" + by + "/" + encodeURIComponent(value));
      search(by, value);
    });
    window.addEventListener("hashchange", show);
    show();
  });
})();
"""#
}
