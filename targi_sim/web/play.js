// targi-sim play page: draws what the server sends (a player's View, the decision asked
// now, the narration) and sends the chosen option back. It knows no rule of the game.
(function () {
  "use strict";
  var D = TargiDraw, el = D.el;
  var SPEED_KEY = "targi-sim-play-speed";
  var setup = null, cells = null, seq = -1, busy = false, skipping = false;
  var $ = function (id) { return document.getElementById(id); };

  // ------------------------------------------------------------------ the server
  function api(method, path, body) {
    var init = {method: method, headers: {"Accept": "application/json"}, cache: "no-store"};
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    return fetch(path, init).then(function (r) {
      return r.text().then(function (text) {
        var data;
        try { data = JSON.parse(text); } catch (e) { data = {error: text || r.statusText}; }
        if (!r.ok) { throw new Error(data.error || ("HTTP " + r.status)); }
        return data;
      });
    });
  }

  function setBusy(on, text) {
    busy = on;
    document.body.setAttribute("data-busy", on ? "1" : "0");
    $("status").textContent = text || "";
    $("skip").disabled = !on;
    document.querySelectorAll("#options button, #next-game").forEach(function (b) {
      b.disabled = on;
    });
  }

  function showError(message) {
    var e = $("error");
    e.textContent = "Error: " + message;
    e.hidden = !message;
  }

  // ------------------------------------------------------------------ drawing
  function build(s) {
    setup = s;
    var bot = s.bot;
    document.title = "targi-sim: you vs " + bot;
    $("heading").textContent = "Targi: you (seat 0, A) against " + bot + " (seat 1, B)";
    cells = D.buildBoard($("board"), s.deck);
    [0, 1].forEach(function (p) {
      var box = document.querySelector(".player.seat" + p);
      box.querySelector(".who").textContent = s.seats[p] + ", " + D.SEAT[p];
      var res = box.querySelector(".res");
      s.resources.forEach(function (name) {
        var span = el("span", "", (name === "vp" ? "VP tokens" : name) + " ");
        span.appendChild(el("b", "", "0")).setAttribute("data-res", name);
        res.appendChild(span);
      });
      var score = el("span", "", "score now ");
      score.appendChild(el("b", "", "0")).setAttribute("data-res", "score");
      score.appendChild(el("span", "note parts", ""));
      res.appendChild(score);
      var display = box.querySelector(".display");
      for (var i = 0; i < 12; i++) { display.appendChild(el("div", "slot")); }
    });
    var saved = localStorage.getItem(SPEED_KEY);
    var m = /(?:^|[#&])speed=(\d+)/.exec(location.hash);
    $("speed").value = m ? m[1] : (saved !== null ? saved : "450");
    if (!$("speed").value) { $("speed").value = "450"; }
  }

  function handText(p, hand) {
    if (hand === -1) { return "none"; }
    if (hand === -2) { return "a card you have not seen (drawn face down)"; }
    var t = setup.deck.tribe[hand];
    return t[0] + " (" + setup.symbols[t[1]] + ", " + t[2] + " VP, cost " + t[3] + ")";
  }

  function draw(view) {
    D.drawBoard(cells, setup.deck, setup.symbols, setup.seats,
      {robber: view.robber, targi: view.targi, cells: view.cells});
    [0, 1].forEach(function (p) {
      var box = document.querySelector(".player.seat" + p), pl = view.players[p];
      box.classList.toggle("first", view.first === p);
      setup.resources.forEach(function (name, r) {
        box.querySelector("[data-res='" + name + "']").textContent = String(pl.res[r]);
      });
      var sc = pl.score;
      box.querySelector("[data-res='score']").textContent = String(sc.total);
      box.querySelector(".parts").textContent = " (" + sc.tokens + " tokens + " + sc.card_vp +
        " card VP + " + sc.ability_vp + " ability VP + " + sc.row_bonus + " row bonus)";
      var hand = box.querySelector(".hand-card");
      hand.textContent = handText(p, pl.hand);
      hand.classList.toggle("hidden", pl.hand === -2);
      D.drawDisplay(box.querySelectorAll(".slot"), setup.deck, setup.symbols, pl.display);
    });
    $("decks").textContent = "Round " + view.round + " · raids so far " + view.raids_done +
      " · tribe deck " + view.tribe_deck + " cards, goods deck " + view.goods_deck +
      " · discarded: " + view.tribe_discard.length + " tribe, " + view.goods_discard.length +
      " goods";
    document.body.setAttribute("data-round", String(view.round));
  }

  function addLines(item, fresh) {
    var ul = $("lines");
    item.lines.forEach(function (line) {
      var li = el("li", (item.raid ? "raid " : "") + (fresh ? "fresh" : ""), line);
      li.setAttribute("data-round", String(item.round));
      ul.appendChild(li);
    });
    var box = $("story");
    box.scrollTop = box.scrollHeight;
  }

  function clearFresh() {
    document.querySelectorAll("#lines li.fresh").forEach(function (li) {
      li.classList.remove("fresh");
    });
  }

  // ------------------------------------------------------------------ deciding
  function clearChoices() {
    document.querySelectorAll(".border-card.choosable").forEach(function (c) {
      c.classList.remove("choosable");
      c.removeAttribute("data-place-option");
      c.removeAttribute("tabindex");
      c.removeAttribute("role");
      c.removeAttribute("title");
    });
  }

  function showDecision(d) {
    clearChoices();
    var box = $("decision"), opts = $("options");
    opts.textContent = "";
    if (!d) { box.hidden = true; seq = -1; return; }
    seq = d.seq;
    box.hidden = false;
    box.setAttribute("data-seq", String(d.seq));
    box.setAttribute("data-type", d.type);
    $("title").textContent = d.title;
    var onBoard = false;
    d.options.forEach(function (o) {
      var b = el("button", "option", o.text);
      b.type = "button";
      b.setAttribute("data-decision", d.type);
      b.setAttribute("data-option", String(o.index));
      b.addEventListener("click", function () { answer(o.index); });
      opts.appendChild(b);
      if (o.place !== undefined) {
        var card = document.querySelector(".border-card[data-pos='" + (o.place + 1) + "']");
        card.classList.add("choosable");
        card.setAttribute("data-place-option", String(o.index));
        card.setAttribute("tabindex", "0");
        card.setAttribute("role", "button");
        card.title = o.text;
        onBoard = true;
      }
    });
    $("hint").textContent = onBoard ? "Click a highlighted border card, or a button." : "";
  }

  $("board").addEventListener("click", function (e) {
    var card = e.target.closest && e.target.closest(".border-card.choosable");
    if (card && !busy) { answer(Number(card.getAttribute("data-place-option"))); }
  });
  $("board").addEventListener("keydown", function (e) {
    var card = e.target.closest && e.target.closest(".border-card.choosable");
    if (card && !busy && (e.key === "Enter" || e.key === " ")) {
      e.preventDefault();
      answer(Number(card.getAttribute("data-place-option")));
    }
  });

  function showResult(game) {
    var over = game.over, box = $("result");
    if (!over) {
      box.hidden = true;
      box.removeAttribute("data-game-over");
      return;
    }
    box.hidden = false;
    box.setAttribute("data-game-over", over.result);
    var you = over.scores[setup.human], bot = over.scores[1 - setup.human];
    $("result-title").textContent = {won: "You won", lost: "You lost", draw: "A draw"}[over.result] +
      ", " + you + " to " + bot;
    var b = over.breakdown[setup.human];
    $("result-text").textContent = over.text + " Your " + you + ": " + b.tokens + " VP tokens + " +
      b.card_vp + " card VP + " + b.ability_vp + " ability VP + " + b.row_bonus + " row bonus.";
    $("result-saved").textContent = over.saved ? ("Saved as game " + game.id + " of " +
      over.saved.out + " (" + over.saved.games + " finished games): targi-sim report " +
      over.saved.out) : "";
  }

  function render(state) {
    if (!setup) { build(state.setup); }
    var g = state.game;
    $("sub").textContent = "Deck " + setup.deck_name + ", rules " + setup.rules_name +
      ", seed " + setup.seed + " · games are saved in " + setup.out + " (" +
      state.games_finished + " finished)" + (g ? " · game " + g.id + ", seat " +
      g.first_player + " starts round 1" + (g.resumed ? " · resumed where you left it" : "") : "");
    if (!g) { return; }
    document.body.setAttribute("data-game", String(g.id));
    draw(g.view);
    showDecision(g.decision);
    showResult(g);
  }

  function renderLog(log) {
    $("lines").textContent = "";
    log.forEach(function (item) { addLines(item, false); });
  }

  // ------------------------------------------------------------------ playing
  function wait(ms) {
    return new Promise(function (resolve) {
      if (ms <= 0 || skipping) { resolve(); return; }
      var t = setTimeout(resolve, ms);
      $("skip").onclick = function () { skipping = true; clearTimeout(t); resolve(); };
    });
  }

  function animate(frames) {
    var ms = Number($("speed").value) || 0;
    skipping = false;
    var chain = Promise.resolve();
    frames.forEach(function (f, i) {
      chain = chain.then(function () {
        draw(f.view);
        addLines(f, true);
        return i < frames.length - 1 ? wait(ms) : null;
      });
    });
    return chain;
  }

  function answer(index) {
    if (busy || seq < 0) { return; }
    showError("");
    clearFresh();
    setBusy(true, setup.bot + " is thinking...");
    clearChoices();
    api("POST", "api/answer", {seq: seq, option: index}).then(function (res) {
      setBusy(true, "");
      return animate(res.frames).then(function () { return res.state; });
    }).then(function (state) {
      render(state);
      setBusy(false);
    }).catch(function (err) {
      showError(err.message);
      setBusy(false);
      return api("GET", "api/state").then(render).catch(function () { return null; });
    });
  }

  function newGame() {
    if (busy) { return; }
    showError("");
    setBusy(true, "dealing...");
    api("POST", "api/new", {}).then(function (state) {
      renderLog(state.game.log);
      render(state);
      setBusy(false);
    }).catch(function (err) { showError(err.message); setBusy(false); });
  }

  $("next-game").addEventListener("click", newGame);
  $("speed").addEventListener("change", function () {
    localStorage.setItem(SPEED_KEY, $("speed").value);
  });

  api("GET", "api/state").then(function (state) {
    if (!state.game) { return api("POST", "api/new", {}); }
    return state;
  }).then(function (state) {
    render(state);
    renderLog(state.game.log);
    setBusy(false);
  }).catch(function (err) { showError(err.message); setBusy(false); });
})();
