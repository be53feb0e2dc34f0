//! `bluff normal-form`: the reduced normal form of a built-in game, its saddle points and its
//! exact matrix-game solution; with `--all`, every extreme equilibrium of a two-player game
//! (constant-sum or not) and the maximal cliques of interchangeable ones.

use anyhow::Result;
use bluff::matrix::normal_form::{reduced_normal_form, DEFAULT_MAX_STRATEGIES};
use bluff::scalar::{format_rational, rational_to_f64, Rational};
use clap::Args;
use num_traits::Zero;
use serde_json::json;

/// Arguments of `bluff normal-form`.
#[derive(Args, Debug)]
pub struct NormalFormArgs {
    /// Game spec (see `bluff games`).
    game: String,
    /// Refuse games with more reduced pure strategies than this per player.
    #[arg(long, default_value_t = DEFAULT_MAX_STRATEGIES)]
    max_strategies: usize,
    /// Also print the payoff matrix (exact entries).
    #[arg(long)]
    matrix: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Every extreme Nash equilibrium, exactly, with the maximal cliques of interchangeable
    /// equilibria (two-player games, constant-sum or general-sum).
    #[arg(long)]
    all: bool,
    /// With --all: refuse when a best-response polytope has more vertices than this.
    #[arg(long, default_value_t = DEFAULT_MAX_VERTICES, requires = "all")]
    max_vertices: usize,
}

/// `--max-vertices`' default.
const DEFAULT_MAX_VERTICES: usize = 100_000;

/// `bluff normal-form GAME --all`: every extreme equilibrium and the maximal cliques.
fn run_all(args: &NormalFormArgs, game: &bluff::game::Game) -> Result<()> {
    use bluff::lcp::bimatrix::{all_extreme_equilibria, Bimatrix};
    let m = Bimatrix::reduced(game, args.max_strategies)?;
    let all = all_extreme_equilibria(&m, args.max_vertices)?;
    let exact = |v: &[Rational]| v.iter().map(format_rational).collect::<Vec<_>>();
    if args.json {
        let out = json!({
            "game": args.game,
            "strategies": [m.rows, m.cols],
            "equilibria": all.equilibria.iter().map(|e| json!({
                "p1": exact(&e.p1),
                "p2": exact(&e.p2),
                "value_p1": format_rational(&e.value_p1),
                "value_p2": format_rational(&e.value_p2),
            })).collect::<Vec<_>>(),
            "cliques": all.cliques,
            "vertices": all.vertices,
        });
        crate::print_json(&out);
        return Ok(());
    }
    let names = &game.player_names;
    println!(
        "{} x {} reduced pure strategies of {}; {} extreme equilibria, exact ({} + {} vertices \
         of the best-response polytopes)",
        m.rows.len(),
        m.cols.len(),
        args.game,
        all.equilibria.len(),
        all.vertices[0],
        all.vertices[1]
    );
    for (i, e) in all.equilibria.iter().enumerate() {
        println!(
            "equilibrium {}: {} gets {}, {} gets {}",
            i + 1,
            names[0],
            format_rational(&e.value_p1),
            names[1],
            format_rational(&e.value_p2)
        );
        for (p, (v, labels)) in [(&e.p1, &m.rows), (&e.p2, &m.cols)].into_iter().enumerate() {
            for (l, w) in support(v, labels) {
                println!("  {} {:>10}  [{l}]", names[p], format_rational(&w));
            }
        }
    }
    println!("maximal cliques of interchangeable equilibria (their convex hulls make up every equilibrium):");
    for c in &all.cliques {
        let ids: Vec<String> = c.iter().map(|i| (i + 1).to_string()).collect();
        println!("  {{{}}}", ids.join(", "));
    }
    Ok(())
}

fn support(v: &[Rational], labels: &[String]) -> Vec<(String, Rational)> {
    v.iter()
        .zip(labels)
        .filter(|(w, _)| !w.is_zero())
        .map(|(w, l)| (l.clone(), w.clone()))
        .collect()
}

/// Runs `bluff normal-form`.
pub fn run(args: NormalFormArgs) -> Result<()> {
    let game = crate::load_game(&args.game)?;
    if args.all {
        return run_all(&args, &game);
    }
    let nf = reduced_normal_form(&game, args.max_strategies)?;
    let m = &nf.matrix;
    let pure = m.pure_analysis();
    let sol = m.solve()?;
    let names = &game.player_names;
    let rows = support(&sol.row_strategy, &m.rows);
    let cols = support(&sol.col_strategy, &m.cols);
    if args.json {
        let mix = |s: &[(String, Rational)]| {
            s.iter()
                .map(|(l, w)| json!({"strategy": l, "probability": format_rational(w)}))
                .collect::<Vec<_>>()
        };
        let mut out = json!({
            "game": args.game,
            "strategies": [m.num_rows(), m.num_cols()],
            "saddle_points": pure.saddle_points.iter().map(|p| json!({"row": m.rows[p.row], "col": m.cols[p.col]})).collect::<Vec<_>>(),
            "max_min": format_rational(&pure.row_security),
            "min_max": format_rational(&pure.col_security),
            "value": {"exact": format_rational(&sol.value), "float": rational_to_f64(&sol.value)},
            "optimal": [mix(&rows), mix(&cols)],
        });
        if args.matrix {
            out["matrix"] = json!({
                "rows": m.rows,
                "cols": m.cols,
                "payoff": m.payoff.iter().map(|r| r.iter().map(format_rational).collect::<Vec<_>>()).collect::<Vec<_>>(),
            });
        }
        crate::print_json(&out);
        return Ok(());
    }
    println!(
        "reduced normal form of {}: {} x {} ({} x {} reduced pure strategies), payoffs to {}, exact",
        args.game,
        m.num_rows(),
        m.num_cols(),
        names[0],
        names[1],
        names[0]
    );
    if args.matrix {
        for (label, row) in m.rows.iter().zip(&m.payoff) {
            let cells: Vec<String> = row.iter().map(format_rational).collect();
            println!("  [{label}] {}", cells.join(" "));
        }
        println!("  columns in order:");
        for c in &m.cols {
            println!("    [{c}]");
        }
    }
    if pure.saddle_points.is_empty() {
        println!(
            "pure equilibria: none (max-min {} < min-max {})",
            format_rational(&pure.row_security),
            format_rational(&pure.col_security)
        );
    } else {
        println!("pure equilibria: {}", pure.saddle_points.len());
        for p in &pure.saddle_points {
            println!("  [{}] vs [{}]", m.rows[p.row], m.cols[p.col]);
        }
    }
    println!(
        "value for {}: {} (exact LP; float {})",
        names[0],
        format_rational(&sol.value),
        rational_to_f64(&sol.value)
    );
    for (p, s) in [(0, &rows), (1, &cols)] {
        println!("an optimal mixed strategy of {}:", names[p]);
        for (l, w) in s {
            println!("  {:>10}  [{l}]", format_rational(w));
        }
    }
    Ok(())
}
