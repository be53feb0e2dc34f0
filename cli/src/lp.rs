//! `bluff solve --algo lp`: solve a game exactly by the sequence-form linear program.

use anyhow::Result;
use bluff::format::strategy_json::profile_to_json;
use bluff::scalar::{format_rational, rational_to_f64};
use bluff::solve::exact::{solve_exact_with, ExactOptions, ExactSolution};
use bluff::solve::lp::{memory, LinearProgram, Method, SolveOptions};
use bluff::solve::sequence_form::{LpForm, LpPrimal};
use clap::ValueEnum;
use serde_json::json;
use std::path::Path;

/// Simplex method for `bluff solve --algo lp`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum LpMethod {
    /// Sparse float simplex finds the basis; exact LU verifies it, exact pivots repair it.
    Guided,
    /// Dense exact tableau with Bland's rule (slow; for small games and cross-checks).
    Tableau,
}

/// The LP form of `bluff solve --algo lp --lp-form`.
#[derive(Clone, Copy, Debug, Default, ValueEnum)]
pub enum LpFormArg {
    /// One-action information sets' sequences merged into their parents' (fewer rows).
    #[default]
    Merged,
    /// One variable or row per sequence (Koller, Megiddo and von Stengel).
    Textbook,
}

/// Whose maximin LP `bluff solve --algo lp --lp-primal` solves.
#[derive(Clone, Copy, Debug, Default, ValueEnum)]
pub enum LpPrimalArg {
    /// P2's from 10 000 rows on (measured faster on the large games), else P1's.
    #[default]
    Auto,
    /// The first player's: its strategy is the LP's variables, P2's the duals.
    P1,
    /// The second player's: its strategy is the LP's variables, P1's the duals.
    P2,
}

/// Solves `spec` exactly on `threads` worker threads and reports it (table or JSON); writes the
/// strategy to `output`. Returns the game and its solution (for `--report`).
#[allow(clippy::too_many_arguments)]
pub fn run(
    spec: &str,
    lp_method: LpMethod,
    lp_form: LpFormArg,
    lp_primal: LpPrimalArg,
    max_memory: Option<u64>,
    write_mps: Option<&Path>,
    output: Option<&Path>,
    json_out: bool,
    threads: usize,
) -> Result<(bluff::game::Game, ExactSolution)> {
    let game = crate::load_game(spec)?;
    let method = match lp_method {
        LpMethod::Guided => Method::FloatThenExact,
        LpMethod::Tableau => Method::ExactTableau,
    };
    let form_name = format!("{lp_form:?}").to_lowercase();
    let form = match lp_form {
        LpFormArg::Merged => LpForm::Merged,
        LpFormArg::Textbook => LpForm::Textbook,
    };
    let primal = match lp_primal {
        LpPrimalArg::Auto => LpPrimal::Auto,
        LpPrimalArg::P1 => LpPrimal::First,
        LpPrimalArg::P2 => LpPrimal::Second,
    };
    let spinner = crate::LpSpinner::new();
    let progress = |p: &bluff::solve::lp::LpProgress| spinner.report(p);
    let write = |lp: &LinearProgram| -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        if let Some(path) = write_mps {
            let mut text = Vec::new();
            lp.write_mps(&mut text)?;
            bluff::format::output::write_file(path, &text)?;
        }
        Ok(())
    };
    let options = ExactOptions {
        lp: SolveOptions {
            method,
            progress: Some(&progress),
            max_memory: max_memory.unwrap_or_else(memory::default_budget),
            reconstruct: true,
        },
        form,
        primal,
        threads: Some(threads),
        inspect: Some(&write),
    };
    let s = solve_exact_with(&game, &options);
    drop(spinner);
    let s = s?;
    if let Some(path) = output {
        let text = serde_json::to_string_pretty(&profile_to_json(&game, spec, &s.profile))
            .expect("JSON values serialise");
        crate::files::write_output(path, (text + "\n").as_bytes())?;
    }
    let st = &s.stats;
    let value_p2 = &game.constant_sum - &s.value;
    if json_out {
        crate::print_json(&json!({
            "game": spec,
            "method": format!("{lp_method:?}").to_lowercase(),
            "value_p1": {"exact": format_rational(&s.value), "float": rational_to_f64(&s.value)},
            "value_p2": {"exact": format_rational(&value_p2), "float": rational_to_f64(&value_p2)},
            "nash_conv": "0",
            "certified": "exact best responses: NashConv exactly 0",
            "sequences": st.sequences,
            "lp_form": form_name,
            "lp_primal": format!("p{}", st.lp_primal + 1),
            "lp_vars": st.lp_vars,
            "lp_rows": st.lp_rows,
            "float_pivots": st.lp.float_pivots,
            "exact_pivots": st.lp.exact_pivots,
            "exact_factorizations": st.lp.exact_factorizations,
            "tableau_fallback": st.lp.tableau_fallback,
            "exact_route": st.lp.route.name(),
            "refinement_rounds": st.lp.refinement_rounds,
            "presolve_removed": {"rows": st.lp.presolve_rows, "cols": st.lp.presolve_cols},
            "seconds": {
                "build": st.build_time.as_secs_f64(),
                "presolve": st.lp.presolve_time.as_secs_f64(),
                "float_simplex": st.lp.float_time.as_secs_f64(),
                "exact": st.lp.exact_time.as_secs_f64(),
                "solve_total": st.solve_time.as_secs_f64(),
                "certify": st.certify_time.as_secs_f64(),
            },
            "output": output.map(|p| p.display().to_string()),
        }));
        return Ok((game, s));
    }
    if output.is_some_and(crate::files::is_stdout) {
        // Standard output carries the strategy; keep it clean.
        eprintln!(
            "exact value for {}: {} (certified: NashConv exactly 0)",
            game.player_names[0],
            format_rational(&s.value)
        );
        return Ok((game, s));
    }
    println!(
        "game {} ({}, {} + {} sequences)",
        spec,
        crate::game_size(&game),
        st.sequences[0],
        st.sequences[1]
    );
    let names = &game.player_names;
    println!(
        "value for {}: {} (~ {:.15}; the decimal is the exact value rounded to f64)",
        names[0],
        format_rational(&s.value),
        rational_to_f64(&s.value)
    );
    println!(
        "value for {}: {} (~ {:.15})",
        names[1],
        format_rational(&value_p2),
        rational_to_f64(&value_p2)
    );
    println!("certificate: exact best responses give NashConv = 0 exactly");
    println!(
        "LP ({}, {}'s maximin) {} vars x {} rows; {} float pivots, exact by {} ({} refinement rounds), {} exact pivots, {} exact factorisations{}",
        form_name,
        names[st.lp_primal],
        st.lp_vars,
        st.lp_rows,
        st.lp.float_pivots,
        st.lp.route.name(),
        st.lp.refinement_rounds,
        st.lp.exact_pivots,
        st.lp.exact_factorizations,
        if st.lp.tableau_fallback {
            " (fell back to the exact tableau)"
        } else {
            ""
        }
    );
    println!(
        "time: build {:.3}s, float simplex {:.3}s, exact {:.3}s, certificate {:.3}s",
        st.build_time.as_secs_f64(),
        st.lp.float_time.as_secs_f64(),
        st.lp.exact_time.as_secs_f64(),
        st.certify_time.as_secs_f64()
    );
    if let Some(path) = output {
        println!("wrote {}", path.display());
    }
    Ok((game, s))
}
