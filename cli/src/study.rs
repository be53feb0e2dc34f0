//! `bluff eval --against` (two strategies head to head) and `bluff diff` (where two
//! strategies differ): the command line's side of `bluff::study`.

use anyhow::Result;
use bluff::game::Game;
use bluff::scalar::{format_rational, rational_to_f64, Rational};
use bluff::strategy::ExactProfile;
use bluff::study::{combine, diff, set_changes};
use clap::Args;
use serde_json::json;
use std::path::PathBuf;

/// An exact value as `{exact, float}`.
fn exact(r: &Rational) -> serde_json::Value {
    json!({"exact": format_rational(r), "float": rational_to_f64(r)})
}

/// `a` against `b`: the exact values of both seatings, and per set where they differ the
/// exact change in `a`'s value if `a` played `b` there only (in the seating where `a` holds
/// that set's seat), sorted by size.
pub fn head_to_head(
    spec: &str,
    game: &Game,
    a: &ExactProfile,
    b: &ExactProfile,
    as_json: bool,
) -> Result<()> {
    let first = combine(a, b);
    let second = combine(b, a);
    let v_first = bluff::eval::values(game, &first)[0].clone();
    let v_second = bluff::eval::values(game, &second)[1].clone();
    let mut changes = set_changes(game, &first, &combine(b, b), 0);
    changes.extend(set_changes(game, &second, &combine(b, b), 1));
    changes.sort_by(|x, y| {
        let (ax, ay) = (x.change.to_f64_abs(), y.change.to_f64_abs());
        ay.partial_cmp(&ax).unwrap_or(std::cmp::Ordering::Equal)
    });
    let names = &game.player_names;
    if as_json {
        let sets: Vec<serde_json::Value> = changes
            .iter()
            .map(|c| {
                json!({
                    "player": names[c.player],
                    "set": game.infosets[c.player][c.infoset].label,
                    "change": exact(&c.change),
                })
            })
            .collect();
        crate::print_json(&json!({
            "game": spec,
            "value_a_first": exact(&v_first),
            "value_a_second": exact(&v_second),
            "sets": sets,
        }));
        return Ok(());
    }
    println!("game {spec}: A head to head against B (A's values, exact)");
    println!(
        "A as {} against B as {}: {} ({:.9})",
        names[0],
        names[1],
        format_rational(&v_first),
        rational_to_f64(&v_first)
    );
    println!(
        "A as {} against B as {}: {} ({:.9})",
        names[1],
        names[0],
        format_rational(&v_second),
        rational_to_f64(&v_second)
    );
    if changes.is_empty() {
        println!("A and B play the same strategy at every set");
        return Ok(());
    }
    println!(
        "{} where they differ, by the change in A's value if A played B's strategy there only:",
        crate::plural(changes.len(), "set", "sets")
    );
    println!(
        "{:<8} {:<28} {:>24} {:>16}",
        "player", "set", "change", "float"
    );
    for c in &changes {
        println!(
            "{:<8} {:<28} {:>24} {:>16.9}",
            names[c.player],
            game.infosets[c.player][c.infoset].label,
            format_rational(&c.change),
            rational_to_f64(&c.change)
        );
    }
    Ok(())
}

/// The absolute value as a float, for sorting.
trait AbsF64 {
    fn to_f64_abs(&self) -> f64;
}

impl AbsF64 for Rational {
    fn to_f64_abs(&self) -> f64 {
        rational_to_f64(self).abs()
    }
}

/// Arguments of `bluff diff`.
#[derive(Args, Debug)]
pub struct DiffArgs {
    /// Game spec (see `bluff games`).
    game: String,
    /// Strategy file A.
    a: PathBuf,
    /// Strategy file B.
    b: PathBuf,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// Runs `bluff diff`: per set where A and B differ, the largest probability difference and
/// the set's reach when A plays both seats, sorted by reach times difference.
pub fn run(args: DiffArgs) -> Result<()> {
    let game = crate::load_game(&args.game)?;
    let a = crate::eval::read_strategy(&game, &args.game, &args.a)?;
    let b = crate::eval::read_strategy(&game, &args.game, &args.b)?;
    let d = diff(&game, &a, &b);
    let names = &game.player_names;
    if args.json {
        let sets: Vec<serde_json::Value> = d
            .iter()
            .map(|x| {
                json!({
                    "player": names[x.player],
                    "set": game.infosets[x.player][x.infoset].label,
                    "largest_difference": exact(&x.largest),
                    "reach": exact(&x.reach),
                })
            })
            .collect();
        crate::print_json(&json!({"game": args.game, "sets": sets}));
        return Ok(());
    }
    if d.is_empty() {
        println!("A and B play the same strategy at every set");
        return Ok(());
    }
    println!(
        "{} where A and B differ, by reach (A plays both seats) times the largest difference:",
        crate::plural(d.len(), "set", "sets")
    );
    println!(
        "{:<8} {:<28} {:>14} {:>14} {:>14}",
        "player", "set", "difference", "reach", "weighted"
    );
    for x in &d {
        let (l, r) = (rational_to_f64(&x.largest), rational_to_f64(&x.reach));
        println!(
            "{:<8} {:<28} {:>14.6} {:>14.6} {:>14.6}",
            names[x.player],
            game.infosets[x.player][x.infoset].label,
            l,
            r,
            l * r
        );
    }
    Ok(())
}
