//! `bluff solve SPOT.toml --compress`: the 16-bit state of hold'em spots. Its JSON names the
//! storage and sizes it (2 bytes per regret and per sum plus two scales per game node: half
//! the f32 state and the scales), `--max-memory` is checked against that size, the strategy
//! file it writes is read by `bluff eval` with the run's exploitability, a checkpointed and
//! resumed run writes the same file as a straight one, and the combinations that cannot be
//! honoured are refused by name with nothing written.

mod common;

use common::cli::{assert_refused, bluff, solve_json};
use common::data;
use std::path::Path;

fn turn() -> String {
    data("spots/turn_reduced.toml")
}

fn path(dir: &Path, name: &str) -> String {
    dir.join(name).to_str().unwrap().to_string()
}

fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap()
}

/// The compressed run against the f32 run of the same spot and iterations: the JSON's
/// storage and state bytes, the exploitability and root EVs, `bluff eval` of its strategy
/// file, and `--max-memory` at the compressed size.
#[test]
fn a_compressed_solve_is_sized_and_solved_as_the_f32_one() {
    let dir = tempfile::tempdir().unwrap();
    let spot = turn();
    let s = path(dir.path(), "c.spt");
    let a = solve_json(&[&spot, "--iterations", "80"]);
    let b = solve_json(&[&spot, "--iterations", "80", "--compress", "-o", &s]);
    assert_eq!(a["precision"], "f32");
    assert_eq!(b["precision"], "compressed16");
    // f32: 4 bytes per regret and per sum; compressed: 2 each, and two f32 scales per node.
    let nodes = b["game_nodes"].as_u64().unwrap();
    let (full, packed) = (
        a["state_bytes"].as_u64().unwrap(),
        b["state_bytes"].as_u64().unwrap(),
    );
    assert_eq!(packed, full / 2 + 8 * nodes);
    let pot = f(&a["pot"]);
    let (ea, eb) = (f(&a["exploitability"]), f(&b["exploitability"]));
    assert!(
        eb <= (2.0 * ea).max(5e-4 * pot),
        "f32 {ea}, compressed {eb}"
    );
    for p in 0..2 {
        let (x, y) = (f(&a["root_ev"][p]), f(&b["root_ev"][p]));
        assert!(
            (x - y).abs() <= 5e-4 * pot,
            "root EV {p}: f32 {x}, compressed {y}"
        );
    }
    // The file holds the average strategy (probabilities as f32): the same exploitability.
    let e = common::cli::json_of(bluff().args(["eval", &spot, &s]));
    assert!(
        (f(&e["exploitability"]) - eb).abs() <= 1e-6 * pot,
        "{e} {b}"
    );
    // The limit is checked against the compressed size.
    let at = packed.to_string();
    let c = solve_json(&[
        &spot,
        "--iterations",
        "1",
        "--compress",
        "--max-memory",
        &at,
    ]);
    assert_eq!(c["state_bytes"], b["state_bytes"]);
    let out = bluff()
        .args(["solve", &spot, "--iterations", "1", "--max-memory", &at])
        .output()
        .unwrap();
    assert_refused(&out, "f32 over the limit", "the solver's state needs");
}

/// A compressed run of 30 iterations and one stopped at 12 and resumed (with the
/// checkpoint's storage, on 2 threads) write the same strategy file, byte for byte.
#[test]
fn a_resumed_compressed_run_writes_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    let (whole, part, ck) = (
        path(dir.path(), "whole.spt"),
        path(dir.path(), "part.spt"),
        path(dir.path(), "run.ckpt"),
    );
    let spot = turn();
    let a = solve_json(&[&spot, "--iterations", "30", "--compress", "-o", &whole]);
    solve_json(&[
        &spot,
        "--iterations",
        "12",
        "--compress",
        "--checkpoint",
        &ck,
    ]);
    let b = solve_json(&[
        &spot,
        "--iterations",
        "30",
        "--resume",
        &ck,
        "--threads",
        "2",
        "-o",
        &part,
    ]);
    assert_eq!(b["resumed_at"], 12);
    assert_eq!(b["precision"], "compressed16");
    assert_eq!(a["exploitability"], b["exploitability"]);
    let (x, y) = (
        std::fs::read(&whole).unwrap(),
        std::fs::read(&part).unwrap(),
    );
    assert!(x == y, "the strategy files differ");
}

/// `--compress` on another game, beside `--precision f64`, or resuming a checkpoint of the
/// other storage, is refused by name; nothing is written.
#[test]
fn compress_where_it_cannot_apply_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let spot = turn();
    let (f32_ck, c_ck) = (path(dir.path(), "f32.ckpt"), path(dir.path(), "c.ckpt"));
    solve_json(&[&spot, "--iterations", "5", "--checkpoint", &f32_ck]);
    solve_json(&[
        &spot,
        "--iterations",
        "5",
        "--compress",
        "--checkpoint",
        &c_ck,
    ]);
    let out_file = path(dir.path(), "never.out");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["kuhn", "--iterations", "10", "--compress"],
            "--compress applies to hold'em spots (a SPOT.toml file) only",
        ),
        (
            vec![
                &spot,
                "--iterations",
                "10",
                "--compress",
                "--precision",
                "f64",
            ],
            "give --compress or --precision f64, not both",
        ),
        (
            vec![
                &spot,
                "--iterations",
                "10",
                "--resume",
                &f32_ck,
                "--compress",
            ],
            "the checkpoint's state is stored in f32; it cannot continue in compressed16",
        ),
        (
            vec![
                &spot,
                "--iterations",
                "10",
                "--resume",
                &c_ck,
                "--precision",
                "f32",
            ],
            "the checkpoint's state is stored in compressed16; it cannot continue in f32 \
             (give --compress",
        ),
    ];
    for (args, needle) in cases {
        let out = bluff()
            .arg("solve")
            .args(&args)
            .args(["-o", &out_file])
            .output()
            .unwrap();
        assert_refused(&out, &format!("{args:?}"), needle);
        assert!(!Path::new(&out_file).exists(), "{args:?} wrote its output");
    }
}
