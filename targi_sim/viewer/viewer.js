// targi-sim game viewer: draws precomputed engine positions; knows no rule of the game.
(function () {
  "use strict";
  var G = JSON.parse(document.getElementById("game-data").textContent);
  var F = G.fields;
  var D = TargiDraw, el = D.el;
  var COLOUR = D.COLOUR;

  // every state, rebuilt from the first and each step's changes
  var states = [];
  var cur = G.base.slice();
  G.steps.forEach(function (st) {
    for (var j = 0; j < st.d.length; j += 2) { cur[st.d[j]] = st.d[j + 1]; }
    states.push(cur.slice());
  });
  var N = states.length;
  var roundEnds = [];
  G.steps.forEach(function (st, i) { if (st.k !== "d") { roundEnds.push(i); } });

  function get(s, name, k) { return s[F[name][0] + (k || 0)]; }
  function range(s, name) { return s.slice(F[name][0], F[name][0] + F[name][1]); }

  // ------------------------------------------------------------------ the board
  var cells = D.buildBoard(document.getElementById("board"), G.deck);

  function drawBoard(s) {
    var ct = range(s, "cell_type"), cu = range(s, "cell_up"), cc = range(s, "cell_card"),
      cm = range(s, "cell_marker");
    D.drawBoard(cells, G.deck, G.symbols, G.seats, {
      robber: get(s, "robber"), targi: range(s, "border_targi"),
      cells: ct.map(function (t, k) { return [t, cu[k], cc[k], cm[k]]; })});
  }

  // ---------------------------------------------------------------- the players
  var reveal = document.getElementById("reveal");
  function drawPlayer(s, p) {
    var box = document.querySelector(".player.seat" + p);
    box.classList.toggle("first", get(s, "first") === p);
    G.resources.forEach(function (name, r) {
      box.querySelector("[data-res='" + name + "']").textContent = String(get(s, "p" + p + "_res", r));
    });
    box.querySelector("[data-res='score']").textContent = String(get(s, "p" + p + "_score"));
    var hand = box.querySelector(".hand-card");
    hand.textContent = "";
    var c = get(s, "p" + p + "_hand");
    if (c < 0) {
      hand.textContent = "none";
    } else if (get(s, "p" + p + "_hand_known") || reveal.checked) {
      var t = G.deck.tribe[c];
      var span = el("span", get(s, "p" + p + "_hand_known") ? "" : "hidden",
        t[0] + " (" + G.symbols[t[1]] + ", " + t[2] + " VP)");
      hand.appendChild(span);
      if (!get(s, "p" + p + "_hand_known")) {
        hand.appendChild(el("span", "note", " seat " + (1 - p) + " has not seen it"));
      }
    } else {
      hand.appendChild(el("span", "hidden", "a face-down card"));
      hand.appendChild(el("span", "note", " (drawn unseen; tick 'reveal' to show it)"));
    }
    D.drawDisplay(box.querySelectorAll(".slot"), G.deck, G.symbols, range(s, "p" + p + "_display"));
  }

  // -------------------------------------------------------------------- the chart
  // the chart is drawn once; each step moves its marker
  var chartX = null, marker = null;
  function buildChart() {
    var svg = document.getElementById("chart");
    var ns = "http://www.w3.org/2000/svg";
    var W = 760, H = 220, L = 40, R = 15, T = 15, B = 30;
    var pts = roundEnds.map(function (j) {
      var s = states[j];
      return {x: G.steps[j].k === "f" ? get(s, "round") + 0.5 : get(s, "round"),
        y: [get(s, "p0_score"), get(s, "p1_score")]};
    });
    var maxX = Math.max(1, G.rounds_played + 0.5), maxY = 1;
    pts.forEach(function (q) { maxY = Math.max(maxY, q.y[0], q.y[1]); });
    function X(x) { return L + (W - L - R) * Math.max(0, x) / maxX; }
    function Y(y) { return H - B - (H - T - B) * y / maxY; }
    function line(x1, y1, x2, y2, colour, dash) {
      var l = document.createElementNS(ns, "line");
      l.setAttribute("x1", x1); l.setAttribute("y1", y1); l.setAttribute("x2", x2);
      l.setAttribute("y2", y2); l.setAttribute("stroke", colour);
      if (dash) { l.setAttribute("stroke-dasharray", dash); }
      svg.appendChild(l);
      return l;
    }
    function text(x, y, t, anchor, colour) {
      var e = document.createElementNS(ns, "text");
      e.setAttribute("x", x); e.setAttribute("y", y); e.setAttribute("font-size", "11");
      e.setAttribute("text-anchor", anchor || "middle");
      if (colour) { e.setAttribute("fill", colour); }
      e.textContent = t; svg.appendChild(e);
    }
    line(L, H - B, W - R, H - B, "#888"); line(L, T, L, H - B, "#888");
    for (var r = 1; r <= G.rounds_played; r++) { text(X(r), H - B + 14, String(r)); }
    text((L + W - R) / 2, H - 3, "round (score if the game ended at the round's end)");
    var stepY = Math.max(1, Math.ceil(maxY / 5));
    for (var y = 0; y <= maxY; y += stepY) {
      text(L - 5, Y(y) + 4, String(y), "end"); line(L - 3, Y(y), L, Y(y), "#888");
    }
    G.raid_rounds.forEach(function (rr) {
      line(X(rr[0] - 0.5), T, X(rr[0] - 0.5), H - B, "#e8a0a0", "4 3");
      text(X(rr[0] - 0.5), T + 9, "raid " + rr[1], "middle", "#b00020");
    });
    [0, 1].forEach(function (p) {
      var poly = document.createElementNS(ns, "polyline");
      poly.setAttribute("fill", "none"); poly.setAttribute("stroke", COLOUR[p]);
      poly.setAttribute("stroke-width", "2");
      poly.setAttribute("points", pts.map(function (q) { return X(q.x) + "," + Y(q.y[p]); }).join(" "));
      svg.appendChild(poly);
      pts.forEach(function (q) {
        var c = document.createElementNS(ns, "circle");
        c.setAttribute("cx", X(q.x)); c.setAttribute("cy", Y(q.y[p])); c.setAttribute("r", "2.5");
        c.setAttribute("fill", COLOUR[p]); svg.appendChild(c);
      });
      text(L + 8, T + 12 + 13 * p, G.seats[p], "start", COLOUR[p]);
    });
    chartX = X;
    marker = line(X(0), T, X(0), H - B, "#333", "2 2");
  }
  function drawChart(i) {
    var s = states[i], k = G.steps[i].k;
    var x = k === "f" ? get(s, "round") + 0.5 : get(s, "round") - (k === "d" ? 0.5 : 0);
    marker.setAttribute("x1", chartX(x)); marker.setAttribute("x2", chartX(x));
  }

  // ---------------------------------------------------------------- the story
  function drawStory(i) {
    var st = G.steps[i];
    var box = document.getElementById("story");
    box.classList.toggle("raid", !!st.r);
    var ul = document.getElementById("lines");
    ul.textContent = "";
    st.l.forEach(function (line) { ul.appendChild(el("li", "", line)); });
    document.getElementById("next").textContent = st.n ? "Now: " + st.n + "." : "";
  }

  buildChart();
  var at = 0;
  var slider = document.getElementById("slider");
  slider.max = String(N - 1);
  function show(i) {
    at = Math.max(0, Math.min(N - 1, i));
    var s = states[at];
    drawBoard(s); drawPlayer(s, 0); drawPlayer(s, 1); drawStory(at); drawChart(at);
    var kind = {d: "before a decision", e: "end of the round", f: "after the last raid"}[G.steps[at].k];
    document.getElementById("where").textContent = "step " + (at + 1) + " of " + N + " · round " +
      get(s, "round") + " · " + kind;
    document.body.setAttribute("data-step", String(at));
    document.body.setAttribute("data-kind", G.steps[at].k);
    document.body.setAttribute("data-round", String(get(s, "round")));
    slider.value = String(at);
    document.getElementById("permalink").setAttribute("href", "#step=" + at);
  }
  function nextRound(dir) {
    var i;
    if (dir > 0) {
      for (i = 0; i < roundEnds.length; i++) { if (roundEnds[i] > at) { return show(roundEnds[i]); } }
      return show(N - 1);
    }
    for (i = roundEnds.length - 1; i >= 0; i--) { if (roundEnds[i] < at) { return show(roundEnds[i]); } }
    return show(0);
  }
  var actions = {
    first: function () { show(0); }, prevRound: function () { nextRound(-1); },
    prev: function () { show(at - 1); }, next: function () { show(at + 1); },
    nextRound: function () { nextRound(1); }, last: function () { show(N - 1); }
  };
  Object.keys(actions).forEach(function (name) {
    document.getElementById("btn-" + name).addEventListener("click", actions[name]);
  });
  slider.addEventListener("input", function () { show(Number(slider.value)); });
  reveal.addEventListener("change", function () { show(at); });
  document.addEventListener("keydown", function (e) {
    if (e.target && e.target.tagName === "INPUT" && e.target.type !== "checkbox") { return; }
    var key = {ArrowRight: "next", ArrowLeft: "prev", ArrowDown: "nextRound", PageDown: "nextRound",
      ArrowUp: "prevRound", PageUp: "prevRound", Home: "first", End: "last"}[e.key];
    if (key) { e.preventDefault(); actions[key](); }
  });

  // ------------------------------------------------- sortable table (click a header)
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var heads = table.querySelectorAll("th");
    heads.forEach(function (th, col) {
      th.addEventListener("click", function () {
        var asc = th.getAttribute("aria-sort") !== "ascending";
        heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", asc ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = a.cells[col].textContent, y = b.cells[col].textContent;
          var nx = parseFloat(x), ny = parseFloat(y);
          var d = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
          return asc ? d : -d;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });

  // #step=N, #round=R (the end of round R) or #raid=K (the step that resolves raid K)
  var m = /(?:^|[#&])(step|round|raid)=(\d+)/.exec(location.hash);
  var start = 0;
  if (m) {
    var want = Number(m[2]);
    if (m[1] === "step") { start = want; }
    for (var j = 0; m[1] !== "step" && j < N; j++) {
      if ((m[1] === "round" && G.steps[j].k !== "d" && get(states[j], "round") === want) ||
          (m[1] === "raid" && get(states[j], "raids_done") >= want)) { start = j; break; }
    }
  }
  show(start);
  window.targiViewer = {steps: N, show: show, step: function () { return at; }};
})();
