//! `bluff eval`: score a strategy file against best responses.

use anyhow::{Context, Result};
use bluff::eval::exploitability;
use bluff::format::strategy_json::profile_from_json;
use bluff::scalar::{format_rational, rational_to_f64};
use clap::Args;
use serde_json::json;
use std::path::PathBuf;

/// Arguments of `bluff eval`.
#[derive(Args, Debug)]
pub struct EvalArgs {
    /// Game spec (see `bluff games`).
    game: String,
    /// Strategy JSON file (as written by `bluff solve`).
    strategy: PathBuf,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: EvalArgs) -> Result<()> {
    let game = crate::load_game(&args.game)?;
    let text = std::fs::read_to_string(&args.strategy)
        .with_context(|| format!("reading {}", args.strategy.display()))?;
    let (profile, named) = profile_from_json(&game, &text)
        .with_context(|| format!("strategy file {}", args.strategy.display()))?;
    if let Some(named) = named {
        if named != args.game {
            eprintln!(
                "warning: {} says it is for game {}, evaluating it as {}",
                args.strategy.display(),
                bluff::format::text::quoted(&named),
                bluff::format::text::quoted(&args.game)
            );
        }
    }
    let e = exploitability(&game, &profile);
    let names = &game.player_names;
    // (label, JSON key, value): a general-sum game adds each player's gain and drops the
    // zero-sum exploitability.
    let mut rows = vec![
        (format!("{} value", names[0]), "value_p1", &e.value[0]),
        (format!("{} value", names[1]), "value_p2", &e.value[1]),
        (
            format!("{} best-response value", names[0]),
            "best_response_value_p1",
            &e.best_response_value[0],
        ),
        (
            format!("{} best-response value", names[1]),
            "best_response_value_p2",
            &e.best_response_value[1],
        ),
    ];
    if game.is_constant_sum() {
        rows.push(("NashConv".to_string(), "nash_conv", &e.nash_conv));
        rows.push((
            "exploitability".to_string(),
            "exploitability",
            &e.exploitability,
        ));
    } else {
        rows.push((format!("{} gain", names[0]), "gain_p1", &e.gain[0]));
        rows.push((format!("{} gain", names[1]), "gain_p2", &e.gain[1]));
        rows.push((
            "NashConv (sum of gains)".to_string(),
            "nash_conv",
            &e.nash_conv,
        ));
    }
    if args.json {
        let mut obj = serde_json::Map::new();
        obj.insert("game".into(), json!(args.game));
        if !game.is_constant_sum() {
            obj.insert("general_sum".into(), json!(true));
        }
        for (_, key, v) in &rows {
            obj.insert(
                (*key).into(),
                json!({"exact": format_rational(v), "float": rational_to_f64(v)}),
            );
        }
        crate::print_json(&serde_json::Value::Object(obj));
        return Ok(());
    }
    println!("game {} ({})", args.game, crate::game_size(&game));
    println!(
        "all values computed exactly in rationals; the float column is the exact value rounded"
    );
    println!("{:<32} {:>24} {:>22}", "", "exact", "float");
    if !game.is_constant_sum() {
        println!(
            "a general-sum game: each player's gain is what a best response adds to its value"
        );
    }
    for (label, _, v) in rows {
        println!(
            "{:<32} {:>24} {:>22.15}",
            label,
            format_rational(v),
            rational_to_f64(v)
        );
    }
    Ok(())
}
