//! Solves a bluff spot file (`SPOT.toml`) with postflop-solver and prints one JSON document.
//!
//! Usage: `postflop_driver SPOT.toml [--threads N] [--check-every K] [--target-pot-pct P]
//! [--max-iterations M] [--counts-only]`.
//!
//! It reads the spot's keys (board, ranges, pot, stack, the size lists of the streets played,
//! per-player overrides, donk sizes, rake, thresholds), builds postflop-solver's `TreeConfig` and
//! `CardConfig` from them, counts the action tree's decision, terminal and chance nodes per
//! street as `bluff::holdem::tree::Tree::counts` does (an all-in call before the river is one
//! terminal on the street of the call), then runs `solve_step`, measuring
//! `compute_exploitability` every `--check-every` iterations, until the exploitability is at
//! most `--target-pot-pct` % of the starting pot. The times exclude building and allocating
//! and include the measurements. Root equity and EV are averaged with the normalized weights
//! after `finalize`.

use postflop_solver::*;
use std::time::Instant;

/// Command-line options.
struct Options {
    spot: String,
    threads: usize,
    check_every: u32,
    target_pot_pct: f64,
    max_iterations: u32,
    counts_only: bool,
}

fn parse_args() -> Result<Options, String> {
    let mut args = std::env::args().skip(1);
    let mut o = Options {
        spot: String::new(),
        threads: 2,
        check_every: 10,
        target_pot_pct: 0.1,
        max_iterations: 10_000,
        counts_only: false,
    };
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match a.as_str() {
            "--threads" => o.threads = value(&a)?.parse().map_err(|e| format!("{a}: {e}"))?,
            "--check-every" => {
                o.check_every = value(&a)?.parse().map_err(|e| format!("{a}: {e}"))?
            }
            "--target-pot-pct" => {
                o.target_pot_pct = value(&a)?.parse().map_err(|e| format!("{a}: {e}"))?
            }
            "--max-iterations" => {
                o.max_iterations = value(&a)?.parse().map_err(|e| format!("{a}: {e}"))?
            }
            "--counts-only" => o.counts_only = true,
            s if !s.starts_with("--") && o.spot.is_empty() => o.spot = s.to_string(),
            s => return Err(format!("unknown argument {s}")),
        }
    }
    if o.spot.is_empty() {
        return Err("usage: postflop_driver SPOT.toml [options]".into());
    }
    if o.check_every == 0 || o.threads == 0 {
        return Err("--check-every and --threads must be at least 1".into());
    }
    Ok(o)
}

/// The spot's configs: cards and tree.
fn configs(text: &str) -> Result<(CardConfig, TreeConfig), String> {
    let table: toml::Table = text.parse().map_err(|e| format!("spot file: {e}"))?;
    let known = |k: &str| {
        let streets = ["flop", "turn", "river"];
        [
            "board",
            "oop_range",
            "ip_range",
            "pot",
            "stack",
            "turn_donk",
            "river_donk",
            "rake",
            "rake_cap",
            "add_allin",
            "force_allin",
            "merge",
        ]
        .contains(&k)
            || streets.iter().any(|s| {
                ["", "oop_", "ip_"]
                    .iter()
                    .any(|w| k == format!("{w}{s}_bet") || k == format!("{w}{s}_raise"))
            })
    };
    for k in table.keys() {
        if !known(k) {
            return Err(format!(
                "spot key `{k}`: not supported by this driver (postflop-solver has no reduced decks)"
            ));
        }
    }
    let string = |k: &str| table.get(k).and_then(|v| v.as_str());
    let number = |k: &str| {
        table
            .get(k)
            .and_then(|v| v.as_float().or(v.as_integer().map(|i| i as f64)))
            .unwrap_or(0.0)
    };
    let int = |k: &str| -> Result<i32, String> {
        table
            .get(k)
            .and_then(|v| v.as_integer())
            .map(|i| i as i32)
            .ok_or(format!("spot key `{k}`: missing or not an integer"))
    };
    let board = string("board").ok_or("spot key `board`: missing")?;
    let compact: String = board.split_whitespace().collect();
    if !(6..=10).contains(&compact.len()) || compact.len() % 2 != 0 {
        return Err(format!("board `{board}`: 3 to 5 cards"));
    }
    let flop = flop_from_str(&compact[..6])?;
    let card = |i: usize| -> Result<Card, String> {
        if compact.len() > i {
            card_from_str(&compact[i..i + 2])
        } else {
            Ok(NOT_DEALT)
        }
    };
    let (turn, river) = (card(6)?, card(8)?);
    let initial_state = match compact.len() / 2 {
        3 => BoardState::Flop,
        4 => BoardState::Turn,
        _ => BoardState::River,
    };
    let range = |k: &str| -> Result<Range, String> {
        string(k)
            .ok_or(format!("spot key `{k}`: missing"))?
            .parse()
            .map_err(|e| format!("spot key `{k}`: {e}"))
    };
    let card_config = CardConfig {
        range: [range("oop_range")?, range("ip_range")?],
        flop,
        turn,
        river,
    };
    let sizes = |street: &str| -> Result<[BetSizeOptions; 2], String> {
        let mut out: [BetSizeOptions; 2] = Default::default();
        for (p, who) in ["oop", "ip"].iter().enumerate() {
            let pick = |kind: &str| {
                string(&format!("{who}_{street}_{kind}"))
                    .or(string(&format!("{street}_{kind}")))
                    .unwrap_or("")
            };
            out[p] = BetSizeOptions::try_from((pick("bet"), pick("raise")))
                .map_err(|e| format!("{street} sizes: {e}"))?;
        }
        Ok(out)
    };
    let donk = |k: &str| -> Result<Option<DonkSizeOptions>, String> {
        string(k)
            .map(|s| DonkSizeOptions::try_from(s).map_err(|e| format!("spot key `{k}`: {e}")))
            .transpose()
    };
    let tree_config = TreeConfig {
        initial_state,
        starting_pot: int("pot")?,
        effective_stack: int("stack")?,
        rake_rate: number("rake"),
        rake_cap: number("rake_cap"),
        flop_bet_sizes: sizes("flop")?,
        turn_bet_sizes: sizes("turn")?,
        river_bet_sizes: sizes("river")?,
        turn_donk_sizes: donk("turn_donk")?,
        river_donk_sizes: donk("river_donk")?,
        add_allin_threshold: number("add_allin"),
        force_allin_threshold: number("force_allin"),
        merging_threshold: number("merge"),
    };
    Ok((card_config, tree_config))
}

/// Decision, terminal and chance nodes per street (flop, turn, river), counted as bluff counts
/// its public tree: decisions and terminals by the street of the node, chance nodes by the
/// street they close, an all-in call before the river one terminal on the street of the call.
fn counts(tree: &mut ActionTree, first: usize) -> [[u64; 3]; 3] {
    let mut c = [[0u64; 3]; 3];
    let mut stack: Vec<(Vec<Action>, usize)> = vec![(Vec::new(), first)];
    while let Some((history, mut street)) = stack.pop() {
        tree.apply_history(&history).expect("a history of the tree");
        if tree.is_terminal_node() {
            c[1][street] += 1;
            continue;
        }
        if tree.is_chance_node() {
            c[2][street] += 1;
            street += 1;
        }
        c[0][street] += 1;
        for &a in tree.available_actions() {
            let mut h = history.clone();
            h.push(a);
            stack.push((h, street));
        }
    }
    tree.back_to_root();
    c
}

/// The process's peak resident set in bytes (VmHWM), when the system says.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let o = parse_args()?;
    let text = std::fs::read_to_string(&o.spot).map_err(|e| format!("{}: {e}", o.spot))?;
    let (card_config, tree_config) = configs(&text)?;
    rayon::ThreadPoolBuilder::new()
        .num_threads(o.threads)
        .build_global()
        .map_err(|e| e.to_string())?;
    let pot = tree_config.starting_pot as f64;
    let first = tree_config.initial_state as usize;
    let build_start = Instant::now();
    let mut tree = ActionTree::new(tree_config)?;
    let c = counts(&mut tree, first);
    let counts_json = serde_json::json!({
        "decision": c[0], "terminal": c[1], "chance": c[2],
    });
    if o.counts_only {
        println!("{}", serde_json::json!({ "counts": counts_json }));
        return Ok(());
    }
    let mut game = PostFlopGame::with_config(card_config, tree)?;
    let (memory_f32, memory_compressed) = game.memory_usage();
    game.allocate_memory(false);
    let build_seconds = build_start.elapsed().as_secs_f64();

    let targets = [0.5f64, o.target_pot_pct];
    let mut reached: [Option<(u32, f64, f64)>; 2] = [None, None];
    let mut curve = Vec::new();
    let start = Instant::now();
    let mut iterations = 0u32;
    let mut exploitability = f64::INFINITY;
    while iterations < o.max_iterations {
        solve_step(&game, iterations);
        iterations += 1;
        if iterations % o.check_every == 0 || iterations == o.max_iterations {
            exploitability = compute_exploitability(&game) as f64;
            let seconds = start.elapsed().as_secs_f64();
            curve.push(serde_json::json!([iterations, seconds, exploitability]));
            for (k, &t) in targets.iter().enumerate() {
                if reached[k].is_none() && exploitability <= pot * t / 100.0 {
                    reached[k] = Some((iterations, seconds, exploitability));
                }
            }
            if exploitability <= pot * o.target_pot_pct / 100.0 {
                break;
            }
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    finalize(&mut game);
    game.back_to_root();
    game.cache_normalized_weights();
    let mut equity = [0.0f64; 2];
    let mut ev = [0.0f64; 2];
    for p in 0..2 {
        let w = game.normalized_weights(p);
        equity[p] = compute_average(&game.equity(p), w) as f64;
        ev[p] = compute_average(&game.expected_values(p), w) as f64;
    }
    let at = |k: usize| match reached[k] {
        Some((i, s, e)) => serde_json::json!({
            "pot_pct": targets[k], "iterations": i, "seconds": s, "exploitability": e,
        }),
        None => serde_json::Value::Null,
    };
    let out = serde_json::json!({
        "solver": "postflop-solver",
        "spot": o.spot,
        "threads": o.threads,
        "check_every": o.check_every,
        "counts": counts_json,
        "hands": [game.private_cards(0).len(), game.private_cards(1).len()],
        "memory_usage_f32_bytes": memory_f32,
        "memory_usage_compressed_bytes": memory_compressed,
        "build_seconds": build_seconds,
        "iterations": iterations,
        "seconds": seconds,
        "seconds_per_iteration": seconds / iterations.max(1) as f64,
        "exploitability": exploitability,
        "exploitability_pot_pct": 100.0 * exploitability / pot,
        "to_0_5_pct": at(0),
        "to_target": at(1),
        "root_equity": equity,
        "root_ev": ev,
        "peak_rss_bytes": peak_rss(),
        "curve": curve,
    });
    println!("{out}");
    Ok(())
}
