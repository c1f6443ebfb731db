/* viewer.js: the game viewer of gt-report(1)'s page. It fetches nothing:
 * each game is a <figure class="game"> of the page whose data-size (the
 * board's size), data-setup and data-play (space-separated tokens: B or W,
 * then the point as in SGF, column then row from the top, 'a' = 0; a pass
 * is the colour alone) gt-report wrote from the game's record. It fills
 * <div id="viewer">: an SVG board, buttons to step through the game
 * (first, back, forward, last; the arrow keys, Home and End when the board
 * has the focus), and a "Replay" button under each game. Captures as in
 * Tromp-Taylor rules: the opponent's strings without liberties are
 * removed, then the mover's own (suicide). Without JavaScript the page
 * shows each game's final position and its SGF file instead. */
(function () {
	"use strict";
	var NS = "http://www.w3.org/2000/svg";
	var box = document.getElementById("viewer");
	var figs = document.querySelectorAll("figure.game");
	if (!box || !figs.length || !document.createElementNS)
		return;

	function tokens(s) {
		var out = [], t = (s || "").split(" ");
		for (var i = 0; i < t.length; i++) {
			var c = t[i].charAt(0);
			if (c !== "B" && c !== "W")
				continue;
			var p = null;
			if (t[i].length === 3)
				p = [t[i].charCodeAt(1) - 97, t[i].charCodeAt(2) - 97];
			out.push({ c: c === "B" ? 1 : 2, p: p });
		}
		return out;
	}

	/* play: colour c at point p (x + y * n) on board b (a copy is
	 * returned): the opponent's strings left without liberties are
	 * removed, then the mover's own */
	function play(b, n, c, p) {
		b = b.slice();
		b[p] = c;
		function string(q) {
			var col = b[q], seen = {}, stack = [q], pts = [], libs = 0;
			seen[q] = true;
			while (stack.length) {
				var r = stack.pop(), x = r % n, y = (r - x) / n;
				pts.push(r);
				var nb = [];
				if (x > 0) nb.push(r - 1);
				if (x < n - 1) nb.push(r + 1);
				if (y > 0) nb.push(r - n);
				if (y < n - 1) nb.push(r + n);
				for (var i = 0; i < nb.length; i++) {
					var s = nb[i];
					if (seen[s])
						continue;
					if (b[s] === 0) {
						seen[s] = true;
						libs++;
					} else if (b[s] === col) {
						seen[s] = true;
						stack.push(s);
					}
				}
			}
			return { pts: pts, libs: libs };
		}
		var x = p % n, y = (p - x) / n, nb = [];
		if (x > 0) nb.push(p - 1);
		if (x < n - 1) nb.push(p + 1);
		if (y > 0) nb.push(p - n);
		if (y < n - 1) nb.push(p + n);
		for (var i = 0; i < nb.length; i++) {
			if (b[nb[i]] === 3 - c) {
				var g = string(nb[i]);
				if (g.libs === 0)
					for (var j = 0; j < g.pts.length; j++)
						b[g.pts[j]] = 0;
			}
		}
		var own = string(p);
		if (own.libs === 0)
			for (var k = 0; k < own.pts.length; k++)
				b[own.pts[k]] = 0;
		return b;
	}

	function el(name, attrs, parent) {
		var e = document.createElementNS(NS, name);
		for (var a in attrs)
			e.setAttribute(a, attrs[a]);
		if (parent)
			parent.appendChild(e);
		return e;
	}

	function button(label, title, step) {
		var b = document.createElement("button");
		b.type = "button";
		b.textContent = label;
		b.title = title;
		b.setAttribute("aria-label", title);
		b.setAttribute("data-step", step);
		return b;
	}

	var game = null, at = 0;
	box.textContent = "";
	var title = document.createElement("p");
	title.className = "vtitle";
	box.appendChild(title);
	var svg = el("svg", { "class": "board", role: "img" });
	box.appendChild(svg);
	var bar = document.createElement("div");
	bar.className = "vbar";
	var steps = [button("\u23ee", "first move", "first"), button("\u25c0", "back one move", "back"),
	             button("\u25b6", "forward one move", "next"), button("\u23ed", "last move", "last")];
	for (var i = 0; i < steps.length; i++)
		bar.appendChild(steps[i]);
	var count = document.createElement("span");
	count.className = "vcount";
	bar.appendChild(count);
	box.appendChild(bar);
	svg.setAttribute("tabindex", "0");

	function load(fig) {
		var n = parseInt(fig.getAttribute("data-size"), 10);
		if (!(n >= 2 && n <= 25))
			return;
		var b = [], pos = [], moves = tokens(fig.getAttribute("data-play")), setup = tokens(fig.getAttribute("data-setup"));
		for (var k = 0; k < n * n; k++)
			b.push(0);
		for (var s = 0; s < setup.length; s++)
			if (setup[s].p && setup[s].p[0] < n && setup[s].p[1] < n)
				b[setup[s].p[0] + n * setup[s].p[1]] = setup[s].c;
		pos.push(b);
		for (var m = 0; m < moves.length; m++) {
			var p = moves[m].p;
			if (p && p[0] >= 0 && p[0] < n && p[1] >= 0 && p[1] < n)
				b = play(b, n, moves[m].c, p[0] + n * p[1]);
			pos.push(b);
		}
		game = { n: n, moves: moves, pos: pos };
		title.textContent = "Replaying " + (fig.getAttribute("data-title") || "a game");
		show(0);
	}

	function show(k) {
		if (!game)
			return;
		at = Math.max(0, Math.min(k, game.moves.length));
		var n = game.n, b = game.pos[at];
		while (svg.firstChild)
			svg.removeChild(svg.firstChild);
		svg.setAttribute("viewBox", "0 0 " + (n + 1) + " " + (n + 1));
		el("rect", { width: n + 1, height: n + 1, fill: "#dcb35c" }, svg);
		var d = "";
		for (var i = 1; i <= n; i++)
			d += "M1 " + i + "H" + n + "M" + i + " 1V" + n;
		el("path", { d: d, stroke: "#000", "stroke-width": 0.04 }, svg);
		var stars = n >= 13 ? [3, (n - 1) / 2, n - 4] : n >= 7 ? [2, (n - 1) / 2, n - 3] : [];
		for (var a = 0; a < stars.length; a++)
			for (var c = 0; c < stars.length; c++)
				if (stars[a] === Math.floor(stars[a]) && stars[c] === Math.floor(stars[c]))
					el("circle", { cx: stars[a] + 1, cy: stars[c] + 1, r: 0.1, fill: "#000" }, svg);
		for (var p = 0; p < n * n; p++) {
			if (!b[p])
				continue;
			el("circle", { "class": "stone " + (b[p] === 1 ? "b" : "w"), cx: p % n + 1, cy: Math.floor(p / n) + 1,
			               r: 0.47, fill: b[p] === 1 ? "#000" : "#fff", stroke: "#000", "stroke-width": 0.04 }, svg);
		}
		var last = at > 0 ? game.moves[at - 1] : null;
		if (last && last.p && b[last.p[0] + n * last.p[1]])
			el("circle", { "class": "last", cx: last.p[0] + 1, cy: last.p[1] + 1, r: 0.22, fill: "none",
			               stroke: last.c === 1 ? "#fff" : "#000", "stroke-width": 0.08 }, svg);
		var what = at === 0 ? "start" : (last.c === 1 ? "Black " : "White ") +
			(last.p ? String.fromCharCode(65 + last.p[0] + (last.p[0] >= 8 ? 1 : 0)) + (n - last.p[1]) : "passes");
		count.textContent = "move " + at + " of " + game.moves.length + " (" + what + ")";
		svg.setAttribute("aria-label", "the board after move " + at);
	}

	bar.addEventListener("click", function (ev) {
		var s = ev.target.getAttribute && ev.target.getAttribute("data-step");
		if (s === "first") show(0);
		else if (s === "back") show(at - 1);
		else if (s === "next") show(at + 1);
		else if (s === "last") show(game ? game.moves.length : 0);
	});
	svg.addEventListener("keydown", function (ev) {
		var k = ev.key;
		if (k === "ArrowRight") show(at + 1);
		else if (k === "ArrowLeft") show(at - 1);
		else if (k === "Home") show(0);
		else if (k === "End") show(game ? game.moves.length : 0);
		else return;
		ev.preventDefault();
	});
	for (var f = 0; f < figs.length; f++) {
		(function (fig) {
			var cap = fig.querySelector("figcaption");
			var r = document.createElement("button");
			r.type = "button";
			r.className = "replay";
			r.textContent = "Replay";
			r.addEventListener("click", function () {
				load(fig);
				box.scrollIntoView({ block: "nearest" });
				svg.focus();
			});
			(cap || fig).appendChild(r);
		})(figs[f]);
	}
	box.hidden = false;
	load(figs[0]);
})();
