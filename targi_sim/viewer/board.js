// targi-sim board drawing, shared by the game viewer (viewer.js) and the play page
// (targi_sim/web/play.js): the 5x5 board as in the rulebook's picture, pieces, tribe
// cards and displays. It draws positions it is given and knows no rule of the game.
var TargiDraw = (function () {
  "use strict";
  // border position (1..16) -> [row, col] on the 5x5 board; the centre is rows/cols 1..3
  var BOARD_POS = {16: [0, 0], 1: [0, 1], 2: [0, 2], 3: [0, 3], 4: [0, 4], 5: [1, 4], 6: [2, 4],
    7: [3, 4], 8: [4, 4], 9: [4, 3], 10: [4, 2], 11: [4, 1], 12: [4, 0], 13: [3, 0],
    14: [2, 0], 15: [1, 0]};
  var SEAT = ["A", "B"];
  var COLOUR = ["#1f5fa8", "#c0392b"];

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }

  // a Targi, a tribe marker or (seat < 0) the robber, as a small SVG with its seat letter
  function svgPiece(seat, kind, seatNames) {
    var ns = "http://www.w3.org/2000/svg";
    var s = document.createElementNS(ns, "svg");
    s.setAttribute("width", "18"); s.setAttribute("height", "18");
    s.setAttribute("viewBox", "0 0 18 18");
    var shape;
    if (kind === "targi") {
      shape = document.createElementNS(ns, "path");
      shape.setAttribute("d", "M9 1 a4 4 0 1 1 0.01 0 M3 17 L6 8 L12 8 L15 17 Z");
    } else if (kind === "marker") {
      shape = document.createElementNS(ns, "circle");
      shape.setAttribute("cx", "9"); shape.setAttribute("cy", "9"); shape.setAttribute("r", "7");
    } else {  // the robber
      shape = document.createElementNS(ns, "rect");
      shape.setAttribute("x", "1"); shape.setAttribute("y", "1");
      shape.setAttribute("width", "16"); shape.setAttribute("height", "16");
      shape.setAttribute("rx", "3");
    }
    shape.setAttribute("fill", seat < 0 ? "#222" : COLOUR[seat]);
    s.appendChild(shape);
    var t = document.createElementNS(ns, "text");
    t.setAttribute("x", "9"); t.setAttribute("y", kind === "targi" ? "16" : "13");
    t.setAttribute("text-anchor", "middle"); t.setAttribute("font-size", "9");
    t.setAttribute("fill", "#fff");
    t.textContent = seat < 0 ? "R" : SEAT[seat];
    s.appendChild(t);
    var wrap = el("span", "piece " + kind);
    if (seat >= 0) { wrap.setAttribute("data-seat", String(seat)); }
    wrap.title = seat < 0 ? "robber" : (kind + " of " + seatNames[seat]);
    wrap.appendChild(s);
    return wrap;
  }

  // a tribe card's face: name, symbol, VP and cost (deck.tribe[c] = [name, symbol, vp, cost])
  function tribeCard(box, deck, symbols, c) {
    var t = deck.tribe[c];
    box.appendChild(el("span", "name", t[0]));
    box.appendChild(document.createElement("br"));
    box.appendChild(el("span", "sym s" + t[1], symbols[t[1]]));
    box.appendChild(el("span", "vp", t[2] + " VP"));
    box.appendChild(el("span", "cost", t[3]));
    box.title = t[0] + ": " + symbols[t[1]] + ", " + t[2] + " VP, cost " + t[3];
  }

  // the board's 16 border cards and 9 centre cells, made once; returns what draw() fills
  function buildBoard(board, deck) {
    var cells = {};
    Object.keys(BOARD_POS).forEach(function (pos) {
      var rc = BOARD_POS[pos];
      var c = el("div", "cell border-card");
      c.style.gridRow = String(rc[0] + 1); c.style.gridColumn = String(rc[1] + 1);
      c.setAttribute("data-pos", pos);
      var b = deck.border[pos - 1];
      if (b[1] === "raid") { c.classList.add("raidcard"); }
      c.appendChild(el("span", "num", pos));
      c.appendChild(el("span", "bname", b[0]));
      c.appendChild(el("span", "kind", b[1].replace("_", " ")));
      var pieces = el("div", "pieces");
      c.appendChild(pieces);
      board.appendChild(c);
      cells["b" + pos] = pieces;
    });
    for (var k = 0; k < 9; k++) {
      var c = el("div", "cell centre");
      c.style.gridRow = String(Math.floor(k / 3) + 2); c.style.gridColumn = String(k % 3 + 2);
      c.setAttribute("data-cell", String(k));
      board.appendChild(c);
      cells["c" + k] = c;
    }
    return cells;
  }

  // pos: {robber: 0..15, targi: [owner seat or -1, per border position 0..15],
  //       cells: [[type (-1 empty, 0 goods, 1 tribe), face up 0/1, card id (-1 none, -2
  //       a face-down card the page is not told), marker seat or -1], per centre cell 0..8]}
  function drawBoard(cells, deck, symbols, seatNames, pos) {
    var robber = pos.robber + 1;
    Object.keys(BOARD_POS).forEach(function (p) {
      var pieces = cells["b" + p];
      var card = pieces.parentNode;
      pieces.textContent = "";
      card.classList.toggle("robber", Number(p) === robber);
      card.toggleAttribute("data-robber", Number(p) === robber);
      if (Number(p) === robber) { pieces.appendChild(svgPiece(-1, "robber", seatNames)); }
      var owner = pos.targi[p - 1];
      if (owner >= 0) { pieces.appendChild(svgPiece(owner, "targi", seatNames)); }
    });
    for (var k = 0; k < 9; k++) {
      var c = cells["c" + k];
      c.textContent = "";
      c.className = "cell centre";
      var type = pos.cells[k][0], up = pos.cells[k][1], card = pos.cells[k][2];
      if (type < 0 || (card < 0 && card !== -2)) {
        c.classList.add("empty"); c.appendChild(el("span", "", "empty"));
      } else if (!up) {
        c.classList.add("down");
        c.appendChild(el("span", "", type === 1 ? "tribe card, face down" : "goods card, face down"));
      } else if (type === 1) {
        tribeCard(c, deck, symbols, card);
      } else {
        c.appendChild(el("span", "kind", "goods"));
        c.appendChild(el("span", "name", deck.goods[card]));
      }
      var m = pos.cells[k][3];
      if (m >= 0) {
        var pc = el("div", "pieces"); pc.appendChild(svgPiece(m, "marker", seatNames));
        c.appendChild(pc);
      }
    }
  }

  // a display's 12 slots (3 rows of 4): card ids, -1 for an empty slot
  function drawDisplay(slots, deck, symbols, display) {
    for (var i = 0; i < 12; i++) {
      var slot = slots[i];
      slot.textContent = "";
      slot.className = "slot";
      var d = display[i];
      if (d >= 0) { slot.classList.add("card"); tribeCard(slot, deck, symbols, d); } else { slot.title = ""; }
    }
  }

  return {BOARD_POS: BOARD_POS, SEAT: SEAT, COLOUR: COLOUR, el: el, svgPiece: svgPiece,
    tribeCard: tribeCard, buildBoard: buildBoard, drawBoard: drawBoard,
    drawDisplay: drawDisplay};
})();
