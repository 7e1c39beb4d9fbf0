// referee serve: the pages' script. Each page is rendered here from its JSON
// route and redrawn when the server's event stream says something changed.
// Every string from a tournament goes in with textContent, never as markup.
"use strict";

(function () {
  const app = document.getElementById("app");
  const page = app.dataset.page;
  const tid = app.dataset.tid;
  const bot = app.dataset.bot;
  const charts = {};

  // Helpers -----------------------------------------------------------------------------

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else node.setAttribute(key, value);
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function num(value, digits) {
    return value === null || value === undefined ? "-" : Number(value).toFixed(digits);
  }

  function tpath(...parts) {
    return "/t/" + tid + parts.map((p) => "/" + encodeURIComponent(p)).join("");
  }

  async function getJSON(url) {
    const response = await fetch(url, { cache: "no-store" });
    if (!response.ok) throw new Error(url + ": HTTP " + response.status);
    return response.json();
  }

  function replaceRows(tbody, rows) {
    tbody.replaceChildren(...rows);
  }

  function live(url, onUpdate) {
    // ?live=0: no event stream, so that a page can be loaded to its end (a headless
    // browser's --screenshot waits for every request, and this one never ends).
    if (new URLSearchParams(location.search).get("live") === "0") return null;
    const dot = document.getElementById("live");
    const source = new EventSource(url);
    source.addEventListener("update", (event) => onUpdate(JSON.parse(event.data)));
    source.onopen = () => dot.classList.add("on");
    source.onerror = () => dot.classList.remove("on");
    return source;
  }

  function done(version) {
    app.dataset.version = String(version);
    app.dataset.ready = "1";
  }

  function fail(error) {
    app.dataset.error = String(error);
    console.error(String(error));
  }

  // A plugin that counts the painted pixels of each chart once drawn, so that a
  // test (or a person with the inspector) can tell a drawn chart from a blank one.
  const inked = {
    id: "inked",
    afterRender(chart) {
      const canvas = chart.canvas;
      // A responsive chart can render at no size while the page lays out (seen under
      // load), where getImageData throws: that render painted nothing, say nothing yet.
      if (!canvas.width || !canvas.height) return;
      const ctx = canvas.getContext("2d");
      const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
      let painted = 0;
      for (let i = 3; i < data.length; i += 16) if (data[i] > 0) painted++;
      canvas.dataset.painted = String(painted);
      canvas.dataset.points = String(
        chart.data.datasets.reduce((n, d) => n + d.data.length, 0)
      );
    },
  };

  function chart(id, config) {
    const canvas = document.getElementById(id);
    if (!canvas || typeof Chart === "undefined") return null;
    config.options = Object.assign(
      { animation: false, responsive: true, maintainAspectRatio: false },
      config.options || {}
    );
    config.plugins = [inked];
    if (charts[id]) {
      charts[id].data = config.data;
      charts[id].options = config.options;
      charts[id].update();
    } else {
      charts[id] = new Chart(canvas, config);
    }
    return charts[id];
  }

  function stateLine(data) {
    const node = document.getElementById("state");
    if (!node) return;
    const parts = [];
    let kind = "";
    if (data.error) {
      parts.push("Refused: " + data.error);
      kind = data.status;
    } else {
      const total = data.games_scheduled === null ? "?" : data.games_scheduled;
      parts.push(data.status + ": " + data.games_played + " of " + total + " games");
      if (data.indexing) parts.push("indexing…");
      else if (data.standings_games !== data.games_played)
        parts.push("standings of the first " + data.standings_games + " games");
      if (!data.authenticated) {
        parts.push("not authenticated: no key in the folder, results read as they are");
        kind = "unauth";
      } else {
        parts.push("authenticated with the folder's key");
      }
      if (data.missing_logs) parts.push(data.missing_logs + " game log(s) missing");
    }
    node.textContent = parts.join(" · ");
    node.className = "state " + kind;
  }

  function heat(share) {
    // 0 (always behind) red, 0.5 neutral, 1 (always ahead) green.
    if (share === null || share === undefined) return "#f4f5f7";
    const t = Math.max(0, Math.min(1, share));
    const hue = 120 * t;
    const light = 92 - 40 * Math.abs(t - 0.5);
    return "hsl(" + hue + ", 62%, " + light + "%)";
  }

  function h2hCell(cell) {
    const games = cell.ahead + cell.tied + cell.behind;
    const share = games ? (cell.ahead + cell.tied / 2) / games : null;
    const td = el("td", {
      title: cell.ahead + " ahead, " + cell.tied + " tied, " + cell.behind + " behind",
      "data-share": share === null ? "" : share.toFixed(3),
    });
    td.style.background = heat(share);
    td.textContent = share === null ? "-" : Math.round(share * 100) + "% (" + games + ")";
    return td;
  }

  // The tournament list ---------------------------------------------------------------------

  async function renderIndex() {
    const data = await getJSON("/api/tournaments");
    const rows = data.tournaments.map((t) => {
      const total = t.games_scheduled;
      const share = total ? Math.min(1, t.games_played / total) : 0;
      const bar = el("span", { class: "progress" }, el("span"));
      bar.firstChild.style.width = (100 * share).toFixed(1) + "%";
      return el(
        "tr",
        { "data-id": t.id },
        el("td", {}, el("a", { href: "/t/" + t.id, text: t.name }), " ", el("small", { class: "muted", text: t.id })),
        el("td", {}, el("span", { class: "badge " + t.status, text: t.status })),
        el("td", {}, bar, " " + t.games_played + " / " + (total === null ? "?" : total)),
        el("td", { text: t.leader || "-" }),
        el("td", { text: t.error ? "refused" : t.authenticated ? "authenticated" : "not authenticated (no key)" }),
        el("td", { text: t.updated_at ? new Date(t.updated_at * 1000).toLocaleString() : "-" })
      );
    });
    replaceRows(document.querySelector("#tournaments tbody"), rows);
    document.getElementById("empty").hidden = rows.length > 0;
    done(data.version);
  }

  // Standings ------------------------------------------------------------------------------

  let lastPlayed = null;
  async function renderStandings() {
    const data = await getJSON("/api/t/" + tid);
    stateLine(data);
    const standings = data.standings;
    if (!standings) return done(data.version);
    const before = {};
    document.querySelectorAll("#standings tbody tr").forEach((tr) => (before[tr.dataset.bot] = tr.dataset.sig));
    const rows = standings.bots.map((b) => {
      const ci = b.points_ci95;
      const faults = Object.entries(b.faults).map(([k, v]) => k + " " + v).join(", ") || "-";
      const sig = [b.rank, b.games, num(b.points_per_hand, 3)].join("|");
      const tr = el(
        "tr",
        { "data-bot": b.bot, "data-rank": b.rank, "data-sig": sig },
        el("td", { class: "num", text: b.rank }),
        el("td", {}, el("a", { href: tpath("bots", b.bot), text: b.bot })),
        el("td", { class: "num", text: b.games }),
        el("td", { class: "num", text: Number(b.wins.toFixed(2)) }),
        el("td", { class: "num", text: num(b.avg_placement, 2) }),
        el("td", { class: "num", text: num(b.points_per_hand, 3) }),
        el("td", { class: "num", text: ci ? num(ci[0], 2) + " .. " + num(ci[1], 2) : "-" }),
        el("td", {
          class: "num",
          text: b.rank_ci95 ? b.rank_ci95[0] + ".." + b.rank_ci95[1] + (b.rank_tied_with.length ? " ≈" : "") : "-",
          title: b.rank_tied_with && b.rank_tied_with.length ? "cannot be told apart from " + b.rank_tied_with.join(", ") : "",
        }),
        el("td", { class: "num", text: num(b.ordinal, 2) }),
        el("td", { class: "num", text: b.moons }),
        el("td", { class: b.faults && Object.keys(b.faults).length ? "fault" : "", text: faults }),
        el("td", { class: "num", text: b.forfeits }),
        el("td", { text: b.status + (b.reason ? ": " + b.reason : "") })
      );
      if (lastPlayed !== null && before[b.bot] !== sig) tr.classList.add("changed");
      return tr;
    });
    replaceRows(document.querySelector("#standings tbody"), rows);
    lastPlayed = standings.games_played;
    app.dataset.games = String(standings.games_played);

    const playing = standings.bots.filter((b) => b.points_per_hand !== null);
    chart("ci-chart", {
      type: "bar",
      data: {
        labels: playing.map((b) => b.bot),
        datasets: [
          {
            label: "95% confidence interval",
            data: playing.map((b) =>
              b.points_ci95 ? [b.points_ci95[0], b.points_ci95[1]] : [b.points_per_hand, b.points_per_hand]
            ),
            backgroundColor: "rgba(58, 120, 194, 0.35)",
            borderColor: "rgba(58, 120, 194, 0.9)",
            borderWidth: 1,
            barPercentage: 0.5,
          },
          {
            type: "line",
            label: "points per hand",
            data: playing.map((b) => b.points_per_hand),
            showLine: false,
            pointRadius: 5,
            pointStyle: "rectRot",
            backgroundColor: "#b3261e",
            borderColor: "#b3261e",
          },
        ],
      },
      options: {
        indexAxis: "y",
        scales: { x: { title: { display: true, text: "points per hand (lower is better)" } } },
      },
    });
    renderHeadToHead(standings);
    done(data.version);
  }

  function renderHeadToHead(standings) {
    const order = standings.bots.map((b) => b.bot);
    const table = document.getElementById("h2h");
    const head = el("tr", {}, el("th", { text: "ahead of →" }), ...order.map((o) => el("th", { text: o })));
    const rows = order.map((a) => {
      const row = standings.head_to_head[a] || {};
      return el(
        "tr",
        {},
        el("th", { class: "row", text: a }),
        ...order.map((b) => (a === b ? el("td", { class: "self" }) : row[b] ? h2hCell(row[b]) : el("td", { text: "-" })))
      );
    });
    table.replaceChildren(el("thead", {}, head), el("tbody", {}, ...rows));
  }

  // A bot ----------------------------------------------------------------------------------

  async function renderBot() {
    const data = await getJSON("/api/t/" + tid + "/bots/" + encodeURIComponent(bot));
    stateLine(data);
    const info = data.info || {};
    document.getElementById("about").textContent = [info.name, info.version, info.language, info.author]
      .filter(Boolean)
      .join(" · ");
    const row = data.row;
    const summary = row
      ? [
          ["rank", row.rank],
          ["games", row.games],
          ["wins", Number(row.wins.toFixed(2))],
          ["points per hand", num(row.points_per_hand, 3) + (row.points_ci95 ? " (95% CI " + num(row.points_ci95[0], 2) + " .. " + num(row.points_ci95[1], 2) + ")" : "")],
          ["OpenSkill", "mu " + num(row.mu, 2) + ", sigma " + num(row.sigma, 2) + ", ordinal " + num(row.ordinal, 2)],
          ["moons", row.moons],
          ["forfeits", row.forfeits],
          ["ms per decision", num(row.ms_per_decision, 2)],
          ["status", row.status + (row.reason ? ": " + row.reason : "")],
        ]
      : [];
    replaceRows(
      document.querySelector("#summary tbody"),
      summary.map(([k, v]) => el("tr", {}, el("th", { text: k }), el("td", { text: v })))
    );

    const histogram = data.points_histogram || [];
    chart("points-chart", {
      type: "bar",
      data: {
        labels: histogram.map((_, i) => String(i)),
        datasets: [{ label: "hands", data: histogram, backgroundColor: "rgba(58, 120, 194, 0.7)" }],
      },
      options: {
        plugins: { legend: { display: false } },
        scales: {
          x: { title: { display: true, text: "points in the hand" } },
          y: { title: { display: true, text: "hands" }, beginAtZero: true },
        },
      },
    });
    const ratings = data.ratings || [];
    chart("rating-chart", {
      type: "line",
      data: {
        datasets: [
          {
            label: "ordinal",
            data: ratings.map(([x, y]) => ({ x, y })),
            borderColor: "#b3261e",
            pointRadius: ratings.length > 60 ? 0 : 2,
            borderWidth: 1.5,
          },
        ],
      },
      options: {
        parsing: false,
        plugins: { legend: { display: false } },
        scales: {
          x: { type: "linear", title: { display: true, text: "its games" } },
          y: { title: { display: true, text: "ordinal (mu - 3 sigma)" } },
        },
      },
    });

    const h2h = document.getElementById("h2h");
    const opponents = data.head_to_head || [];
    h2h.replaceChildren(
      el("thead", {}, el("tr", {}, el("th", { text: "vs" }), ...opponents.map((o) => el("th", {}, el("a", { href: tpath("bots", o.opponent), text: o.opponent }))))),
      el("tbody", {}, el("tr", { class: "me" }, el("th", { class: "row", text: data.bot }), ...opponents.map((o) => h2hCell(o))))
    );

    const faults = Object.entries((row && row.faults) || {}).sort((a, b) => b[1] - a[1]);
    // No faults: the table says so, and no empty chart stands above it.
    document.getElementById("faults-chart").parentElement.hidden = faults.length === 0;
    if (faults.length) chart("faults-chart", {
      type: "bar",
      data: {
        labels: faults.map(([k]) => k),
        datasets: [{ label: "faults", data: faults.map(([, v]) => v), backgroundColor: "rgba(179, 38, 30, 0.7)" }],
      },
      options: { indexAxis: "y", plugins: { legend: { display: false } }, scales: { x: { beginAtZero: true, ticks: { precision: 0 } } } },
    });
    replaceRows(
      document.querySelector("#faults tbody"),
      faults.length
        ? faults.map(([k, v]) => el("tr", {}, el("td", { class: "fault", text: k }), el("td", { class: "num", text: v })))
        : [el("tr", {}, el("td", { text: "no faults" }))]
    );

    const scan = data.scan || { scanned: 0, games: 0 };
    document.getElementById("scan").textContent =
      scan.scanned < scan.games
        ? "From the logs read so far: " + scan.scanned + " of " + scan.games + " games."
        : "From all " + scan.games + " game logs.";
    replaceRows(
      document.querySelector("#slowest tbody"),
      (data.slowest || []).map((d) =>
        el(
          "tr",
          {},
          el("td", { class: "num", text: num(d.ms, d.ms < 10 ? 2 : 0) }),
          el("td", {}, el("a", { href: tpath("games", d.game_id) + at(d.decision), text: d.game_id })),
          el("td", { text: decisionLabel(d.decision), title: d.decision })
        )
      )
    );
    renderAnalysis(data.analysis);
    done(data.version);
  }

  // referee analyze's figures for the bot: points lost per hand, its worst decisions.
  function renderAnalysis(analysis) {
    if (!analysis) return;
    const phases = Object.entries(analysis.per_hand_by_phase)
      .filter(([, v]) => v > 0)
      .map(([p, v]) => p + " " + num(v, 2))
      .join(", ");
    const grades = [["inaccuracy", "inaccuracies"], ["mistake", "mistakes"], ["blunder", "blunders"]]
      .map(([g, many]) => { const n = analysis.grades[g] || 0; return n + " " + (n === 1 ? g : many); }).join(", ");
    document.getElementById("analysis-summary").textContent =
      num(analysis.points_lost_per_hand, 2) + " points lost a hand over " + analysis.hands + " hands of " +
      analysis.games + " analysed games (" + phases + "); " + grades + ".";
    replaceRows(
      document.querySelector("#worst tbody"),
      analysis.worst.map((w) =>
        el(
          "tr",
          { class: w.grade || "" },
          el("td", { class: "num", text: num(w.loss, 2) + " ± " + num(w.error, 2) }),
          el("td", { text: (w.mark ? w.mark + " " : "") + (w.grade || "") }),
          el("td", {}, el("a", { href: tpath("games", w.game_id) + w.position, text: w.game_id })),
          el("td", { text: w.where }),
          el("td", { text: w.what })
        )
      )
    );
  }

  // A decision id (h3-t5-s1, h3-pass-s1, h3-moon-s1) in words: "hand 3, trick 5, seat 1".
  function decisionLabel(decision) {
    const match = /^h(\d+)-(?:t(\d+)|(pass)|(moon))-s(\d+)$/.exec(decision || "");
    if (!match) return decision || "-";
    const what = match[2] ? "trick " + match[2] : match[3] ? "the pass" : "the moon choice";
    return "hand " + match[1] + ", " + what + ", seat " + match[5];
  }

  // A decision id (h3-t5-s1, h3-pass-s1) as the replay's position: the trick it was in.
  function at(decision) {
    const match = /^h(\d+)-(?:t(\d+)|pass)/.exec(decision || "");
    if (!match) return "";
    return "#hand=" + match[1] + "&trick=" + (match[2] ? Number(match[2]) - 1 : 0);
  }

  // The game list --------------------------------------------------------------------------

  const form = document.getElementById("filters");
  let shown = 0;

  function filterQuery() {
    const params = new URLSearchParams();
    for (const select of form.querySelectorAll("select")) if (select.value) params.set(select.name, select.value);
    return params;
  }

  function gameRow(g) {
    const seats = g.bots.map((b, s) =>
      el(
        "span",
        { class: "seat" + (g.placements[s] === 1 ? " win" : ""), title: "placement " + g.placements[s] },
        b,
        el("span", { class: "pts", text: g.scores[s] })
      )
    );
    const faults = g.faults.reduce((a, b) => a + b, 0);
    const moons = g.moons.reduce((a, b) => a + b, 0);
    const kinds = [...new Set(g.fault_kinds.flat())].join(", ");
    return el(
      "tr",
      { "data-game": g.game_id },
      el("td", { class: "num", text: g.index + 1 }),
      el("td", { text: g.game_id }),
      el("td", {}, ...seats),
      el("td", { class: "num", text: g.hands }),
      el("td", { class: "num", text: moons || "" }),
      el("td", { class: faults ? "fault" : "", text: faults ? faults + " (" + kinds + ")" : "" }),
      el("td", {}, g.has_log ? el("a", { class: "replay", href: tpath("games", g.game_id), text: "replay" }) : "no log")
    );
  }

  async function renderGames(append) {
    const params = filterQuery();
    params.set("offset", append ? String(shown) : "0");
    const data = await getJSON("/api/t/" + tid + "/games?" + params.toString());
    const select = form.querySelector("select[name=bot]");
    const listed = new Set([...select.options].map((o) => o.value));
    for (const name of data.bots) if (!listed.has(name)) select.append(el("option", { value: name, text: name }));
    const tbody = document.querySelector("#games tbody");
    const rows = data.games.map(gameRow);
    if (append) tbody.append(...rows);
    else tbody.replaceChildren(...rows);
    shown = tbody.children.length;
    document.getElementById("count").textContent = data.total + " games match; " + shown + " shown.";
    document.getElementById("more").hidden = shown >= data.total;
    app.dataset.total = String(data.total);
    done(data.version);
  }

  function setupGames() {
    const query = new URLSearchParams(location.search);
    const wanted = query.get("bot");
    if (wanted) form.querySelector("select[name=bot]").append(el("option", { value: wanted, text: wanted }));
    for (const select of form.querySelectorAll("select")) {
      if (query.get(select.name)) select.value = query.get(select.name);
      select.addEventListener("change", () => {
        const params = filterQuery();
        history.replaceState(null, "", location.pathname + (params.toString() ? "?" + params : ""));
        app.dataset.ready = "0";
        renderGames(false).catch(fail);
      });
    }
    document.getElementById("more").addEventListener("click", () => renderGames(true).catch(fail));
  }

  // The gauntlet -----------------------------------------------------------------------------

  async function renderGauntlet() {
    const data = await getJSON("/api/t/" + tid + "/gauntlet");
    stateLine(data);
    const series = (data.gauntlet && data.gauntlet.series) || {};
    const names = Object.keys(series);
    // Points rebuilt from the games count games; a journal's own test entries may count sets.
    const fromGames = !data.gauntlet || data.gauntlet.source === "games";
    const xTitle = fromGames ? "games played so far" : "games (or duplicate sets, as the journal counts them) so far";
    document.getElementById("gauntlet-empty").hidden = names.length > 0;
    const colours = ["#b3261e", "#3a78c2", "#1e7b34", "#8a4fbf", "#c27c0e"];
    const datasets = [];
    names.forEach((name, i) => {
      const points = series[name];
      datasets.push({
        label: "LLR " + name,
        data: points.filter((p) => p.llr !== null).map((p) => ({ x: p.x, y: p.llr })),
        borderColor: colours[i % colours.length],
        pointRadius: points.length > 60 ? 0 : 2,
      });
      if (i === 0) {
        for (const [bound, label] of [["upper", "H1 accepted above"], ["lower", "H0 accepted below"]]) {
          datasets.push({
            label: label,
            data: points.filter((p) => p[bound] !== null).map((p) => ({ x: p.x, y: p[bound] })),
            borderColor: "#5d6675",
            borderDash: [6, 4],
            pointRadius: 0,
          });
        }
      }
    });
    chart("llr-chart", {
      type: "line",
      data: { datasets },
      options: {
        parsing: false,
        scales: {
          x: { type: "linear", title: { display: true, text: xTitle } },
          y: { title: { display: true, text: "log-likelihood ratio" } },
        },
      },
    });
    const rows = [];
    for (const name of names) {
      const last = series[name][series[name].length - 1];
      rows.push(
        el("tr", {}, el("td", { text: name }), el("td", { class: "num", text: last.x }), el("td", { class: "num", text: num(last.llr, 3) }), el("td", { text: num(last.lower, 2) + " .. " + num(last.upper, 2) }), el("td", { text: last.decision || "none yet" }))
      );
    }
    replaceRows(document.querySelector("#llr tbody"), rows);
    done(data.version);
  }

  // Wiring ------------------------------------------------------------------------------------

  function follow(render, url) {
    let running = false;
    let again = false;
    let version = null;
    async function run() {
      if (running) {
        again = true;
        return;
      }
      running = true;
      try {
        await render();
      } catch (error) {
        fail(error);
      }
      running = false;
      if (again) {
        again = false;
        run();
      }
    }
    run();
    live(url, (data) => {
      if (data.version !== version) {
        version = data.version;
        run();
      }
    });
  }

  if (page === "index") follow(renderIndex, "/api/events");
  else if (page === "standings") follow(renderStandings, "/api/t/" + tid + "/events");
  else if (page === "bot") follow(renderBot, "/api/t/" + tid + "/events");
  else if (page === "gauntlet") follow(renderGauntlet, "/api/t/" + tid + "/events");
  else if (page === "games") {
    setupGames();
    follow(() => renderGames(false), "/api/t/" + tid + "/events");
  }
})();
