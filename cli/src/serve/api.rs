//! The routes: the page and its assets, the game catalog and files, set-up, the queue of
//! solves, exploring a solved game node by node, comparing two solves, and exports.

use super::jobs::{JobSpec, Jobs, Outcome};
use super::{error, json, Server};
use crate::serve::http::{Request, Response};
use bluff::game::{Game, NodeKind};
use bluff::report::analysis::{analyse, Analysis, Num};
use bluff::report::charts::action_color;
use bluff::report::Strategy;
use serde_json::{json, Value as Json};
use std::path::Path;

const PAGE: &str = include_str!("page/index.html");
const SCRIPT: &str = include_str!("page/app.js");
const STYLE: &str = include_str!("page/app.css");

/// Most game files listed from the folder.
const MAX_LISTED: usize = 1000;

/// Answers one authorised request.
pub fn route(server: &Server, r: &Request) -> Response {
    let segments: Vec<&str> = r.path.trim_start_matches('/').split('/').collect();
    let get = r.method == "GET";
    let result: anyhow::Result<Response> = match (get, segments.as_slice()) {
        (true, [""]) => Ok(page(server, r)),
        (true, ["app.js"]) => Ok(Response::new(200, "text/javascript; charset=utf-8", SCRIPT)),
        (true, ["app.css"]) => Ok(Response::new(200, "text/css; charset=utf-8", STYLE)),
        (true, ["api", "info"]) => Ok(json(200, &info(&server.jobs))),
        (false, ["api", "inspect"]) => body(r).and_then(|b| inspect(&server.jobs, &b)),
        (false, ["api", "upload"]) => body(r).and_then(|b| upload(&server.jobs, &b)),
        (true, ["api", "jobs"]) => Ok(json(200, &server.jobs.list())),
        (false, ["api", "jobs"]) => body(r)
            .and_then(|b| JobSpec::from_json(&b))
            .and_then(|spec| server.jobs.submit(spec))
            .map(|s| json(201, &s)),
        (true, ["api", "jobs", id]) => job_id(id).map(|id| match server.jobs.get(id) {
            Some(s) => json(200, &s),
            None => error(404, format!("no job {id}")),
        }),
        (false, ["api", "jobs", id, action @ ("pause" | "resume" | "stop" | "cancel")]) => body(r)
            .and_then(|_| {
                let id = job_id(id)?;
                Ok(json(200, &server.jobs.control(id, action)?))
            }),
        (true, ["api", "jobs", id, "node"]) => job_id(id).and_then(|id| node(server, r, id)),
        (true, ["api", "compare"]) => compare(server, r),
        (true, ["api", "jobs", id, file @ ("strategy.json" | "curve.csv" | "report.html")]) => {
            job_id(id).and_then(|id| export(server, id, file))
        }
        (true, _) => Ok(error(404, format!("no page {}", r.path))),
        (false, _) => Ok(error(404, format!("no action {}", r.path))),
    };
    result.unwrap_or_else(|e| error(400, format!("{e:#}")))
}

/// The page; `GET /?token=` also sets the token cookie (HttpOnly, SameSite=Strict, one per port).
fn page(server: &Server, r: &Request) -> Response {
    let mut response = Response::new(200, "text/html; charset=utf-8", PAGE);
    if r.query("token").is_some() {
        response = response.with(
            "Set-Cookie",
            format!(
                "{}={}; Path=/; HttpOnly; SameSite=Strict",
                super::guard::cookie_name(server.port),
                server.token
            ),
        );
    }
    response
}

fn body(r: &Request) -> anyhow::Result<Json> {
    if r.body.is_empty() {
        return Ok(json!({}));
    }
    serde_json::from_slice(&r.body).map_err(|e| anyhow::anyhow!("the request body: {e}"))
}

fn job_id(text: &str) -> anyhow::Result<u64> {
    text.parse()
        .map_err(|_| anyhow::anyhow!("{}: not a job number", bluff::format::text::quoted(text)))
}

/// The built-in games, the algorithms, the game files in the folder and the limits.
fn info(jobs: &Jobs) -> Json {
    let games: Vec<Json> = bluff::games::registry()
        .iter()
        .map(|g| {
            json!({
                "name": g.name, "description": g.description,
                "params": g.params.iter().map(|p| json!({
                    "name": p.name, "default": p.default, "min": p.min, "max": p.max,
                    "doc": p.doc, "choices": p.choices,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let algorithms: Vec<Json> = bluff::solve::registry::ALGORITHMS
        .iter()
        .map(|a| {
            json!({
                "name": a.name, "summary": a.summary,
                "kind": format!("{:?}", bluff::solve::door::Kind::of(a)),
                "needs_horizon": a.needs_horizon,
            })
        })
        .collect();
    json!({
        "version": env!("CARGO_PKG_VERSION"),
        "folder": jobs.root.display().to_string(),
        "games": games,
        "algorithms": algorithms,
        "default_algorithm": bluff::solve::registry::default_algorithm().name,
        "files": files(&jobs.root),
        "limits": {"json_bytes": super::MAX_JSON_BYTES, "upload_bytes": super::MAX_UPLOAD_BYTES,
                   "queue": super::jobs::MAX_QUEUED},
    })
}

/// The `.efg` and `.nfg` files under `root` (three levels deep, hidden folders and links that
/// leave the folder skipped), relative, sorted.
fn files(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![(root.to_path_buf(), 0)];
    while let Some((dir, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || out.len() >= MAX_LISTED {
                continue;
            }
            let Ok(rel) = path.strip_prefix(root) else {
                continue;
            };
            let rel = rel.to_string_lossy().into_owned();
            let Ok(real) = super::guard::confine(root, &rel) else {
                continue;
            };
            if real.is_dir() && depth < 3 && e.file_type().is_ok_and(|t| !t.is_symlink()) {
                stack.push((real, depth + 1));
            } else if real.is_file() && bluff::games::is_file_spec(&name) {
                out.push(rel);
            }
        }
    }
    out.sort();
    out
}

/// A game's size and what fits: the exact LP (by the library's rule) or the CFR family.
fn inspect(jobs: &Jobs, b: &Json) -> anyhow::Result<Response> {
    let spec = b["game"]
        .as_str()
        .ok_or_else(|| anyhow::anyhow!("game: expected a string"))?;
    if let Some(histories) = Jobs::too_big_to_build(spec)? {
        let command = format!(
            "bluff solve {} --algo es-mccfr --time 60",
            super::jobs::shell_quote(spec)
        );
        return Ok(json(
            200,
            &json!({
                "game": spec, "name": spec, "nodes": histories, "built": false,
                "constant_sum": true, "lp_fits": false, "suggested": "es-mccfr",
                "command": command,
            }),
        ));
    }
    let game = jobs.game(spec)?;
    let lp_fits = bluff::solve::best_effort::lp_fits(&game);
    let lp_memory = Jobs::estimate(&game, Some("lp"));
    let cfr_memory = Jobs::estimate(&game, None);
    let suggested = if !game.is_constant_sum() {
        "lcp"
    } else if lp_fits {
        "lp"
    } else {
        bluff::solve::registry::default_algorithm().name
    };
    Ok(json(
        200,
        &json!({
            "game": spec,
            "built": true,
            "name": game.name,
            "players": game.player_names,
            "nodes": game.nodes.len(),
            "terminals": game.num_terminal_nodes(),
            "infosets": [game.infosets[0].len(), game.infosets[1].len()],
            "sequences": [game.num_sequences(0), game.num_sequences(1)],
            "constant_sum": game.is_constant_sum(),
            "lp_fits": lp_fits,
            "lp_memory": bluff::lp::memory::format_bytes(lp_memory as u128),
            "cfr_memory": bluff::lp::memory::format_bytes(cfr_memory as u128),
            "suggested": suggested,
            "command": format!("bluff solve {} --algo {suggested}", super::jobs::shell_quote(spec)),
        }),
    ))
}

/// Saves an uploaded game file as `uploads/NAME` in the folder, never over an existing file,
/// after the command line's readers accepted it.
fn upload(jobs: &Jobs, b: &Json) -> anyhow::Result<Response> {
    let name = b["name"]
        .as_str()
        .ok_or_else(|| anyhow::anyhow!("name: expected a string"))?;
    let text = b["text"]
        .as_str()
        .ok_or_else(|| anyhow::anyhow!("text: expected a string"))?;
    let ok_name = !name.is_empty()
        && name.len() <= 100
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || b"._-".contains(&c))
        && bluff::games::is_file_spec(name);
    if !ok_name {
        anyhow::bail!(
            "name {}: letters, digits, '.', '_' and '-', ending in .efg or .nfg",
            bluff::format::text::quoted(name)
        );
    }
    let dir = jobs.root.join("uploads");
    std::fs::create_dir_all(&dir)?;
    let dir = dir.canonicalize()?;
    if !dir.starts_with(&jobs.root) {
        anyhow::bail!("uploads/ leads outside the served folder");
    }
    // Read by the same readers as the command line, from a private temporary file.
    let tmp = tempfile_in(&dir, name, text)?;
    let checked = bluff::games::load(&tmp.display().to_string());
    let result = checked.map_err(anyhow::Error::from).and_then(|loaded| {
        std::fs::hard_link(&tmp, dir.join(name)).map_err(|e| {
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                anyhow::anyhow!("uploads/{name} exists already; choose another name")
            } else {
                anyhow::anyhow!("saving uploads/{name}: {e}")
            }
        })?;
        Ok(loaded)
    });
    let _ = std::fs::remove_file(&tmp);
    let loaded = result?;
    Ok(json(
        201,
        &json!({"game": format!("uploads/{name}"), "warnings": loaded.warnings}),
    ))
}

/// Writes `text` to a new file in `dir` named after `name` (never over another file).
fn tempfile_in(dir: &Path, name: &str, text: &str) -> anyhow::Result<std::path::PathBuf> {
    use std::io::Write;
    for k in 0..100u32 {
        let path = dir.join(format!(".upload-{}-{k}-{name}", std::process::id()));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut f) => {
                f.write_all(text.as_bytes())?;
                return Ok(path);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e.into()),
        }
    }
    anyhow::bail!("no free temporary name in uploads/")
}

/// The analysis of a result, computed once: exactly for an exact strategy on a game of at
/// most the report's exact size, in `f64` otherwise.
fn analysis(o: &Outcome) -> &Analysis {
    o.analysis.get_or_init(|| match &o.strategy {
        bluff::report::Strategy::Exact(p)
            if o.game.nodes.len() <= bluff::report::EXACT_MAX_NODES =>
        {
            analyse(&o.game, p, true)
        }
        bluff::report::Strategy::Exact(p) => analyse(&o.game, &p.to_f64(), false),
        bluff::report::Strategy::Float(p) => analyse(&o.game, p, false),
    })
}

fn num(n: &Num) -> Json {
    json!({"float": n.float, "exact": n.exact})
}

fn hex((r, g, b): (u8, u8, u8)) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

fn probs(o: &Outcome, player: usize) -> Vec<f64> {
    match &o.strategy {
        bluff::report::Strategy::Exact(p) => p.probs[player]
            .iter()
            .map(bluff::scalar::rational_to_f64)
            .collect(),
        bluff::report::Strategy::Float(p) => p.probs[player].clone(),
    }
}

fn exact_probs(o: &Outcome, player: usize, range: std::ops::Range<usize>) -> Option<Vec<String>> {
    match &o.strategy {
        bluff::report::Strategy::Exact(p) => Some(
            p.probs[player][range]
                .iter()
                .map(bluff::scalar::format_rational)
                .collect(),
        ),
        bluff::report::Strategy::Float(_) => None,
    }
}

/// One information set of a result: the strategy (each action's colour by its name), the
/// best response's action and gain, the reach.
fn infoset_view(o: &Outcome, player: usize, set: usize) -> Json {
    let game: &Game = &o.game;
    let info = &game.infosets[player][set];
    let a = analysis(o);
    let row = a.rows.iter().find(|r| r.player == player && r.id == set);
    let p = probs(o, player);
    let exact = exact_probs(o, player, info.action_range());
    let actions: Vec<Json> = info
        .actions
        .iter()
        .enumerate()
        .map(|(k, label)| {
            json!({
                "label": label,
                "prob": p[info.action_offset + k],
                "exact": exact.as_ref().map(|e| e[k].clone()),
                "color": hex(action_color(label)),
                "best_response": row.is_some_and(|r| r.best_response_action == k),
            })
        })
        .collect();
    json!({
        "player": player,
        "player_name": game.player_names[player],
        "id": set,
        "label": info.label,
        "nodes": info.nodes.len(),
        "actions": actions,
        "reach": row.map(|r| num(&r.reach)),
        "gain": row.map(|r| num(&r.local_regret)),
    })
}

/// A node of a solved game: where it is, what happens there, its children.
fn node(server: &Server, r: &Request, id: u64) -> anyhow::Result<Response> {
    let o = server.jobs.outcome(id)?;
    let n: usize = match r.query("n") {
        None => 0,
        Some(t) => t
            .parse()
            .map_err(|_| anyhow::anyhow!("n: expected a node number"))?,
    };
    let game: &Game = &o.game;
    let Some(node) = game.nodes.get(n) else {
        anyhow::bail!("n={n}: the game has {} nodes", game.nodes.len());
    };
    let other = match r.query("compare") {
        Some(t) => Some(server.jobs.outcome(job_id(&t)?)?),
        None => None,
    };
    if let Some(b) = &other {
        if b.game.nodes.len() != game.nodes.len() || b.game.num_actions != game.num_actions {
            anyhow::bail!("the two solves are of different games");
        }
    }
    let children: Vec<Json> = node
        .children()
        .enumerate()
        .map(|(k, c)| {
            let (label, prob, color) = match node.kind {
                NodeKind::Chance => (game.chance_label[c].clone(), game.chance_prob_f64[c], None),
                NodeKind::Decision { player, infoset } => {
                    let info = &game.infosets[player as usize][infoset as usize];
                    let label = info.actions[k].clone();
                    let color = hex(action_color(&label));
                    let p = probs(&o, player as usize)[info.action_offset + k];
                    (label, p, Some(color))
                }
                NodeKind::Terminal { .. } => unreachable!("terminals have no children"),
            };
            json!({"node": c, "label": label, "prob": prob, "color": color})
        })
        .collect();
    let (kind, detail) = match node.kind {
        NodeKind::Chance => ("chance", Json::Null),
        NodeKind::Decision { player, infoset } => {
            let (p, s) = (player as usize, infoset as usize);
            let mut v = infoset_view(&o, p, s);
            if let Some(b) = &other {
                v["compare"] = infoset_view(b, p, s);
            }
            ("decision", v)
        }
        NodeKind::Terminal { terminal } => {
            let t = terminal as usize;
            (
                "terminal",
                json!({
                    "label": game.terminals[t].label,
                    "payoffs": [
                        bluff::scalar::format_rational(&game.payoff(t, 0)),
                        bluff::scalar::format_rational(&game.payoff(t, 1)),
                    ],
                }),
            )
        }
    };
    Ok(json(
        200,
        &json!({
            "node": n,
            "parent": (node.parent != u32::MAX).then_some(node.parent),
            "path": game.path_labels(n),
            "kind": kind,
            "detail": detail,
            "children": children,
        }),
    ))
}

fn evaluation(o: &Outcome) -> Json {
    let e = &analysis(o).evaluation;
    json!({
        "exact": e.exact,
        "algorithm": o.algorithm,
        "value": [num(&e.value[0]), num(&e.value[1])],
        "best_response_value": [num(&e.best_response_value[0]), num(&e.best_response_value[1])],
        "nash_conv": num(&e.nash_conv),
        "exploitability": num(&e.exploitability),
    })
}

/// Two solves of one game side by side: each one's evaluation by the library's evaluator, and
/// the two head to head (`bluff::study::combine`): A's value when A holds the first seat and B
/// the second, and when they swap; exact when both strategies are.
fn compare(server: &Server, r: &Request) -> anyhow::Result<Response> {
    let a = job_id(&r.query("a").unwrap_or_default())?;
    let b = job_id(&r.query("b").unwrap_or_default())?;
    let (oa, ob) = (server.jobs.outcome(a)?, server.jobs.outcome(b)?);
    if oa.game.nodes.len() != ob.game.nodes.len() || oa.game.num_actions != ob.game.num_actions {
        anyhow::bail!("jobs {a} and {b} solved different games");
    }
    Ok(json(
        200,
        &json!({
            "a": {"id": a, "evaluation": evaluation(&oa)},
            "b": {"id": b, "evaluation": evaluation(&ob)},
            "head_to_head": head_to_head(&oa.game, &oa.strategy, &ob.strategy),
        }),
    ))
}

/// A's values head to head against B: `a_first` (A as the first player, B as the second) and
/// `a_second` (B first, A second), each as `{float, exact}` (`exact` null unless both
/// strategies are exact).
fn head_to_head(game: &Game, a: &Strategy, b: &Strategy) -> Json {
    use bluff::study::combine;
    let pair = |first: Json, second: Json| json!({"a_first": first, "a_second": second});
    match (a, b) {
        (Strategy::Exact(a), Strategy::Exact(b)) => {
            let first = bluff::eval::values(game, &combine(a, b))[0].clone();
            let second = bluff::eval::values(game, &combine(b, a))[1].clone();
            let exact = |r: &bluff::scalar::Rational| {
                json!({
                    "float": bluff::scalar::rational_to_f64(r),
                    "exact": bluff::scalar::format_rational(r),
                })
            };
            pair(exact(&first), exact(&second))
        }
        _ => {
            let (a, b) = (float_profile(a), float_profile(b));
            let first = bluff::eval::values(game, &combine(&a, &b))[0];
            let second = bluff::eval::values(game, &combine(&b, &a))[1];
            let float = |x: f64| json!({"float": x, "exact": Json::Null});
            pair(float(first), float(second))
        }
    }
}

/// A strategy's probabilities as floats.
fn float_profile(s: &Strategy) -> bluff::strategy::Profile<f64> {
    match s {
        Strategy::Exact(p) => p.to_f64(),
        Strategy::Float(p) => p.clone(),
    }
}

/// The strategy (JSON, as `bluff solve -o` writes it), the curve (CSV, as `--curve`) or the
/// HTML report (as `bluff report`) of a job, as a download.
fn export(server: &Server, id: u64, file: &str) -> anyhow::Result<Response> {
    let attach = |r: Response, name: &str| {
        r.with(
            "Content-Disposition",
            format!("attachment; filename=\"job-{id}-{name}\""),
        )
    };
    if file == "curve.csv" {
        let summary = server
            .jobs
            .get(id)
            .ok_or_else(|| anyhow::anyhow!("no job {id}"))?;
        let mut csv = String::from("iteration,exploitability,seconds\n");
        for p in summary["curve"].as_array().into_iter().flatten() {
            csv.push_str(&format!(
                "{},{:e},{:.6}\n",
                p[0].as_u64().unwrap_or(0),
                p[1].as_f64().unwrap_or(f64::NAN),
                p[2].as_f64().unwrap_or(0.0)
            ));
        }
        return Ok(attach(Response::new(200, "text/csv", csv), file));
    }
    let o = server.jobs.outcome(id)?;
    let summary = server.jobs.get(id).unwrap_or_default();
    let spec = summary["spec"]["game"].as_str().unwrap_or("").to_string();
    if file == "strategy.json" {
        let value = match &o.strategy {
            bluff::report::Strategy::Exact(p) => {
                bluff::format::strategy_json::profile_to_json(&o.game, &spec, p)
            }
            bluff::report::Strategy::Float(p) => {
                bluff::format::strategy_json::profile_to_json(&o.game, &spec, p)
            }
        };
        let text = serde_json::to_string_pretty(&value).expect("JSON values serialise") + "\n";
        return Ok(attach(Response::new(200, "application/json", text), file));
    }
    let curve: Vec<(f64, f64)> = summary["curve"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| Some((p[0].as_f64()?, p[1].as_f64()?)))
        .collect();
    let plottable = curve.iter().any(|&(x, y)| x >= 1.0 && y > 0.0);
    let input = bluff::report::ReportInput {
        spec: spec.clone(),
        strategy: o.strategy.clone(),
        provenance: format!("job {id} of bluff serve ({})", o.algorithm),
        known_value: None,
        curve: plottable.then_some(curve),
        curve_source: format!("job {id}"),
        max_rows: bluff::report::DEFAULT_MAX_ROWS,
    };
    let source = server
        .jobs
        .resolve_game(&spec)
        .ok()
        .and_then(|s| bluff::games::picture_source(&s));
    let report = bluff::report::Report::build(&o.game, input, source.as_deref())?;
    Ok(attach(
        Response::new(200, "text/html; charset=utf-8", report.to_html()),
        file,
    ))
}
