"use strict";
// delta memory visualize: draws the page from the JSON in #memory-data.
// Journal text is untrusted: it only ever reaches the page as text nodes.
(function () {
  var data = JSON.parse(document.getElementById("memory-data").textContent);
  var blocks = Object.create(null); // no inherited keys: ids come from the data and the URL
  data.blocks.forEach(function (b) { blocks[b.id] = b; });
  var SHADES = ["L0", "L1", "L2", "L3", "L4", "pinned", "recalled"];
  var SHADE_TEXT = {
    L0: "L0 in full", L1: "L1 lines", L2: "L2 summary", L3: "L3 chapter", L4: "L4 phase",
    pinned: "pinned", recalled: "recalled"
  };
  var PART_TEXT = {
    static: "Static", long_term: "Long-term", short_term: "Short-term",
    state: "Run state", working: "Working", retrieved: "Retrieved", dynamic: "Dynamic"
  };
  var REASON_TEXT = { explicit: "explicit", implicit: "implicit", error: "error" };
  var selected = null;
  var nodes = Object.create(null); // block id -> tree row button
  var items = Object.create(null); // block id -> tree <li>
  var tracks = [];     // timeline rows: {el, first, last}
  var perRow = 1;

  // el makes an element; children are nodes or strings (as text).
  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        var v = attrs[k];
        if (k === "class") e.className = v;
        else if (k === "text") e.textContent = v;
        else if (k === "on") Object.keys(v).forEach(function (t) { e.addEventListener(t, v[t]); });
        else e.setAttribute(k, v);
      });
    }
    (children || []).forEach(function (c) {
      if (c === null || c === undefined) return;
      e.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
    });
    return e;
  }
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); return e; }
  function fmt(n) { return Number(n).toLocaleString("en-US"); }
  function range(a, b) { return a === b ? String(a) : a + "–" + b; }
  function plural(n, one, many) { return fmt(n) + " " + (n === 1 ? one : many); }
  // stamp shortens an RFC 3339 time to "2025-10-02 10:00:04"; "" for none.
  function stamp(t) {
    if (!t || t.indexOf("0001-") === 0) return "";
    return t.replace("T", " ").replace(/\.\d+/, "").replace(/Z$/, "");
  }

  // ---- header ----
  function header() {
    var r = data.run, w = data.window;
    document.getElementById("run-task").textContent = r.task || "";
    var facts = [
      ["status", r.status || "—"], ["iterations", fmt(r.iterations)], ["events", fmt(r.events)],
      ["tool calls", fmt(r.counts.calls) + (r.counts.failed_calls ? " (" + fmt(r.counts.failed_calls) + " failed)" : "")],
      ["blocks", fmt(data.blocks.length)], [w.native ? "memory file" : "window", fmt(w.tokens) + " / " + fmt(w.budget) + " tokens"]
    ];
    if (stamp(r.started_at)) facts.push(["time (UTC)", stamp(r.started_at) + " → " + stamp(r.ended_at)]);
    var ls = data.last_sync;
    if (ls) facts.push(["last sync", "iteration " + fmt(ls.iteration) + ": " + Math.round(1000 * ls.prefix_kept) / 10 + "% of the previous memory file kept as its prefix (about " +
      fmt(ls.cached_tokens_estimate) + " of " + fmt(ls.tokens) + " tokens a prompt cache reuses)" + (ls["break"] && ls["break"].partition ? "; first change in " + ls["break"].partition : "")]);
    var dl = document.getElementById("run-facts");
    facts.forEach(function (f) { dl.appendChild(el("div", null, [el("dt", { text: f[0] }), el("dd", { text: f[1] })])); });
  }

  // ---- timeline ----
  function segText(s) {
    var t = "iterations " + range(s.first, s.last) + ": " + SHADE_TEXT[s.shade];
    if (s.block) t += " · block " + s.block;
    else if (s.shade !== "pinned") t += " · Working";
    if (s.recall) t += " · recall #" + s.recall;
    return t;
  }
  function timeline() {
    var n = data.run.iterations;
    var counts = {};
    data.timeline.forEach(function (s) { counts[s.shade] = (counts[s.shade] || 0) + s.last - s.first + 1; });
    var legend = document.getElementById("legend");
    SHADES.forEach(function (k) {
      legend.appendChild(el("span", { "data-shade": k }, [el("i", { class: "sw s-" + k }), SHADE_TEXT[k], el("b", { text: fmt(counts[k] || 0) })]));
    });
    var box = document.getElementById("timeline");
    if (n === 0) { box.appendChild(el("p", { class: "hint", text: "No iterations yet." })); return; }
    // Rows of a round number of iterations, at most about a dozen rows.
    var steps = [10, 20, 25, 50, 100, 200, 250, 500];
    perRow = steps.find(function (s) { return Math.ceil(n / s) <= 12; });
    while (!perRow || Math.ceil(n / perRow) > 12) perRow = (perRow || 500) * 2;
    for (var first = 1; first <= n; first += perRow) {
      var last = Math.min(first + perRow - 1, n);
      var track = el("div", { class: "track" });
      box.appendChild(el("div", { class: "trow" }, [el("span", { class: "lab", text: fmt(first) }), track, el("span", { class: "lab end", text: fmt(last) })]));
      tracks.push({ el: track, first: first, last: first + perRow - 1 });
    }
    data.timeline.forEach(function (s, i) {
      tracks.forEach(function (t) {
        var a = Math.max(s.first, t.first), b = Math.min(s.last, t.last);
        if (a > b) return;
        var seg = el("button", {
          class: "seg s-" + s.shade, title: segText(s), "aria-label": segText(s), "data-seg": i,
          on: { click: function () { pickSegment(s); } }
        });
        seg.style.left = ((a - t.first) / perRow * 100) + "%";
        seg.style.width = ((b - a + 1) / perRow * 100) + "%";
        t.el.appendChild(seg);
      });
    });
  }
  function pickSegment(s) {
    var p = document.getElementById("timeline-pick");
    p.textContent = segText(s) + ".";
    if (s.block) select(s.block, true);
    else mark(s.first, s.last);
  }
  // mark outlines iterations a..b on the timeline.
  function mark(a, b) {
    Array.prototype.forEach.call(document.querySelectorAll(".mark"), function (m) { m.remove(); });
    if (a === null) return;
    tracks.forEach(function (t) {
      var x = Math.max(a, t.first), y = Math.min(b, t.last);
      if (x > y) return;
      var m = el("div", { class: "mark" });
      m.style.left = ((x - t.first) / perRow * 100) + "%";
      m.style.width = ((y - x + 1) / perRow * 100) + "%";
      t.el.appendChild(m);
    });
  }

  // ---- block tree ----
  function compareBlocks(a, b) { return a.first - b.first || b.level - a.level || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0); }
  function treeItem(b) {
    var kids = b.children.map(function (id) { return blocks[id]; }).filter(Boolean);
    var sub = null;
    var tog = el("button", { class: "tog" + (kids.length ? "" : " leaf"), "aria-label": "show the blocks it absorbed", text: "▸" });
    var node = el("button", {
      class: "node st-" + b.state, "data-block": b.id, role: "treeitem", title: b.id,
      on: { click: function () { select(b.id, false); } }
    }, [
      el("span", { class: "badge b-" + b.level, text: "L" + b.level }),
      el("span", { class: "rng", text: range(b.first, b.last) }),
      el("span", { class: "ttl", text: b.title || b.id }),
      b.state === "visible" ? null : el("span", { class: "tag " + b.state, text: b.state })
    ]);
    var li = el("li", null, [el("div", { class: "node-row" }, [tog, node])]);
    if (kids.length) {
      sub = el("ul", { role: "group", hidden: "" });
      kids.forEach(function (k) { sub.appendChild(treeItem(k)); });
      li.appendChild(sub);
      tog.addEventListener("click", function () { expand(li, sub.hidden); });
    }
    li._sub = sub; li._tog = tog;
    nodes[b.id] = node; items[b.id] = li;
    return li;
  }
  function expand(li, open) {
    if (!li._sub) return;
    li._sub.hidden = !open;
    li._tog.textContent = open ? "▾" : "▸";
  }
  function tree() {
    var ul = document.getElementById("tree");
    var roots = data.blocks.filter(function (b) { return !b.parent || !blocks[b.parent]; }).sort(compareBlocks);
    if (!roots.length) { ul.appendChild(el("li", { class: "hint", text: "Nothing folded yet: every iteration shows in full." })); return; }
    roots.forEach(function (b) { ul.appendChild(treeItem(b)); });
  }

  // ---- block detail ----
  function chips(list, cls) {
    return el("div", { class: "chips" }, list.map(function (t) { return el("span", { class: "chip " + (cls || ""), text: t }); }));
  }
  function section(title, body) { return [el("h4", { text: title }), body]; }
  function blockLink(id) {
    return el("button", { class: "link", text: id, on: { click: function () { select(id, true); } } });
  }
  function detail(b) {
    var box = clear(document.getElementById("detail"));
    var parts = [
      el("div", { class: "sub" }, [
        el("span", { class: "badge b-" + b.level, text: "L" + b.level }), el("span", { text: b.kind }),
        el("span", { class: "tag " + b.state, text: b.state }), el("span", { class: "num", text: b.id })
      ]),
      el("h3", { text: b.title || b.id }),
      el("p", { class: "sub" }, [
        "iterations " + range(b.first, b.last) + " (" + plural(b.last - b.first + 1, "iteration", "iterations") + ")",
        stamp(b.start) ? " · " + stamp(b.start) + " → " + stamp(b.end) : ""
      ])
    ];
    parts = parts.concat(section("Summary", el("pre", { class: "summary", text: b.content || "(empty)" })));
    if (b.outcome) parts = parts.concat(section("Outcome", el("p", { text: b.outcome })));
    if (b.keywords.length) parts = parts.concat(section("Keywords", chips(b.keywords)));
    if (b.entities.length) parts = parts.concat(section("Entities", chips(b.entities, "ent")));
    if (b.state_changes.length) parts = parts.concat(section("State changes", el("ul", { class: "plain" }, b.state_changes.map(function (s) { return el("li", { text: s }); }))));
    if (b.errors.length) parts = parts.concat(section("Errors", el("ul", { class: "plain err" }, b.errors.map(function (s) { return el("li", { text: s }); }))));
    if (b.pinned.length) parts = parts.concat(section("Pinned iterations (kept in detail)", chips(b.pinned.map(String))));
    var meta = [
      ["trigger", b.trigger], ["summarizer", b.summarizer], ["tokens", fmt(b.tokens)], ["importance", b.importance],
      ["accessed", plural(b.access_count, "time", "times")], ["made at iteration", fmt(b.created_iter)]
    ];
    if (b.llm && b.llm.calls) meta.push(["LLM", plural(b.llm.calls, "call", "calls") + ", " + fmt(b.llm.prompt_tokens) + " prompt + " + fmt(b.llm.completion_tokens) + " completion tokens"]);
    if (b.self_check) meta.push(["self-check", b.self_check]);
    var dl = el("dl", { class: "meta" });
    meta.forEach(function (m) { dl.appendChild(el("dt", { text: m[0] })); dl.appendChild(el("dd", { text: String(m[1]) })); });
    if (b.parent) { dl.appendChild(el("dt", { text: "absorbed by" })); dl.appendChild(el("dd", null, [blockLink(b.parent)])); }
    if (b.children.length) {
      var dd = el("dd");
      b.children.forEach(function (id, i) { if (i) dd.appendChild(document.createTextNode(", ")); dd.appendChild(blockLink(id)); });
      dl.appendChild(el("dt", { text: "absorbed" })); dl.appendChild(dd);
    }
    parts = parts.concat(section("Block", dl));
    parts.forEach(function (p) { box.appendChild(p); });
  }

  // select shows block id in the detail panel, marks it in the tree and on
  // the timeline, and (reveal) scrolls the tree to it.
  function select(id, reveal) {
    var b = blocks[id];
    if (!b) return;
    if (selected && nodes[selected]) nodes[selected].classList.remove("sel");
    selected = id;
    for (var p = b.parent; p && items[p]; p = blocks[p].parent) expand(items[p], true);
    nodes[id].classList.add("sel");
    if (reveal) nodes[id].scrollIntoView({ block: "nearest" });
    detail(b);
    mark(b.first, b.last);
    try { history.replaceState(null, "", "#block=" + encodeURIComponent(id)); } catch (e) { /* some file:// settings forbid it */ }
  }

  // ---- window ----
  function sourceLink(src) {
    var m = /^block:(.+)$/.exec(src);
    if (m && blocks[m[1]]) return el("button", { class: "link src", text: src, on: { click: function (ev) { ev.preventDefault(); select(m[1], true); } } });
    return el("span", { class: "src", text: src });
  }
  function windowView() {
    var w = data.window;
    document.getElementById("window-sum").textContent =
      (w.native ? "The memory file: " : "The whole window: ") +
      fmt(w.tokens) + " of " + fmt(w.budget) + " tokens (" + Math.round(100 * w.tokens / Math.max(1, w.budget)) + "%), counted with " + w.tokenizer +
      (w.native ? "; the " + w.native + " newest iterations, which the agent runtime shows itself, are not included." : ", every iteration included.");
    var bar = document.getElementById("budget-bar");
    var box = document.getElementById("partitions");
    w.partitions.forEach(function (p) {
      var part = el("div", { class: "p-" + p.name, title: PART_TEXT[p.name] + ": " + fmt(p.tokens) + " tokens" });
      part.style.width = (100 * p.tokens / Math.max(1, w.budget)) + "%";
      bar.appendChild(part);
      var fill = el("div", { class: "p-" + p.name });
      fill.style.width = Math.min(100, 100 * p.tokens / Math.max(1, p.budget)) + "%";
      var secs = el("div", { class: "secs" }, p.sections.length ? p.sections.map(function (s) {
        var d = el("details", { class: "sec" }, [el("summary", null, [s.name, sourceLink(s.source), el("span", { class: "src", text: fmt(s.tokens) + " tok" })])]);
        d.addEventListener("toggle", function () {
          if (d.open && d.children.length === 1) d.appendChild(el("pre", { text: s.content }));
        });
        return d;
      }) : [el("p", { class: "hint", text: "empty" })]);
      box.appendChild(el("details", { class: "part", "data-partition": p.name }, [
        el("summary", null, [
          el("span", { class: "pname" }, [el("i", { class: "sw p-" + p.name }), PART_TEXT[p.name] || p.name]),
          el("div", { class: "meter", title: fmt(p.tokens) + " of " + fmt(p.budget) + " tokens" }, [fill]),
          el("span", { class: "nums", text: fmt(p.tokens) + " / " + fmt(p.budget) + " · " + plural(p.sections.length, "section", "sections") })
        ]),
        secs
      ]));
    });
    if (w.omitted.length) {
      document.getElementById("omitted").appendChild(el("div", { class: "omitted" }, [
        "Shortened or left out to fit the budget:",
        el("ul", null, w.omitted.map(function (o) { return el("li", { text: o }); }))
      ]));
    }
  }

  // ---- recalls ----
  function why(r) {
    if (r.reason === "error") return "a failure names " + r.query;
    if (r.reason === "implicit") return "the agent named " + r.query;
    return "retrieve “" + r.query + "”";
  }
  function recallsView() {
    var rs = data.recalls, box = document.getElementById("recalls");
    var active = rs.filter(function (r) { return r.shown !== "expired"; }).length;
    document.getElementById("recalls-sum").textContent = data.recalls_total === 0 ? "No recalls yet." :
      plural(data.recalls_total, "recall", "recalls") + ", " + fmt(active) + " active" +
      (rs.length < data.recalls_total ? "; the newest " + fmt(rs.length) + " listed." : ".") +
      " Click one to see its range on the timeline.";
    if (!rs.length) return;
    var tbody = el("tbody");
    rs.forEach(function (r) {
      var tr = el("tr", { class: r.shown === "expired" ? "" : "act", "data-recall": r.id }, [
        el("td", { class: "num", text: "#" + r.id }),
        el("td", { class: "num", text: range(r.first, r.last) }),
        el("td", null, [el("span", { class: "tag r-" + r.reason, text: REASON_TEXT[r.reason] || r.reason })]),
        el("td", { class: "why", text: why(r) }),
        el("td", { class: "num", text: String(r.score) }),
        el("td", { class: "num", text: r.since + " → " + r.expires }),
        el("td", null, [el("span", { class: "tag sh-" + r.shown, text: r.shown })]),
        el("td", null, [r.block && blocks[r.block] ? blockLink(r.block) : el("span", { class: "hint", text: r.block || "—" })])
      ]);
      tr.addEventListener("click", function (ev) {
        if (ev.target.classList.contains("link")) return;
        mark(r.first, r.last);
        document.getElementById("timeline-pick").textContent = "recall #" + r.id + ": iterations " + range(r.first, r.last) + ", " + why(r) + ".";
        document.getElementById("timeline-card").scrollIntoView({ block: "nearest" });
      });
      tbody.appendChild(tr);
    });
    box.appendChild(el("div", { class: "scroll" }, [el("table", { class: "recalls" }, [
      el("thead", null, [el("tr", null, ["id", "iterations", "reason", "why", "score", "since → until", "shown", "block"].map(function (h) { return el("th", { text: h }); }))]),
      tbody
    ])]));
  }
  function bookmarksView() {
    if (!data.bookmarks.length) return;
    document.getElementById("bookmarks").appendChild(el("div", { class: "bookmarks" }, [
      el("h4", { text: "Bookmarks" }),
      el("ul", null, data.bookmarks.map(function (b) { return el("li", null, ["iteration " + b.iteration + (b.note ? ": " : ""), b.note]); }))
    ]));
  }

  header();
  timeline();
  tree();
  windowView();
  recallsView();
  bookmarksView();
  // #block=ID opens a block, so that a link can point at one.
  var want = /^#block=(.+)$/.exec(location.hash), id = null;
  try { id = want && decodeURIComponent(want[1]); } catch (e) { id = null; }
  if (id && blocks[id]) select(id, true);
})();
