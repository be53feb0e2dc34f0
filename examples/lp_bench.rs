//! Helper for bench/lp_vs_gambit.sh while `bluff export` and the registry's Leduc are on other
//! branches: `lp_bench solve SPEC` prints the exact LP result as JSON (like `bluff lp --json`),
//! `lp_bench efg SPEC OUT` writes the game as a Gambit .efg file. SPEC is a registry spec, or
//! `leduc` (the independent test builder when the registry has no Leduc yet).

#[path = "../tests/common/leduc.rs"]
mod leduc;

use bluff::game::{Game, NodeKind};
use bluff::scalar::{format_rational, rational_to_f64};
use serde_json::json;
use std::fmt::Write as _;

fn load(spec: &str) -> Game {
    match bluff::games::load(spec) {
        Ok(g) => g,
        Err(_) if spec == "leduc" => leduc::leduc(),
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::exit(1);
        }
    }
}

fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\\\""))
}

/// Gambit .efg text: nodes in pre-order, one chance id per chance node, one outcome per terminal.
fn efg(game: &Game) -> String {
    let mut out = String::new();
    writeln!(
        out,
        "EFG 2 R {} {{ {} {} }}\n\"\"\n",
        quote(&game.name),
        quote(&game.player_names[0]),
        quote(&game.player_names[1])
    )
    .unwrap();
    let (mut chance_id, mut outcome_id) = (0, 0);
    let mut stack = vec![0usize];
    while let Some(node) = stack.pop() {
        let nd = &game.nodes[node];
        match nd.kind {
            NodeKind::Chance => {
                chance_id += 1;
                let branches: Vec<String> = nd
                    .children()
                    .map(|c| {
                        format!(
                            "{} {}",
                            quote(&game.chance_label[c]),
                            format_rational(&game.chance_prob[c])
                        )
                    })
                    .collect();
                writeln!(
                    out,
                    "c \"\" {chance_id} \"\" {{ {} }} 0",
                    branches.join(" ")
                )
                .unwrap();
            }
            NodeKind::Decision { player, infoset } => {
                let set = &game.infosets[player as usize][infoset as usize];
                let actions: Vec<String> = set.actions.iter().map(|a| quote(a)).collect();
                writeln!(
                    out,
                    "p \"\" {} {} {} {{ {} }} 0",
                    player + 1,
                    infoset + 1,
                    quote(&set.label),
                    actions.join(" ")
                )
                .unwrap();
            }
            NodeKind::Terminal { terminal } => {
                outcome_id += 1;
                let t = terminal as usize;
                writeln!(
                    out,
                    "t \"\" {outcome_id} \"\" {{ {}, {} }}",
                    format_rational(&game.payoff(t, 0)),
                    format_rational(&game.payoff(t, 1))
                )
                .unwrap();
            }
        }
        stack.extend(nd.children().rev());
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("solve") if args.len() == 3 => {
            let game = load(&args[2]);
            let s = bluff::solve::sequence_form::solve_exact(&game).unwrap_or_else(|e| {
                eprintln!("error: {e:#}");
                std::process::exit(1)
            });
            let st = &s.stats;
            println!(
                "{}",
                json!({
                    "game": args[2],
                    "value_p1": {"exact": format_rational(&s.value), "float": rational_to_f64(&s.value)},
                    "sequences": st.sequences,
                    "float_pivots": st.lp.float_pivots,
                    "exact_pivots": st.lp.exact_pivots,
                    "seconds": {
                        "build": st.build_time.as_secs_f64(),
                        "float_simplex": st.lp.float_time.as_secs_f64(),
                        "exact": st.lp.exact_time.as_secs_f64(),
                        "solve_total": st.solve_time.as_secs_f64(),
                        "certify": st.certify_time.as_secs_f64(),
                    },
                })
            );
        }
        Some("efg") if args.len() == 4 => {
            let game = load(&args[2]);
            std::fs::write(&args[3], efg(&game)).unwrap_or_else(|e| {
                eprintln!("error: writing {}: {e}", args[3]);
                std::process::exit(1)
            });
        }
        _ => {
            eprintln!("usage: lp_bench solve SPEC | lp_bench efg SPEC OUT.efg");
            std::process::exit(2);
        }
    }
}
