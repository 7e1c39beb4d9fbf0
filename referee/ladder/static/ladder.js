// The ladder's pages: the ladder table redrawn when the server's event stream says a
// game ended or a submission changed, and the signed-in team's upload form.
// Every string from a team or a bot goes in with textContent, never as markup.
"use strict";

(function () {
  const app = document.getElementById("app");
  const page = app.dataset.page;

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined) continue;
      if (key === "class") node.className = value;
      else node.setAttribute(key, value);
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function num(value, digits) {
    return value === null || value === undefined ? "–" : Number(value).toFixed(digits);
  }

  function teamLink(team) {
    return team ? el("a", { href: "/ladder/teams/" + encodeURIComponent(team) }, team) : "";
  }

  function live(onUpdate) {
    if (new URLSearchParams(location.search).get("live") === "0") return;
    const dot = document.getElementById("live");
    const source = new EventSource("/api/ladder/events");
    source.addEventListener("update", (event) => onUpdate(JSON.parse(event.data)));
    source.onopen = () => dot && dot.classList.add("on");
    source.onerror = () => dot && dot.classList.remove("on");
  }

  function renderLadder(data) {
    const rows = data.rows.map((r) =>
      el("tr", { "data-player": r.player },
        el("td", { class: "num" }, (r.rank === null ? "–" : String(r.rank)) + (r.tied ? " ≈" : "")),
        el("td", {}, r.player),
        el("td", {}, teamLink(r.team)),
        el("td", { class: "num" }, r.version === null ? "" : String(r.version)),
        el("td", { class: "num" }, String(r.games)),
        el("td", { class: "num" }, num(r.mu, 2)),
        el("td", { class: "num" }, num(r.sigma, 2)),
        el("td", { class: "num" }, num(r.ordinal, 2)),
        el("td", { class: "num" }, r.rating_ci95 ? num(r.rating_ci95[0], 1) + "–" + num(r.rating_ci95[1], 1) : "–"),
        el("td", { class: "num" }, r.rank_ci95 ? r.rank_ci95[0] + "–" + r.rank_ci95[1] : "–"),
        el("td", { class: "num" }, num(r.points_per_hand, 2)),
        el("td", {}, r.state)));
    document.querySelector("#ladder tbody").replaceChildren(...rows);
    document.getElementById("ladder-empty").hidden = data.rows.length > 0;
    const bots = data.bots.map((b) => {
      const versions = el("td", {});
      b.versions.forEach((v, i) => {
        if (i) versions.append(", ");
        versions.append(el("span", { class: "version state-" + v.state }, "v" + v.version + " " + v.state));
      });
      return el("tr", {}, el("td", {}, teamLink(b.team)), el("td", {}, b.bot), versions);
    });
    document.querySelector("#bots tbody").replaceChildren(...bots);
    let state = data.games_played + " games played";
    if (data.standings_games !== data.games_played) state += " (" + data.standings_games + " in the ratings)";
    document.getElementById("ladder-state").textContent = state + ".";
    app.dataset.version = JSON.stringify(data.version);
    app.dataset.games = String(data.games_played);
    app.dataset.ready = "1";
  }

  async function refreshLadder() {
    try {
      const response = await fetch("/api/ladder", { cache: "no-store" });
      if (!response.ok) throw new Error("/api/ladder: HTTP " + response.status);
      renderLadder(await response.json());
    } catch (error) {
      app.dataset.error = String(error);
    }
  }

  async function refreshSubmissions() {
    // The team's own page, fetched again: the server escaped it; DOMParser runs no script.
    const response = await fetch("/ladder/me", { cache: "no-store" });
    if (!response.ok) return;
    const doc = new DOMParser().parseFromString(await response.text(), "text/html");
    const fresh = doc.querySelector("#submissions tbody");
    if (fresh) document.querySelector("#submissions tbody").replaceChildren(...fresh.childNodes);
  }

  function setupUpload() {
    const form = document.getElementById("upload");
    const result = document.getElementById("upload-result");
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const file = document.getElementById("upload-file").files[0];
      const bot = document.getElementById("upload-bot").value;
      if (!file) return;
      result.textContent = "uploading…";
      try {
        const response = await fetch("/ladder/me/upload?bot=" + encodeURIComponent(bot), {
          method: "POST",
          headers: { "Content-Type": "application/gzip", "X-CSRF-Token": form.dataset.csrf },
          body: file,
        });
        const data = await response.json();
        result.textContent = response.ok
          ? "submission " + data.id + ": " + data.player + " " + data.state
          : "refused: " + data.error;
        result.dataset.ok = response.ok ? "1" : "0";
      } catch (error) {
        result.textContent = "the upload failed: " + error;
        result.dataset.ok = "0";
      }
      await refreshSubmissions();
    });
  }

  if (page === "ladder") {
    live(refreshLadder);
    if (new URLSearchParams(location.search).get("live") === "0") refreshLadder();
  } else if (page === "ladder-me") {
    setupUpload();
    live(refreshSubmissions);
    app.dataset.ready = "1";
  }
})();
