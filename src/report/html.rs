//! HTML rendering of a [`Report`]: everything server-side, JavaScript only for sorting and
//! filtering, no external resource of any kind.

use super::analysis::{InfosetRow, Num};
use super::charts::action_color;
use super::scene::{escape, hex};
use super::{exact_text, rational_text, Report};
use crate::scalar::rational_to_f64;
use std::fmt::Write as _;

const STYLE: &str = r#"
:root { --fg:#1d1d1f; --muted:#666; --line:#ddd; --bg:#fafafa; }
* { box-sizing: border-box; }
body { font-family: Helvetica, Arial, sans-serif; color: var(--fg); margin: 0; background: #fff; }
header { background: #1f3b57; color: #fff; padding: 18px 28px; }
header h1 { margin: 0; font-size: 22px; }
header p { margin: 4px 0 0; color: #cfe0f0; font-size: 13px; }
main { padding: 10px 28px 40px; max-width: 1400px; }
h2 { font-size: 18px; border-bottom: 2px solid #1f3b57; padding-bottom: 4px; margin-top: 28px; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: middle; }
th { background: var(--bg); position: sticky; top: 0; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.exact { font-family: monospace; font-size: 12px; max-width: 520px; overflow-wrap: anywhere; }
#summary th { position: static; width: 260px; }
.note { color: var(--muted); font-size: 13px; max-width: 1000px; }
.warn { color: #8a3b00; }
figure { margin: 16px 0 28px; }
figure svg { max-width: 100%; height: auto; border: 1px solid var(--line); }
figcaption { font-size: 13px; color: var(--muted); max-width: 900px; margin-top: 6px; }
.bar { display: flex; width: 180px; height: 12px; border: 1px solid #bbb; background: #fff; }
.bar span { display: block; height: 100%; }
.probs { font-size: 11px; color: var(--muted); margin-top: 2px; }
.br { font-weight: bold; }
#controls { margin: 8px 0; font-size: 13px; }
#controls input { font-size: 13px; padding: 3px 6px; width: 260px; }
th[data-sort] { cursor: pointer; }
th[data-sort]::after { content: " \2195"; color: #999; }
#js-errors { color: #b00; }
"#;

const SCRIPT: &str = r#"
(function () {
  var table = document.getElementById('infosets');
  if (table) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var controls = document.getElementById('controls');
    var input = document.createElement('input');
    input.type = 'search';
    input.id = 'filter';
    input.placeholder = 'filter by label (substring)';
    var player = document.createElement('select');
    player.id = 'player-filter';
    ['both players', '1', '2'].forEach(function (t, i) {
      var o = document.createElement('option');
      o.value = String(i);
      o.textContent = i === 0 ? t : 'player ' + t + ' only';
      player.appendChild(o);
    });
    var count = document.createElement('span');
    count.id = 'shown-count';
    function apply() {
      var q = input.value.toLowerCase();
      var p = player.value;
      var shown = 0;
      rows.forEach(function (r) {
        var ok = r.getAttribute('data-label').toLowerCase().indexOf(q) >= 0 &&
          (p === '0' || r.getAttribute('data-player') === p);
        r.hidden = !ok;
        if (ok) shown++;
      });
      count.textContent = ' ' + shown + ' of ' + rows.length + ' rows shown';
    }
    input.addEventListener('input', apply);
    player.addEventListener('change', apply);
    controls.appendChild(document.createTextNode('Filter: '));
    controls.appendChild(input);
    controls.appendChild(document.createTextNode(' '));
    controls.appendChild(player);
    controls.appendChild(count);
    apply();
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, col) {
      var kind = th.getAttribute('data-sort');
      if (!kind) return;
      th.addEventListener('click', function () {
        var desc = th.getAttribute('data-dir') !== 'desc';
        th.setAttribute('data-dir', desc ? 'desc' : 'asc');
        var key = function (r) {
          var c = r.cells[col];
          return kind === 'num' ? parseFloat(c.getAttribute('data-v')) : c.textContent;
        };
        rows.sort(function (a, b) {
          var x = key(a), y = key(b);
          var c = kind === 'num' ? x - y : (x < y ? -1 : x > y ? 1 : 0);
          return desc ? -c : c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  }
  var status = document.getElementById('js-status');
  status.textContent = 'ready';
})();
"#;

/// Decimal shown for a float: 12 significant digits, plain where it reads well.
fn dec(x: f64) -> String {
    if x == 0.0 {
        "0".into()
    } else if x.abs() >= 1e-4 && x.abs() < 1e6 {
        let s = format!("{x:.12}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        s.to_string()
    } else {
        format!("{x:.6e}")
    }
}

/// A short decimal for table cells.
fn dec_short(x: f64) -> String {
    if x == 0.0 {
        "0".into()
    } else if x.abs() >= 1e-3 {
        let s = format!("{x:.4}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        format!("{x:.2e}")
    }
}

fn num_row(out: &mut String, key: &str, label: &str, n: &Num) {
    let exact = n.exact.as_deref().unwrap_or("");
    let _ = write!(
        out,
        "<tr data-key=\"{key}\" data-exact=\"{}\" data-float=\"{:e}\"><th>{}</th>\
         <td class=\"exact\">{}</td><td class=\"num\">{}</td></tr>",
        escape(exact),
        n.float,
        escape(label),
        if exact.is_empty() {
            "(not computed exactly)".to_string()
        } else {
            escape(&exact_text(exact))
        },
        dec(n.float)
    );
}

/// Renders the whole page.
pub fn render(r: &Report) -> String {
    let mut h = String::with_capacity(64 * 1024 + r.max_rows * 600);
    head(&mut h, r);
    summary(&mut h, r);
    pictures(&mut h, r);
    infosets(&mut h, r);
    study_sections(&mut h, r);
    let _ = writeln!(
        h,
        "<p class=\"note\">Page status: <span id=\"js-status\">static (JavaScript off)</span>.</p>\
         </main><script>{SCRIPT}</script></body></html>"
    );
    h
}

/// The page's head (title, error catcher, style) and header.
fn head(h: &mut String, r: &Report) {
    let f = &r.facts;
    let names = &f.players;
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>bluff report: {spec}</title>\
         <script>window.onerror = function (m, s, l, c) {{ var e = document.getElementById('js-errors'); \
         if (e) {{ e.hidden = false; e.textContent += m + ' (line ' + l + ':' + c + ')\\n'; }} }};\
         (function () {{ var orig = console.error; console.error = function () {{ \
         var e = document.getElementById('js-errors'); if (e) {{ e.hidden = false; \
         e.textContent += Array.prototype.join.call(arguments, ' ') + '\\n'; }} \
         return orig.apply(console, arguments); }}; }})();</script>\
         <style>{STYLE}</style></head><body>\
         <header><h1>bluff report: {spec}</h1><p>{game} &middot; {n1} vs {n2} &middot; \
         generated by bluff {version}</p></header><main>\
         <pre id=\"js-errors\" hidden></pre>",
        spec = escape(&r.spec),
        game = escape(&f.name),
        n1 = escape(&names[0]),
        n2 = escape(&names[1]),
        version = env!("CARGO_PKG_VERSION"),
    );
}

/// The summary: the game, its size and the profile's values.
fn summary(h: &mut String, r: &Report) {
    let f = &r.facts;
    let e = &r.analysis.evaluation;
    let names = &f.players;
    h.push_str("<h2 id=\"summary-heading\">Summary</h2>");
    let _ = write!(h, "<p class=\"note\">{}</p>", escape(&r.provenance));
    let _ = write!(
        h,
        "<p class=\"note\">{}</p>",
        if e.exact {
            "Every figure below was computed exactly in rational arithmetic (src/eval.rs); the \
             decimal column is the exact value rounded."
        } else {
            "Figures below were computed in f64 (src/eval.rs; sums of products of probabilities, \
             rounding error far below 1e-9) because the strategy is a float strategy or the \
             game is too large for exact evaluation of the report; there is no exact column."
        }
    );
    h.push_str("<table id=\"summary\"><tbody>");
    let row = |h: &mut String, label: &str, value: String| {
        let _ = write!(
            h,
            "<tr><th>{}</th><td colspan=\"2\">{value}</td></tr>",
            escape(label)
        );
    };
    row(
        h,
        "game",
        format!("{} ({})", escape(&r.spec), escape(&f.name)),
    );
    row(
        h,
        "players",
        format!("1: {} &middot; 2: {}", escape(&names[0]), escape(&names[1])),
    );
    row(
        h,
        "size",
        format!(
            "{} nodes, {} terminals; information sets {} + {} = {}; sequences {} + {}",
            f.nodes,
            f.terminals,
            f.infosets[0],
            f.infosets[1],
            f.infosets[0] + f.infosets[1],
            f.sequences[0],
            f.sequences[1]
        ),
    );
    row(
        h,
        &format!("payoff range of {}", names[0]),
        format!(
            "{} .. {} (payoffs sum to {} at every terminal)",
            escape(&rational_text(&f.payoff_range.0)),
            escape(&rational_text(&f.payoff_range.1)),
            escape(&rational_text(&f.constant_sum))
        ),
    );
    h.push_str("<tr><th></th><th>exact</th><th class=\"num\">decimal</th></tr>");
    match &r.known_value {
        Some(k) => {
            let exact = crate::scalar::format_rational(&k.value);
            let _ = write!(
                h,
                "<tr data-key=\"game_value_p1\" data-exact=\"{}\"><th>game value for {} ({})</th>\
                 <td class=\"exact\">{}</td><td class=\"num\">{}</td></tr>",
                escape(&exact),
                escape(&names[0]),
                escape(&k.how),
                escape(&exact_text(&exact)),
                dec(rational_to_f64(&k.value))
            );
        }
        None => row(
            h,
            "game value",
            "not known exactly (the game is too large for the exact LP)".into(),
        ),
    }
    num_row(
        h,
        "value_p1",
        &format!("{} value under the profile", names[0]),
        &e.value[0],
    );
    num_row(
        h,
        "value_p2",
        &format!("{} value under the profile", names[1]),
        &e.value[1],
    );
    num_row(
        h,
        "best_response_value_p1",
        &format!("{} best-response value", names[0]),
        &e.best_response_value[0],
    );
    num_row(
        h,
        "best_response_value_p2",
        &format!("{} best-response value", names[1]),
        &e.best_response_value[1],
    );
    num_row(h, "nash_conv", "NashConv", &e.nash_conv);
    num_row(
        h,
        "exploitability",
        "exploitability (NashConv / 2)",
        &e.exploitability,
    );
    h.push_str("</tbody></table>");
}

/// The pictures and the notes beside them.
fn pictures(h: &mut String, r: &Report) {
    if !r.pictures.is_empty() || !r.notes.is_empty() {
        h.push_str("<h2 id=\"pictures-heading\">Pictures</h2>");
    }
    for p in &r.pictures {
        let _ = write!(
            h,
            "<figure id=\"fig-{id}\" class=\"picture\"><h3>{title}</h3>{svg}\
             <figcaption>{caption}</figcaption></figure>",
            id = escape(&p.id),
            title = escape(&p.title),
            svg = p.scene.to_svg(&p.title),
            caption = escape(&p.caption)
        );
    }
    for n in &r.notes {
        let _ = write!(h, "<p class=\"note warn\">{}</p>", escape(n));
    }
}

/// The information sets' table, biggest leaks first, up to the report's row limit.
fn infosets(h: &mut String, r: &Report) {
    let names = &r.facts.players;
    let locked: [std::collections::HashSet<&str>; 2] = [0, 1].map(|p| {
        r.locked
            .as_ref()
            .map(|l| l[p].iter().map(String::as_str).collect())
            .unwrap_or_default()
    });
    let rows = &r.analysis.rows;
    let shown = rows.len().min(r.max_rows);
    h.push_str("<h2 id=\"infosets-heading\">Information sets, biggest leaks first</h2>");
    h.push_str(
        "<p class=\"note\"><b>reach</b>: probability that play reaches the set when both \
         players (and chance) follow the profile. <b>best response</b>: the action of an exact \
         best response to the opponent's strategy (ties go to the first action, so it may differ from an equilibrium's own choice at no cost). <b>local regret</b>: what the acting player \
         would gain in expected payoff by changing its play at this set alone (best single action \
         there, everything else unchanged), i.e. its own reach probability times (best \
         counterfactual action value minus the profile's). Zero at every set of an exact \
         equilibrium.</p>",
    );
    let _ = write!(
        h,
        "<p class=\"note\" id=\"row-count\" data-shown=\"{shown}\" data-total=\"{}\">",
        rows.len()
    );
    if shown < rows.len() {
        let left = &rows[shown..];
        let positive = left.iter().filter(|x| x.local_regret.float > 0.0).count();
        let total: f64 = left.iter().map(|x| x.local_regret.float).sum();
        let _ = write!(
            h,
            "Showing the {shown} sets with the largest local regret of {} ({} of player 1, {} of \
             player 2). Left out: {} sets ({} of player 1, {} of player 2), {} of them with \
             positive local regret, together {}; the largest left out is {}.",
            rows.len(),
            rows[..shown].iter().filter(|x| x.player == 0).count(),
            rows[..shown].iter().filter(|x| x.player == 1).count(),
            left.len(),
            left.iter().filter(|x| x.player == 0).count(),
            left.iter().filter(|x| x.player == 1).count(),
            positive,
            dec(total),
            dec(left[0].local_regret.float)
        );
    } else {
        let _ = write!(h, "All {} information sets.", rows.len());
    }
    h.push_str("</p><div id=\"controls\"><noscript>(Sorting and filtering need JavaScript; the table is sorted by local regret.)</noscript></div>");
    h.push_str(
        "<table id=\"infosets\"><thead><tr><th data-sort=\"num\" class=\"num\">#</th>\
         <th data-sort=\"text\">player</th><th data-sort=\"text\">information set</th>\
         <th data-sort=\"num\" class=\"num\">reach</th><th>strategy</th>\
         <th data-sort=\"text\">best response</th>\
         <th data-sort=\"num\" class=\"num\">local regret</th></tr></thead><tbody>",
    );
    for (rank, row) in rows[..shown].iter().enumerate() {
        let is_locked = locked[row.player].contains(row.label.as_str());
        infoset_row(h, rank, row, names, is_locked);
    }
    h.push_str("</tbody></table>");
}

/// One information set's row: its reach, strategy bar, best response and local regret, the
/// set marked when a lock fixed it.
fn infoset_row(h: &mut String, rank: usize, row: &InfosetRow, names: &[String], locked: bool) {
    let mut bar = String::new();
    let mut text = Vec::new();
    for (a, &p) in row.actions.iter().zip(&row.probs) {
        let pct = (p * 100.0).clamp(0.0, 100.0);
        if pct > 0.0 {
            let _ = write!(
                bar,
                "<span style=\"width:{pct:.2}%;background:{}\" title=\"{}: {}\"></span>",
                hex(action_color(a)),
                escape(a),
                dec_short(p)
            );
        }
        if p > 0.0 {
            text.push(format!("{} {}", escape(a), dec_short(p)));
        }
    }
    let title = |n: &Num| {
        n.exact
            .as_deref()
            .filter(|x| x.len() <= 60)
            .map(|x| format!(" title=\"exact: {}\"", escape(x)))
            .unwrap_or_default()
    };
    let mark = if locked {
        " <span class=\"locked\">(locked)</span>"
    } else {
        ""
    };
    let _ = write!(
        h,
        "<tr data-label=\"{label}\" data-player=\"{player}\" data-regret=\"{regret:e}\" \
         data-reach=\"{reach:e}\"><td class=\"num\" data-v=\"{rank}\">{rank}</td>\
         <td>{player}: {pname}</td><td>{label}{mark}</td>\
         <td class=\"num\" data-v=\"{reach:e}\"{reach_title}>{reach_s}</td>\
         <td><div class=\"bar\">{bar}</div><div class=\"probs\">{probs}</div></td>\
         <td class=\"br\">{br}</td>\
         <td class=\"num\" data-v=\"{regret:e}\"{regret_title}>{regret_s}</td></tr>",
        label = escape(&row.label),
        player = row.player + 1,
        pname = escape(&names[row.player]),
        regret = row.local_regret.float,
        reach = row.reach.float,
        rank = rank + 1,
        reach_title = title(&row.reach),
        reach_s = dec_short(row.reach.float),
        probs = text.join(" &middot; "),
        br = escape(&row.actions[row.best_response_action]),
        regret_title = title(&row.local_regret),
        regret_s = dec_short(row.local_regret.float),
    );
}

/// The locked sets and the head-to-head section, where the report has them.
fn study_sections(h: &mut String, r: &Report) {
    let names = &r.facts.players;
    if let Some(locked) = &r.locked {
        h.push_str(
            "<h2 id=\"locked-heading\">Locked sets</h2><p class=\"note\">These sets \
                    were fixed by a lock; every other set was solved, and the values above are \
                    the locked game's.</p><ul id=\"locked\">",
        );
        for p in 0..2 {
            for label in &locked[p] {
                let _ = write!(h, "<li>{}: {}</li>", escape(&names[p]), escape(label));
            }
        }
        h.push_str("</ul>");
    }
    if let Some(a) = &r.against {
        let _ = write!(
            h,
            "<h2 id=\"against-heading\">Against {name}</h2><p class=\"note\">This strategy \
             (A) against {name} (B), exactly: A as {n1} scores {v1}; A as {n2} scores {v2}. \
             Each row is a set where they differ, with the change in A's value if A played B's \
             strategy there only, everything else unchanged (negative: A gains nothing by \
             switching there; positive: A loses that much by not playing B's strategy).</p>\
             <table id=\"against\"><thead><tr><th>player</th><th>set</th><th>change</th>\
             </tr></thead><tbody>",
            name = escape(&a.name),
            n1 = escape(&names[0]),
            n2 = escape(&names[1]),
            v1 = escape(
                a.value_first
                    .exact
                    .as_deref()
                    .unwrap_or(&dec_short(a.value_first.float))
            ),
            v2 = escape(
                a.value_second
                    .exact
                    .as_deref()
                    .unwrap_or(&dec_short(a.value_second.float))
            ),
        );
        for (p, label, change) in &a.sets {
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{}</td><td class=\"num\"{}>{}</td></tr>",
                escape(&names[*p]),
                escape(label),
                change
                    .exact
                    .as_deref()
                    .map(|x| format!(" title=\"exact: {}\"", escape(x)))
                    .unwrap_or_default(),
                dec_short(change.float)
            );
        }
        h.push_str("</tbody></table>");
    }
}
