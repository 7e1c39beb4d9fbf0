// The table of `referee play`: draws the seat's table from the server's `table` events and
// POSTs the human's answers. Every string from the server goes in with textContent (never
// as markup); names were already made printable by the referee (safetext).
"use strict";

(function () {
  const app = document.getElementById("app");
  const token = app.dataset.token;
  const base = "/play/" + encodeURIComponent(token);
  const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
  const RED = { D: true, H: true };

  let table = null;
  let selected = new Set(); // cards lifted for the pass
  let selectedFor = null; // the decision they were lifted for
  let sending = false;
  let clockEnds = 0;

  const $ = (id) => document.getElementById(id);

  function cardText(code) {
    const rank = code.slice(0, -1) === "T" ? "10" : code.slice(0, -1);
    return rank + SUITS[code.slice(-1)];
  }

  function cardSpan(code) {
    const span = document.createElement("span");
    span.className = "pip" + (RED[code.slice(-1)] ? " red" : "");
    span.textContent = cardText(code);
    return span;
  }

  function seatName(seat) {
    const s = table.seats[seat];
    return seat === table.seat ? "You (" + s.label + ")" : s.label + " · " + s.name;
  }

  function points(n) {
    return n + (n === 1 || n === -1 ? " point" : " points");
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  function say(text) {
    $("reason").textContent = text;
  }

  // Drawing ---------------------------------------------------------------------------

  function draw() {
    const t = table;
    if (t.phase === "waiting") {
      $("status").textContent = t.aborted ? "Stopped: " + t.aborted : "Waiting for the game…";
      return;
    }
    const decision = t.decision;
    if (!decision || decision.id !== selectedFor) {
      selected = new Set();
      selectedFor = decision ? decision.id : null;
    }
    $("title").textContent = "Hand " + t.hand_number + (t.phase === "playing" ? " · trick " + t.trick_number : "");
    $("status").textContent = statusText(t);
    $("hearts").textContent = t.hearts_broken ? "♥ hearts broken" : "hearts not broken";
    $("hearts").classList.toggle("broken", t.hearts_broken);
    $("passinfo").textContent =
      t.pass_direction === "hold"
        ? "no passing this hand"
        : (t.passed ? "passed " : "pass ") + t.rules.pass_count + " " + t.pass_direction + " to " + seatName(t.pass_to);
    drawTrick(t);
    drawHand(t);
    drawActions(t);
    drawScores(t);
    drawEnd(t);
    const notes = $("notes");
    clear(notes);
    for (const note of t.notes) {
      const li = document.createElement("li");
      li.textContent = note;
      notes.appendChild(li);
    }
    if (t.refused && decision && t.refused.decision === decision.id) {
      say("Refused: " + t.refused.error);
    }
    clockEnds = decision ? performance.now() + decision.ms_left : 0;
    tick();
    app.dataset.version = String(t.version);
    app.dataset.phase = t.phase;
    app.dataset.decision = decision ? decision.kind : "";
    app.dataset.decisionId = decision ? decision.id : "";
    app.dataset.ready = "1";
  }

  function statusText(t) {
    if (t.aborted) return "Stopped: " + t.aborted;
    if (t.outcome) return "Game over.";
    const d = t.decision;
    if (d && d.kind === "pass") {
      return "Choose " + t.rules.pass_count + " cards to pass to " + seatName(t.pass_to) + ".";
    }
    if (d && d.kind === "play") return t.trick.plays.length ? "Your turn: play a card." : "Your lead.";
    if (d && d.kind === "moon") return "You shot the moon: choose how it scores.";
    if (t.phase === "passing") return "Waiting for the others to pass…";
    if (t.phase === "moon_choice") return "Waiting for the moon choice…";
    if (t.to_play >= 0) return "Waiting for " + seatName(t.to_play) + "…";
    return "";
  }

  function drawTrick(t) {
    const list = $("trick");
    clear(list);
    const played = {};
    for (const [seat, card] of t.trick.plays) played[seat] = card;
    const n = t.seats.length;
    for (let i = 1; i <= n; i++) {
      const seat = (t.seat + i) % n; // from your left round to you
      const li = document.createElement("li");
      li.className = "seat";
      li.dataset.seat = String(seat);
      if (seat === t.seat) li.classList.add("you");
      const name = document.createElement("span");
      name.className = "name";
      name.textContent = seatName(seat);
      li.appendChild(name);
      const slot = document.createElement("span");
      slot.className = "slot";
      if (played[seat]) {
        slot.appendChild(cardSpan(played[seat]));
        slot.dataset.card = played[seat];
      } else {
        slot.textContent = "–";
      }
      li.appendChild(slot);
      const tag = document.createElement("span");
      tag.className = "tag";
      if (seat === t.trick.leader) tag.textContent = "led";
      else if (seat === t.trick.to_lead) tag.textContent = "to lead";
      if (seat === t.to_play && !t.outcome) {
        li.classList.add("turn");
        if (!tag.textContent) tag.textContent = "to play";
      }
      li.appendChild(tag);
      list.appendChild(li);
    }
    const last = $("last-trick");
    clear(last);
    if (t.last_trick) {
      const lt = t.last_trick;
      last.appendChild(document.createTextNode("Last trick (hand " + lt.hand + "): "));
      lt.plays.forEach(([, card], i) => {
        if (i) last.appendChild(document.createTextNode(" "));
        last.appendChild(cardSpan(card));
      });
      last.appendChild(
        document.createTextNode(
          " — taken by " + seatName(lt.winner) + (lt.points ? " (" + points(lt.points) + ")" : " (no points)")
        )
      );
      last.dataset.winner = String(lt.winner);
    }
  }

  function drawHand(t) {
    const hand = $("hand");
    const focused = document.activeElement && document.activeElement.dataset
      ? document.activeElement.dataset.card
      : null;
    clear(hand);
    const d = t.decision;
    let focusTarget = null;
    t.hand.forEach((entry, index) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "card" + (RED[entry.card.slice(-1)] ? " red" : "");
      button.dataset.card = entry.card;
      button.textContent = cardText(entry.card);
      button.tabIndex = -1;
      let usable = false;
      if (d && d.kind === "pass") {
        usable = true;
        button.setAttribute("aria-pressed", selected.has(entry.card) ? "true" : "false");
        if (selected.has(entry.card)) button.classList.add("lifted");
      } else if (d && d.kind === "play") {
        usable = entry.legal;
        if (!entry.legal) {
          button.title = entry.reason;
          button.dataset.reason = entry.reason;
          button.dataset.rule = entry.rule || "";
        }
      }
      button.setAttribute("aria-disabled", usable ? "false" : "true");
      button.classList.toggle("usable", usable);
      button.setAttribute(
        "aria-label",
        cardText(entry.card) + (button.dataset.reason ? ": " + button.dataset.reason : "")
      );
      button.addEventListener("click", () => choose(entry));
      button.addEventListener("focus", () => {
        if (button.dataset.reason) say(cardText(entry.card) + ": " + button.dataset.reason);
      });
      button.addEventListener("mouseenter", () => {
        if (button.dataset.reason) say(cardText(entry.card) + ": " + button.dataset.reason);
      });
      hand.appendChild(button);
      if (entry.card === focused) focusTarget = button;
      if (index === 0 && !focusTarget) button.tabIndex = 0;
    });
    if (focusTarget) {
      for (const b of hand.children) b.tabIndex = -1;
      focusTarget.tabIndex = 0;
      focusTarget.focus();
    } else if (d && hand.firstChild) {
      const first = hand.querySelector("button.usable") || hand.firstChild;
      for (const b of hand.children) b.tabIndex = -1;
      first.tabIndex = 0;
    }
    if (!t.hand.length) {
      const empty = document.createElement("span");
      empty.className = "empty";
      empty.textContent = "no cards";
      hand.appendChild(empty);
    }
    const exchange = $("exchange");
    clear(exchange);
    if (t.passed && t.passed.length) {
      exchange.appendChild(document.createTextNode("Passed: "));
      t.passed.forEach((c) => exchange.appendChild(cardSpan(c)));
    }
    if (t.received && t.received.length) {
      exchange.appendChild(document.createTextNode("  Received from " + seatName(t.pass_from) + ": "));
      t.received.forEach((c) => exchange.appendChild(cardSpan(c)));
    }
  }

  function drawActions(t) {
    const d = t.decision;
    const pass = $("pass");
    const passing = d && d.kind === "pass";
    pass.hidden = !passing;
    const need = t.rules.pass_count;
    pass.disabled = !passing || selected.size !== need || sending;
    pass.textContent = passing
      ? "Pass " + selected.size + "/" + need + " to " + seatName(t.pass_to)
      : "Pass";
    $("moon").hidden = !(d && d.kind === "moon");
  }

  function drawScores(t) {
    const head = $("score-head");
    while (head.children.length > 1) head.removeChild(head.lastChild);
    for (const s of t.seats) {
      const th = document.createElement("th");
      th.scope = "col";
      th.textContent = s.seat === t.seat ? "You" : s.label;
      th.title = s.name;
      head.appendChild(th);
    }
    const body = $("score-body");
    clear(body);
    for (const h of t.hands) {
      const tr = document.createElement("tr");
      const th = document.createElement("th");
      th.scope = "row";
      th.textContent = String(h.hand);
      tr.appendChild(th);
      h.scores.forEach((score, seat) => {
        const td = document.createElement("td");
        td.textContent = String(score) + (h.moon_shooter === seat ? " ☾" : "");
        tr.appendChild(td);
      });
      body.appendChild(tr);
    }
    const total = $("score-total");
    while (total.children.length > 1) total.removeChild(total.lastChild);
    const totals = t.outcome ? t.outcome.scores : t.scores;
    for (const value of totals) {
      const td = document.createElement("td");
      td.textContent = String(value);
      total.appendChild(td);
    }
    $("taken").textContent =
      t.outcome || t.phase === "passing"
        ? ""
        : "This hand so far: " + t.points_taken.map((p, s) => (s === t.seat ? "you" : t.seats[s].label) + " " + p).join(", ");
  }

  function drawEnd(t) {
    const end = $("end");
    end.hidden = !t.outcome;
    if (!t.outcome) return;
    const list = $("placements");
    clear(list);
    const order = t.seats.map((s) => s.seat);
    order.sort((a, b) => t.outcome.placements[a] - t.outcome.placements[b] || a - b);
    for (const seat of order) {
      const li = document.createElement("li");
      li.dataset.seat = String(seat);
      li.textContent =
        "#" + t.outcome.placements[seat] + " " + seatName(seat) + ": " + points(t.outcome.scores[seat]);
      list.appendChild(li);
    }
    $("replay").href = base + "/replay";
  }

  function tick() {
    const clock = $("clock");
    if (!clockEnds) {
      clock.textContent = "";
      return;
    }
    const left = Math.max(0, Math.ceil((clockEnds - performance.now()) / 1000));
    clock.textContent = left + " s left";
  }
  setInterval(tick, 500);

  // Answering ---------------------------------------------------------------------------

  function choose(entry) {
    const d = table && table.decision;
    if (!d || sending) return;
    if (d.kind === "pass") {
      if (selected.has(entry.card)) selected.delete(entry.card);
      else if (selected.size < table.rules.pass_count) selected.add(entry.card);
      else {
        say("You pass exactly " + table.rules.pass_count + " cards (R2): put one back first.");
        return;
      }
      say("");
      const focused = entry.card;
      drawHand(table);
      drawActions(table);
      const again = $("hand").querySelector('[data-card="' + focused + '"]');
      if (again) again.focus();
      return;
    }
    if (d.kind === "play") {
      if (!entry.legal) {
        say(cardText(entry.card) + " may not be played: " + entry.reason);
        return;
      }
      send({ decision: d.id, card: entry.card });
    }
  }

  async function send(answer) {
    sending = true;
    try {
      const response = await fetch(base + "/answer", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(answer),
      });
      const result = await response.json();
      if (response.ok) say("");
      else say("Refused: " + result.error);
      return result;
    } catch (error) {
      say("Could not send the answer: " + error);
      return { error: String(error) };
    } finally {
      sending = false;
      if (table) drawActions(table);
    }
  }
  // The tests' way to send an answer the page would not (an illegal card).
  window.playAnswer = send;

  $("pass").addEventListener("click", () => {
    const d = table && table.decision;
    if (!d || d.kind !== "pass" || selected.size !== table.rules.pass_count) return;
    send({ decision: d.id, cards: Array.from(selected) });
  });
  $("moon-add").addEventListener("click", () => moon("add_to_others"));
  $("moon-subtract").addEventListener("click", () => moon("subtract_from_self"));
  function moon(choice) {
    const d = table && table.decision;
    if (d && d.kind === "moon") send({ decision: d.id, moon: choice });
  }

  // Arrow keys move along the hand (one tab stop for the whole hand).
  $("hand").addEventListener("keydown", (event) => {
    const keys = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1, Home: -99, End: 99 };
    if (!(event.key in keys)) return;
    const buttons = Array.from($("hand").querySelectorAll("button.card"));
    let index = buttons.indexOf(document.activeElement);
    if (index < 0) index = 0;
    index = Math.max(0, Math.min(buttons.length - 1, index + keys[event.key]));
    for (const b of buttons) b.tabIndex = -1;
    buttons[index].tabIndex = 0;
    buttons[index].focus();
    event.preventDefault();
  });

  // The live table ---------------------------------------------------------------------

  function connect() {
    const source = new EventSource(base + "/events");
    source.addEventListener("table", (event) => {
      table = JSON.parse(event.data);
      draw();
    });
    source.onerror = () => {
      if (!table || !table.outcome) $("status").textContent = "Reconnecting…";
    };
  }
  connect();
})();
