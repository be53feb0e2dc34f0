//! The `--json` field names of `bluff solve` are frozen for every family: a field may be added
//! (then added here), never renamed or removed. Other tools and the hold'em, locking and
//! general-sum work are written against these names.

mod common;

use common::cli::solve_json;

/// The top-level keys of `bluff solve kuhn ARGS --json`, in order.
fn keys(args: &[&str]) -> Vec<String> {
    let v = solve_json(&[&["kuhn"], args].concat());
    v.as_object().unwrap().keys().cloned().collect()
}

fn assert_keys(args: &[&str], expected: &[&str]) {
    assert_eq!(keys(args), expected, "bluff solve kuhn {args:?} --json");
}

#[test]
fn the_cfr_family_json_fields_are_frozen() {
    assert_keys(
        &["--algo", "cfr+", "--iterations", "5"],
        &[
            "game",
            "algo",
            "params",
            "threads",
            "kernel",
            "team_iterations",
            "nodes",
            "solver_bytes",
            "solver_bytes_per_node",
            "game_bytes",
            "game_bytes_per_node",
            "infosets",
            "iterations",
            "seconds",
            "iterations_per_second",
            "exploitability",
            "exploitability_fraction_of_range",
            "nash_conv",
            "value_p1",
            "value_p2",
            "payoff_range",
            "peak_rss_bytes",
        ],
    );
}

#[test]
fn the_exact_lp_json_fields_are_frozen() {
    assert_keys(
        &["--algo", "lp"],
        &[
            "game",
            "algo",
            "method",
            "value_p1",
            "value_p2",
            "nash_conv",
            "certified",
            "sequences",
            "lp_form",
            "lp_primal",
            "lp_vars",
            "lp_rows",
            "float_pivots",
            "exact_pivots",
            "exact_factorizations",
            "tableau_fallback",
            "exact_route",
            "refinement_rounds",
            "presolve_removed",
            "seconds",
            "output",
            "peak_rss_bytes",
        ],
    );
}

#[test]
fn the_sampling_json_fields_are_frozen() {
    let expected = [
        "game",
        "algo",
        "engine",
        "params",
        "seed",
        "threads",
        "iterations",
        "traversals",
        "seconds",
        "session_seconds",
        "iterations_per_second",
        "traversals_per_second",
        "exploitability",
        "nash_conv",
        "value_p1",
        "value_p2",
        "best_response_seconds",
        "infosets",
        "solver_bytes",
        "bytes_per_infoset",
        "peak_rss_bytes",
        "curve",
    ];
    for algo in ["es-mccfr", "os-mccfr"] {
        assert_keys(&["--algo", algo, "--iterations", "50"], &expected);
    }
}

#[test]
fn the_lcp_json_fields_are_frozen() {
    assert_keys(
        &["--algo", "lcp"],
        &[
            "game",
            "algo",
            "value_p1",
            "value_p2",
            "nash_conv",
            "certified",
            "general_sum",
            "start",
            "pivots",
            "route",
            "lcp_rows",
            "seconds",
            "output",
            "peak_rss_bytes",
        ],
    );
}

#[test]
fn the_spot_json_fields_are_frozen() {
    let v = solve_json(&[&common::data("spots/river.toml"), "--iterations", "5"]);
    let keys: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
    assert_eq!(
        keys,
        [
            "game",
            "algo",
            "params",
            "threads",
            "iterations",
            "seconds",
            "build_seconds",
            "exploitability",
            "exploitability_pot_pct",
            "root_equity",
            "root_ev",
            "best_response",
            "pot",
            "decision_nodes",
            "terminal_nodes",
            "game_nodes",
            "state_bytes",
            "precision",
            "peak_rss_bytes",
        ]
    );
}

/// A locked run adds `locked` (each player's locked sets) after every other field.
#[test]
fn a_lock_adds_the_locked_field() {
    let lock = common::data("locks/kuhn_jack_half.json");
    for args in [
        &["--algo", "lp"][..],
        &["--algo", "cfr+", "--iterations", "5"],
        &["--algo", "es-mccfr", "--iterations", "5"],
    ] {
        let mut locked = keys(args);
        locked.push("locked".into());
        let with: Vec<&str> = [args, &["--lock", &lock]].concat();
        assert_keys(
            &with,
            &locked.iter().map(String::as_str).collect::<Vec<_>>(),
        );
    }
}
