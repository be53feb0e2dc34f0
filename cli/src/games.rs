//! `bluff games`: the built-in games.

use anyhow::Result;
use bluff::games::registry;
use clap::Args;
use serde_json::json;

/// Arguments of `bluff games`.
#[derive(Args, Debug)]
pub struct GamesArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: GamesArgs) -> Result<()> {
    let games = registry();
    if args.json {
        let list: Vec<_> = games
            .iter()
            .map(|g| {
                json!({
                    "name": g.name,
                    "description": g.description,
                    "params": g.params.iter().map(|p| json!({"name": p.name, "default": p.default, "min": p.min, "max": p.max, "doc": p.doc, "choices": p.choices, "decimal": p.decimal})).collect::<Vec<_>>(),
                })
            })
            .collect();
        crate::print_json(&json!(list));
        return Ok(());
    }
    for g in &games {
        println!("{:<18} {}", g.name, g.description);
        for p in g.params {
            if p.choices.is_empty() {
                println!(
                    "{:<18}   {}={} ({}..={}): {}",
                    "", p.name, p.default, p.min, p.max, p.doc
                );
            } else {
                println!(
                    "{:<18}   {}={} ({}): {}",
                    "",
                    p.name,
                    p.choices[p.default as usize],
                    p.choices.join(" | "),
                    p.doc
                );
            }
        }
    }
    println!("\nGive parameters as name(key=value,...), e.g. one-card-poker(n=5,a=2,b=1).");
    Ok(())
}
