//! `bluff baby-poker`: the exact analysis of baby poker with dice (`docs/problems.md`).

use crate::plural;
use anyhow::Result;
use bluff::matrix::polytope::{format_constraint, integer_normal, Description, LinearConstraint};
use bluff::matrix::OptimalSet;
use bluff::problems::baby_poker::{analyse, Analysis, ANALYSIS_STEPS, MAX_MATRIX_SIDES};
use bluff::scalar::{format_rational, rational_to_f64, Rational};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use num_integer::Integer;
use num_traits::{One, Zero};
use serde_json::{json, Value};

/// Arguments of `bluff baby-poker`.
#[derive(Args, Debug)]
pub struct BabyPokerArgs {
    /// Faces of each die.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u8).range(2..=MAX_MATRIX_SIDES as i64))]
    sides: u8,
    /// Showdown stake after a raise is called (a call without raise plays for 1).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(i64).range(1..=1000))]
    raise: i64,
    /// Also print the pure payoff matrix.
    #[arg(long)]
    matrix: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `bluff baby-poker`.
pub fn run(args: BabyPokerArgs) -> Result<()> {
    let bar = ProgressBar::new(ANALYSIS_STEPS.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{spinner} {bar:30} {pos}/{len} {msg} ({elapsed})")
            .expect("static template")
            .progress_chars("=> "),
    );
    // Single steps take minutes at --sides 8: keep the spinner and clock moving.
    bar.enable_steady_tick(std::time::Duration::from_millis(500));
    let result = analyse(args.sides as usize, args.raise, &mut |step| {
        bar.set_position(step as u64);
        bar.set_message(ANALYSIS_STEPS[step]);
    });
    bar.finish_and_clear();
    let a = result?;
    if args.json {
        crate::print_json(&to_json(&a, args.matrix));
    } else {
        print_text(&a, args.matrix);
    }
    Ok(())
}

fn names(prefix: &str, n: usize) -> Vec<String> {
    (1..=n).map(|i| format!("{prefix}{i}")).collect()
}

fn vector(v: &[Rational]) -> String {
    let parts: Vec<String> = v.iter().map(format_rational).collect();
    format!("({})", parts.join(", "))
}

/// A mixed strategy as `weight label + ...` over its support.
fn mixture(v: &[Rational], labels: &[String]) -> String {
    let parts: Vec<String> = v
        .iter()
        .zip(labels)
        .filter(|(w, _)| !w.is_zero())
        .map(|(w, l)| format!("{} {l}", format_rational(w)))
        .collect();
    parts.join(" + ")
}

/// Readable source of inequality `k` of a behavioural optimal-set polytope (pure rows first,
/// then the box: lower bounds, upper bounds).
fn constraint_source(k: usize, a: &Analysis, player: usize) -> String {
    let s = a.sides;
    let pure = 1usize << s;
    let var = if player == 0 { "p" } else { "q" };
    if k < pure {
        let label = if player == 0 {
            &a.matrix.cols[k]
        } else {
            &a.matrix.rows[k]
        };
        if player == 0 {
            format!("against B's pure strategy {label} A earns at least the value")
        } else {
            format!("A's pure strategy {label} earns at most the value")
        }
    } else if k < pure + s {
        format!("{var}{} >= 0", k - pure + 1)
    } else {
        format!("{var}{} <= 1", k - pure - s + 1)
    }
}

fn hull_text(d: &Description, var: &str, n: usize) -> Vec<String> {
    let names = names(var, n);
    d.affine_hull
        .iter()
        .map(|c| format_constraint(&integer_normal(c), &names, "="))
        .collect()
}

fn facet_texts(d: &Description, a: &Analysis, player: usize) -> Vec<(String, String, String)> {
    let var = if player == 0 { "p" } else { "q" };
    let poly_names = names(var, a.sides);
    let free_names: Vec<String> = d
        .free_coords
        .iter()
        .map(|&f| poly_names[f].clone())
        .collect();
    let polytope = if player == 0 {
        bluff::problems::baby_poker::a_optimal_polytope(a.sides, a.raise, &a.normal_form.value)
    } else {
        bluff::problems::baby_poker::b_optimal_polytope(a.sides, a.raise, &a.normal_form.value)
    };
    d.facets
        .iter()
        .zip(&d.facets_on_hull)
        .map(|(&k, on_hull)| {
            let full: &LinearConstraint = &polytope.inequalities[k];
            (
                constraint_source(k, a, player),
                format_constraint(&integer_normal(full), &poly_names, "<="),
                format_constraint(on_hull, &free_names, "<="),
            )
        })
        .collect()
}

fn print_set(title: &str, set: &OptimalSet, labels: &[String]) {
    println!(
        "  {title}: {} pure strategies excluded by complementary slackness (they do worse than \
         the value against the opponent's optimum), {} kept",
        set.excluded.len(),
        set.kept.len()
    );
    println!(
        "    optimal set: dimension {}, {} facets, {} ({} exact LPs)",
        set.description.dimension,
        set.description.facets.len(),
        plural(set.vertices.len(), "vertex", "vertices"),
        set.description.lps_solved
    );
    for (i, v) in set.vertices.iter().enumerate() {
        println!("    {:>3}. {}", i + 1, mixture(v, labels));
    }
}

fn print_text(a: &Analysis, show_matrix: bool) {
    let s = a.sides;
    let n = 1usize << s;
    let v = &a.normal_form.value;
    println!(
        "baby poker: {s}-sided dice, raise {} ({})",
        a.raise,
        crate::game_size(&a.game)
    );
    println!(
        "pure strategies: {n} per player; strategy k is the {s}-digit binary of k, digit i = 1 \
         when A raises / B folds on die i"
    );
    println!(
        "the reduced normal form of the extensive game equals the {n}x{n} matrix built from the \
         closed form, entry by entry, exactly ({})",
        if a.normal_form_same_order {
            "same strategy order"
        } else {
            "after reordering strategies"
        }
    );
    if show_matrix {
        print_matrix(a);
    }
    println!();
    let pure = &a.pure;
    if pure.saddle_points.is_empty() {
        println!(
            "pure equilibria: none. max_i min_j P = {} (A plays {}) < min_j max_i P = {} (B plays \
             {}): no saddle point",
            format_rational(&pure.row_security),
            a.matrix.rows[pure.row_security_at],
            format_rational(&pure.col_security),
            a.matrix.cols[pure.col_security_at]
        );
    } else {
        println!("pure equilibria ({}):", pure.saddle_points.len());
        for sp in &pure.saddle_points {
            println!(
                "  A {} / B {}: {}",
                a.matrix.rows[sp.row],
                a.matrix.cols[sp.col],
                format_rational(&a.matrix.payoff[sp.row][sp.col])
            );
        }
    }
    println!();
    println!(
        "value for A, exact (float = the exact value rounded to f64: {}):",
        rational_to_f64(v)
    );
    println!(
        "  normal-form LP ({n}x{n})              {}",
        format_rational(v)
    );
    println!(
        "  behavioural LP, A's side (p, u)     {}",
        format_rational(&a.behavioural.value_a)
    );
    println!(
        "  behavioural LP, B's side (q, t)     {}",
        format_rational(&a.behavioural.value_b)
    );
    println!(
        "  sequence-form LP (extensive game)   {}",
        format_rational(&a.sequence_form_value)
    );
    println!();
    let unique_a = a.a_set.bounds.iter().all(|(lo, hi)| lo == hi);
    println!(
        "A's optimal behavioural strategy (p_i = P(raise on die i)); min/max of each p_i over A's \
         whole optimal set by exact LPs:"
    );
    println!("  die        p_i        min        max");
    for i in 0..s {
        let (lo, hi) = &a.a_set.bounds[i];
        println!(
            "  {:>3} {:>10} {:>10} {:>10}",
            i + 1,
            format_rational(&a.behavioural.p[i]),
            format_rational(lo),
            format_rational(hi)
        );
    }
    println!(
        "  {}",
        if unique_a {
            format!(
                "unique: min = max for every die; A's optimal set is the single point {}",
                vector(&a.a_set.vertices[0])
            )
        } else {
            format!(
                "not unique: A's optimal set has dimension {} and {} vertices",
                a.a_set.dimension,
                a.a_set.vertices.len()
            )
        }
    );
    println!();
    let b = &a.b_set;
    println!(
        "B's optimal set in behavioural space (q_j = P(fold on die j)): dimension {}, {} exact LPs",
        b.dimension, b.lps_solved
    );
    println!("  equalities (affine hull):");
    for e in hull_text(b, "q", s) {
        println!("    {e}");
    }
    println!("  ranges:");
    for (j, (lo, hi)) in b.bounds.iter().enumerate() {
        println!(
            "    q{} in [{}, {}]",
            j + 1,
            format_rational(lo),
            format_rational(hi)
        );
    }
    println!("  facets (each irredundant inequality, then the same on the affine hull):");
    for (source, full, on_hull) in facet_texts(b, a, 1) {
        println!("    {on_hull:<24}  from {full}  ({source})");
    }
    println!("  vertices ({}):", b.vertices.len());
    for q in &b.vertices {
        println!("    {}", vector(q));
    }
    let (b_checks, a_check) = a.tree_check.split_at(a.tree_check.len() - 1);
    println!(
        "  checked on the extensive game (exact best responses): A's best response to each vertex \
         earns {}; B's best response to A's optimum holds A to {}",
        if b_checks.iter().all(|x| x == v) {
            format!("exactly {}", format_rational(v))
        } else {
            "NOT the value (bug)".to_string()
        },
        format_rational(&(-a_check[0].clone()))
    );
    println!();
    println!("optimal mixed strategies ({n}-dimensional):");
    print_set("A", &a.a_mixed, &a.matrix.rows);
    print_set("B", &a.b_mixed, &a.matrix.cols);
}

fn print_matrix(a: &Analysis) {
    let denom = a
        .matrix
        .payoff
        .iter()
        .flatten()
        .fold(num_bigint::BigInt::one(), |acc, x| acc.lcm(x.denom()));
    let scale = Rational::from_integer(denom.clone());
    let cells: Vec<Vec<String>> = a
        .matrix
        .payoff
        .iter()
        .map(|r| r.iter().map(|x| format_rational(&(x * &scale))).collect())
        .collect();
    let width = cells.iter().flatten().map(|c| c.len()).max().unwrap_or(1);
    println!();
    println!(
        "pure matrix P (A's payoff; row = A's strategy, column = B's strategy k = 0..{}), \
         exact, times {denom}:",
        a.matrix.num_cols() - 1
    );
    for (label, row) in a.matrix.rows.iter().zip(&cells) {
        let line: Vec<String> = row.iter().map(|c| format!("{c:>width$}")).collect();
        println!("{label} {}", line.join(" "));
    }
}

fn exact(r: &Rational) -> Value {
    json!({"exact": format_rational(r), "float": rational_to_f64(r)})
}

fn strings(v: &[Rational]) -> Value {
    json!(v.iter().map(format_rational).collect::<Vec<_>>())
}

fn set_json(set: &OptimalSet, labels: &[String]) -> Value {
    json!({
        "excluded": set.excluded.len(),
        "kept": set.kept.iter().map(|&k| labels[k].clone()).collect::<Vec<_>>(),
        "dimension": set.description.dimension,
        "facets": set.description.facets.len(),
        "vertices": set.vertices.iter().map(|v| {
            let mut m = serde_json::Map::new();
            for (w, l) in v.iter().zip(labels) {
                if !w.is_zero() {
                    m.insert(l.clone(), json!(format_rational(w)));
                }
            }
            Value::Object(m)
        }).collect::<Vec<_>>(),
    })
}

fn to_json(a: &Analysis, with_matrix: bool) -> Value {
    let s = a.sides;
    let v = &a.normal_form.value;
    let b = &a.b_set;
    let mut out = json!({
        "game": format!("baby-poker(sides={s},raise={})", a.raise),
        "sides": s,
        "raise": a.raise,
        "pure_strategies_per_player": 1usize << s,
        "normal_form_equals_formula_matrix": true,
        "normal_form_same_order": a.normal_form_same_order,
        "pure": {
            "saddle_points": a.pure.saddle_points.iter().map(|p| json!({"row": a.matrix.rows[p.row], "col": a.matrix.cols[p.col]})).collect::<Vec<_>>(),
            "max_min": exact(&a.pure.row_security),
            "min_max": exact(&a.pure.col_security),
        },
        "value": {
            "normal_form_lp": exact(v),
            "behavioural_lp_a": exact(&a.behavioural.value_a),
            "behavioural_lp_b": exact(&a.behavioural.value_b),
            "sequence_form_lp": exact(&a.sequence_form_value),
        },
        "a_behavioural": {
            "p": strings(&a.behavioural.p),
            "min": strings(&a.a_set.bounds.iter().map(|b| b.0.clone()).collect::<Vec<_>>()),
            "max": strings(&a.a_set.bounds.iter().map(|b| b.1.clone()).collect::<Vec<_>>()),
            "unique": a.a_set.bounds.iter().all(|(lo, hi)| lo == hi),
            "vertices": a.a_set.vertices.iter().map(|x| strings(x)).collect::<Vec<_>>(),
        },
        "b_behavioural": {
            "dimension": b.dimension,
            "equalities": hull_text(b, "q", s),
            "min": strings(&b.bounds.iter().map(|b| b.0.clone()).collect::<Vec<_>>()),
            "max": strings(&b.bounds.iter().map(|b| b.1.clone()).collect::<Vec<_>>()),
            "facets": facet_texts(b, a, 1).into_iter().map(|(source, full, on_hull)| json!({"on_hull": on_hull, "inequality": full, "source": source})).collect::<Vec<_>>(),
            "vertices": b.vertices.iter().map(|q| strings(q)).collect::<Vec<_>>(),
            "tree_best_response_values": strings(&a.tree_check[..a.tree_check.len() - 1]),
        },
        "mixed": {
            "a": set_json(&a.a_mixed, &a.matrix.rows),
            "b": set_json(&a.b_mixed, &a.matrix.cols),
        },
    });
    if with_matrix {
        out["matrix"] = json!({
            "rows": a.matrix.rows,
            "cols": a.matrix.cols,
            "payoff": a.matrix.payoff.iter().map(|r| strings(r)).collect::<Vec<_>>(),
        });
    }
    out
}
