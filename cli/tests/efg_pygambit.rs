//! Conformance with Gambit itself, through pygambit: Gambit reads every file bluff writes and
//! writes it back; bluff reads Gambit's files (its catalog and a game built in Python) and agrees
//! with Gambit's exact LP on the value, and its exact best responses certify Gambit's strategies.
//!
//! Uses the Python `common::pygambit::python` finds (a failure under `BLUFF_REQUIRE_PYGAMBIT`).

mod common;

use bluff::eval::exploitability;
use bluff::exact::solve_exact;
use bluff::format::efg::{
    efg_to_game, game_infoset_labels, game_to_efg, read_efg, write_efg, EfgGame,
};
use bluff::game::Game;
use bluff::scalar::{parse_rational, Rational};
use bluff::strategy::ExactProfile;
use num_traits::Zero;
use serde_json::Value;
use std::process::Command;

fn rational(v: &Value) -> Rational {
    parse_rational(v.as_str().expect("a string")).expect("a number")
}

/// The profile Gambit's strategy describes: Gambit's k-th set of a player is the one with file
/// id k + 1, and actions keep their order.
fn profile_from_gambit(efg: &EfgGame, game: &Game, strategy: &Value) -> ExactProfile {
    let labels = game_infoset_labels(efg);
    let mut prof = ExactProfile::uniform(game);
    for p in 0..2 {
        for (j, set) in efg.infosets[p].iter().enumerate() {
            let probs = strategy[p][(set.id - 1) as usize].as_array().unwrap();
            let id = game.find_infoset(p, &labels[p][j]).unwrap();
            let range = game.infosets[p][id].action_range();
            assert_eq!(range.len(), probs.len());
            for (a, v) in range.zip(probs) {
                prof.probs[p][a] = rational(v);
            }
        }
    }
    prof
}

/// Checks one file against Gambit's description of it.
fn check(path: &str, rec: &Value, ours: Option<&Game>) {
    let text = std::fs::read_to_string(path).unwrap();
    let parsed = read_efg(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    let efg = &parsed.game;
    assert_eq!(
        efg.nodes.len() as u64,
        rec["nodes"].as_u64().unwrap(),
        "{path}"
    );
    assert_eq!(efg.players.len() as u64, rec["players"].as_u64().unwrap());
    for (p, n) in rec["infosets"].as_array().unwrap().iter().enumerate() {
        assert_eq!(efg.infosets[p].len() as u64, n.as_u64().unwrap(), "{path}");
    }
    // bluff reads every two-player game with perfect recall, constant-sum or general-sum.
    let readable = rec["players"] == 2 && rec["perfect_recall"] == true;
    let game = match efg_to_game(efg) {
        Ok(g) => g,
        Err(e) => {
            assert!(
                !readable,
                "{path}: Gambit reads it but bluff refuses: {e:#}"
            );
            return;
        }
    };
    assert!(
        readable,
        "{path}: bluff accepts a game Gambit calls not two-player or imperfect recall"
    );
    assert_eq!(
        game.is_constant_sum(),
        rec["const_sum"] == true,
        "{path}: bluff and Gambit disagree on constant-sum"
    );
    if !game.is_constant_sum() {
        return;
    }
    if let Some(ours) = ours {
        assert_eq!(game.nodes.len(), ours.nodes.len());
        assert_eq!(game.chance_prob, ours.chance_prob);
        let pays = |g: &Game| {
            g.terminal_outcomes()
                .map(|t| t.payoff0.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(pays(&game), pays(ours));
    }
    let value = rational(&rec["value"]);
    assert_eq!(
        solve_exact(&game).unwrap().value,
        value,
        "{path}: game value"
    );
    let e = exploitability(&game, &profile_from_gambit(efg, &game, &rec["strategy"]));
    assert!(
        e.nash_conv.is_zero(),
        "{path}: Gambit's equilibrium has NashConv {}",
        e.nash_conv
    );
    assert_eq!(e.value[0], value);
}

#[test]
fn gambit_reads_our_files_and_we_read_gambits() {
    let Some(py) = common::pygambit::python() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    let mut games = Vec::new();
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data");
    for name in ["tiny_bluff.efg", "prob0_chance.efg", "features.efg"] {
        let path = format!("{data}/{name}");
        games.push(bluff::games::load(&path).unwrap().game);
        // Export through bluff's writer, so Gambit reads what bluff writes.
        let out = dir.path().join(name);
        std::fs::write(
            &out,
            write_efg(&game_to_efg(games.last().unwrap())).unwrap(),
        )
        .unwrap();
        files.push(out);
    }
    for info in bluff::games::registry() {
        let game = bluff::games::load(info.name).unwrap().game;
        if game.nodes.len() > 3000 {
            continue;
        }
        let out = dir.path().join(format!("{}.efg", info.name));
        std::fs::write(&out, write_efg(&game_to_efg(&game)).unwrap()).unwrap();
        files.push(out);
        games.push(game);
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/pygambit_conformance.py");
    let out = Command::new(&py)
        .arg(script)
        .arg(dir.path())
        .args(&files)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pygambit failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    println!("pygambit {}", result["version"]);
    let ours = result["ours"].as_array().unwrap();
    assert_eq!(ours.len(), files.len());
    for (rec, game) in ours.iter().zip(&games) {
        check(rec["rewritten"].as_str().unwrap(), rec, Some(game));
    }
    let theirs = result["gambit"].as_array().unwrap();
    assert!(theirs.iter().any(|r| r["name"] == "built"));
    let mut solved = 0;
    for rec in theirs {
        check(rec["file"].as_str().unwrap(), rec, None);
        solved += rec.get("value").is_some() as usize;
    }
    println!(
        "{} Gambit-written games read, {solved} solved by both",
        theirs.len()
    );
    assert!(solved >= 1);
}
