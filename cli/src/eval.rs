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
    /// Game spec (see `bluff games`) or a hold'em spot file (.toml).
    game: String,
    /// Strategy JSON file (as written by `bluff solve`); for a hold'em spot (.toml), the
    /// strategy file `bluff solve SPOT.toml -o S` wrote.
    strategy: PathBuf,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Write each player's exact best response to the other's strategy as one strategy
    /// file to -o (the first action where actions tie or the opponent never reaches a set).
    #[arg(long, requires = "output", conflicts_with = "against")]
    best_response: bool,
    /// Where --best-response writes (`-` for standard output).
    #[arg(
        short = 'o',
        long = "output",
        value_name = "FILE",
        requires = "best_response"
    )]
    output: Option<PathBuf>,
    /// For a hold'em spot: also the exploitability in rationals, the spot played as an
    /// ordinary game hand against hand (each stored probability read as the rational it is);
    /// other games are always evaluated exactly.
    #[arg(long)]
    exact: bool,
    /// Play the strategy head to head against this strategy file: the exact value with
    /// STRATEGY first and B second, and swapped, and for each set where they differ the exact
    /// change in STRATEGY's value if it played B's strategy at that set only.
    #[arg(long, value_name = "B")]
    against: Option<PathBuf>,
}

/// Reads a strategy file of `game` (named `spec`) exactly, warning when it names another game.
pub(crate) fn read_strategy(
    game: &bluff::game::Game,
    spec: &str,
    path: &std::path::Path,
) -> Result<bluff::strategy::ExactProfile> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let (profile, named) = profile_from_json(game, &text)
        .with_context(|| format!("strategy file {}", path.display()))?;
    if let Some(named) = named {
        if named != spec {
            eprintln!(
                "warning: {} says it is for game {}, evaluating it as {}",
                path.display(),
                bluff::format::text::quoted(&named),
                bluff::format::text::quoted(spec)
            );
        }
    }
    Ok(profile)
}

pub fn run(args: EvalArgs) -> Result<()> {
    if crate::spot::is_spot(&args.game) {
        if args.best_response || args.against.is_some() {
            anyhow::bail!(
                "--best-response and --against are not built for hold'em spots; \
                 give SPOT.toml STRATEGY [--json]"
            );
        }
        return crate::spot::eval(&args.game, &args.strategy, args.json, args.exact);
    }
    if let Some(path) = &args.output {
        let mut plan = crate::files::FilePlan::new();
        plan.input(&args.strategy);
        if let Some(b) = &args.against {
            plan.input(b);
        }
        plan.output("-o", path).check()?;
        if crate::files::is_stdout(path) && args.json {
            anyhow::bail!("-o - and --json both want standard output");
        }
    }
    let game = crate::load_game(&args.game)?;
    let profile = read_strategy(&game, &args.game, &args.strategy)?;
    let against = match &args.against {
        Some(path) => Some(read_strategy(&game, &args.game, path)?),
        None => None,
    };
    if let Some(b) = &against {
        return crate::study::head_to_head(&args.game, &game, &profile, b, args.json);
    }
    let e = exploitability(&game, &profile);
    if let Some(path) = &args.output {
        let br = bluff::study::best_response_profile(&game, &profile);
        let value = bluff::format::strategy_json::profile_to_json(&game, &args.game, &br);
        let text = serde_json::to_string_pretty(&value).expect("JSON values serialise");
        crate::files::write_output(path, (text + "\n").as_bytes())?;
        if crate::files::is_stdout(path) {
            return Ok(());
        }
    }
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
    // `--json` also gives each player's best-response gain (exact), whatever the game.
    let gains = [
        ("best_response_gain_p1", &e.gain[0]),
        ("best_response_gain_p2", &e.gain[1]),
    ];
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
        for (key, v) in gains {
            obj.insert(
                key.into(),
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
    if let Some(path) = args.output.as_ref().filter(|p| !crate::files::is_stdout(p)) {
        println!("best responses written to {}", path.display());
    }
    Ok(())
}
