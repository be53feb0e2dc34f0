//! `bluff report SPOT.toml S`: the numbers embedded in the range-grid page equal what
//! `bluff export-strategy --json` (per hand: strategy and reach) and `bluff eval --json` (the
//! root's EVs, best-response gains and equity) print for the same strategy file, and the
//! whole range's action frequencies at each node equal the reach-weighted mean of
//! export-strategy's per-hand strategies computed here. Bad input is refused with nothing
//! written.

mod common;

use common::cli::{assert_refused, bluff, json_of};
use common::data;
use serde_json::Value;
use std::path::Path;

/// Solves `spot` to 0.1% of the pot into `dir/name`.
fn solve(spot: &str, dir: &Path, name: &str) -> std::path::PathBuf {
    let s = dir.join(name);
    let out = bluff()
        .args(["solve", spot, "--target-pot-pct", "0.1", "-o"])
        .arg(&s)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::cli::stderr_of(&out));
    s
}

/// The JSON embedded in a page.
fn page_data(html: &Path) -> Value {
    let text = std::fs::read_to_string(html).unwrap();
    let start = text.find("id=\"spot-data\">").unwrap() + "id=\"spot-data\">".len();
    let end = start + text[start..].find("</script>").unwrap();
    serde_json::from_str(&text[start..end].replace("<\\/", "</")).unwrap()
}

fn close(a: f64, b: f64, tol: f64, what: &str) {
    assert!((a - b).abs() <= tol, "{what}: {a} vs {b}");
}

fn check_spot(spot_name: &str, max_nodes: Option<&str>) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let spot = data(&format!("spots/{spot_name}"));
    let s = solve(&spot, dir.path(), "s.bspt");
    let html = dir.path().join("spot.html");
    let mut cmd = bluff();
    cmd.args(["report", &spot]).arg(&s).arg("-o").arg(&html);
    if let Some(m) = max_nodes {
        cmd.args(["--max-nodes", m]);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", common::cli::stderr_of(&out));
    let d = page_data(&html);
    // The root's figures against bluff eval.
    let e = json_of(bluff().args(["eval", &spot]).arg(&s));
    for p in 0..2 {
        let what = format!("{spot_name} player {p}");
        close(
            d["root"]["ev"][p].as_f64().unwrap(),
            e["root_ev"][p].as_f64().unwrap(),
            1e-9,
            &format!("{what}: root EV"),
        );
        close(
            d["root"]["gain"][p].as_f64().unwrap(),
            e["best_response_gain"][p].as_f64().unwrap(),
            1e-9,
            &format!("{what}: best-response gain"),
        );
        close(
            d["root"]["equity"][p].as_f64().unwrap(),
            e["root_equity"][p].as_f64().unwrap(),
            1e-12,
            &format!("{what}: root equity"),
        );
    }
    // Every embedded node (at most 12, spread over the tree) against export-strategy.
    let nodes: Vec<&Value> = d["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| !n["data"].is_null())
        .collect();
    assert_eq!(nodes.len() as u64, d["embedded"].as_u64().unwrap());
    let step = nodes.len().div_ceil(12);
    for n in nodes.iter().step_by(step) {
        let path = n["path"].as_str().unwrap();
        let x = json_of(
            bluff()
                .args(["export-strategy", &spot])
                .arg(&s)
                .args(["--node", path]),
        );
        let p = n["player"].as_u64().unwrap() as usize;
        assert_eq!(x["player"], ["oop", "ip"][p], "{path}");
        let actions: Vec<String> = x["actions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_string())
            .collect();
        assert_eq!(n["actions"], serde_json::json!(actions), "{path}");
        let k = actions.len();
        let hands = x["hands"].as_array().unwrap();
        let data = &n["data"];
        assert_eq!(hands.len(), d["hands"][p].as_array().unwrap().len());
        let mut freq = vec![0.0; k];
        let mut total = 0.0;
        for (h, hand) in hands.iter().enumerate() {
            assert_eq!(hand["hand"], d["hands"][p][h], "{path}");
            let reach = hand["reach"].as_f64().unwrap();
            close(data["reach"][h].as_f64().unwrap(), reach, 6e-6, path);
            total += reach;
            for (a, name) in actions.iter().enumerate() {
                let prob = hand["strategy"][name].as_f64().unwrap();
                close(
                    data["strategy"][h * k + a].as_f64().unwrap(),
                    prob,
                    6e-5,
                    path,
                );
                freq[a] += reach * prob;
            }
        }
        close(data["range"]["weight"].as_f64().unwrap(), total, 1e-6, path);
        for a in 0..k {
            close(
                data["range"]["frequencies"][a].as_f64().unwrap(),
                freq[a] / total,
                2e-6,
                &format!("{path}: frequency of {}", actions[a]),
            );
        }
    }
    d
}

#[test]
fn a_river_spots_page_agrees_with_export_strategy_and_eval() {
    let d = check_spot("river.toml", None);
    assert_eq!(d["embedded"], d["decision_nodes"]);
    // The root's range EV is the pair-weighted mean of the per-hand EVs' parts: equal to eval.
    let root = &d["nodes"][0];
    assert_eq!(root["path"], "river");
    assert_eq!(root["kind"], "decision");
}

#[test]
fn a_turn_spots_page_agrees_with_export_strategy_and_eval_and_keeps_its_bound() {
    let d = check_spot("turn_reduced.toml", Some("40"));
    assert_eq!(d["embedded"], 40);
    assert!(d["decision_nodes"].as_u64().unwrap() > 40);
    // Breadth first: every turn node is in, and some river node below a deal.
    let nodes = d["nodes"].as_array().unwrap();
    assert!(nodes
        .iter()
        .any(|n| n["street"] == "river" && !n["data"].is_null()));
    assert!(nodes
        .iter()
        .filter(|n| n["street"] == "turn" && n["kind"] == "decision")
        .all(|n| !n["data"].is_null()));
    // Some deal leads to a node left out, and says so.
    assert!(nodes.iter().any(|n| n["deals"]
        .as_array()
        .unwrap()
        .iter()
        .any(|x| x[1].is_null())));
}

#[test]
fn bad_input_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let river = data("spots/river.toml");
    let turn = data("spots/turn_reduced.toml");
    let s = solve(&river, dir.path(), "river.bspt");
    let html = dir.path().join("out.html");
    let run = |args: &[&str]| {
        bluff()
            .arg("report")
            .args(args)
            .arg("-o")
            .arg(&html)
            .output()
            .unwrap()
    };
    let st = s.to_str().unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec![&turn, st], "made for another spot"),
        (vec![&river, "/nonexistent/s.bspt"], "/nonexistent/s.bspt"),
        (vec![&river], "a spot's report reads a strategy file"),
        (vec![&river, st, "--max-nodes", "0"], "--max-nodes 0"),
        (vec!["/nonexistent/spot.toml", st], "/nonexistent/spot.toml"),
    ];
    for (args, needle) in cases {
        let out = run(&args);
        assert_refused(&out, &format!("{args:?}"), needle);
        assert!(!html.exists(), "{args:?} wrote {}", html.display());
    }
    let not_a_strategy = common::write_in(dir.path(), "junk.bspt", b"not a strategy file at all");
    let out = run(&[&river, not_a_strategy.to_str().unwrap()]);
    assert_refused(&out, "junk", "junk.bspt");
    assert!(!html.exists());
}
