//! `bluff one-card-poker`: the contest task end to end: solve (`N A B` on stdin), `validate` a
//! 4N-line file, `batch` a set of tests into a directory and a ZIP.

use crate::files::write_output;
use anyhow::{bail, Context, Result};
use bluff::problems::one_card_poker::contest_format::{
    parse_input, parse_strategy, FileErrors, Precision,
};
use bluff::problems::one_card_poker::task::{self, Produced};
use bluff::problems::one_card_poker::{score, OcpParams, OcpScore};
use bluff::scalar::{format_rational, rational_to_f64, Rational};
use clap::{Args, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{json, Value};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

/// Arguments of `bluff one-card-poker`.
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct OcpArgs {
    #[command(subcommand)]
    command: Option<OcpCommand>,
    #[command(flatten)]
    solve: SolveArgs,
}

#[derive(Subcommand, Debug)]
enum OcpCommand {
    /// Check a 4N-line strategy file and score it exactly against a best response.
    Validate(ValidateArgs),
    /// Solve many input files into a directory (one `.out` per `.in`), validate each, zip them.
    Batch(BatchArgs),
}

/// How to compute the strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Method {
    /// A certified exact equilibrium (gap exactly 0 in rationals).
    Exact,
    /// The contest write-up's vanilla CFR (an approximation).
    Cfr,
    /// The general engine's exact sequence-form LP on the per-pair game (slower; an
    /// independent route to an exact equilibrium, certified the same way).
    Lp,
}

#[derive(Args, Debug, Clone)]
struct SolveArgs {
    /// Number of cards (with --ante and --bet instead of reading `N A B` from stdin).
    #[arg(long, requires_all = ["ante", "bet"])]
    n: Option<usize>,
    /// The pot A the dealer puts in.
    #[arg(long, requires = "n")]
    ante: Option<i64>,
    /// The bet size B.
    #[arg(long, requires = "n")]
    bet: Option<i64>,
    #[command(flatten)]
    produce: ProduceArgs,
}

#[derive(Args, Debug)]
struct ValidateArgs {
    /// The task's input file (`N A B`).
    #[arg(long)]
    input: PathBuf,
    /// The strategy file to check.
    strategy: PathBuf,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct BatchArgs {
    /// Input files (`N A B` each), e.g. tests/*.in.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Directory for the outputs (created if missing); 01.in becomes DIR/01.out.
    #[arg(long)]
    out: PathBuf,
    /// Also write the outputs into this ZIP file.
    #[arg(long)]
    zip: Option<PathBuf>,
    #[command(flatten)]
    solve: ProduceArgs,
}

/// How to produce and print strategies (shared by the single solve and `batch`).
#[derive(Args, Debug, Clone)]
struct ProduceArgs {
    /// exact: certified equilibrium (vector form); lp: the general sequence-form LP; cfr: the write-up's vanilla CFR.
    #[arg(long, value_enum, default_value_t = Method::Exact)]
    method: Method,
    /// CFR iterations (with --method cfr), at least 1.
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(1..=MAX_CFR_ITERATIONS as u64))]
    iterations: u64,
    /// Print probabilities as exact fractions p/q instead of decimals.
    #[arg(long)]
    exact: bool,
    /// Decimal places of printed probabilities (0..=1000; 18 already scores within about
    /// 1e-20 of the optimum).
    #[arg(long, default_value_t = 18, value_parser = clap::value_parser!(u16).range(0..=MAX_DIGITS as i64))]
    digits: u16,
    /// Print JSON instead of text (the lines and the printed text's exact score; for batch,
    /// the table's rows).
    #[arg(long)]
    json: bool,
}

/// Most decimal places `--digits` accepts: far more than a contest file needs (the printed
/// text must score within 1e-9, which 18 places beat by 11 orders of magnitude), and still fast.
pub const MAX_DIGITS: usize = 1000;
/// Most `--iterations` of `--method cfr` (about an hour at N = 50).
pub const MAX_CFR_ITERATIONS: usize = 1_000_000_000;

/// Problems listed by `validate --json` (all are counted), as in the text report.
pub const MAX_LISTED_ERRORS: usize =
    bluff::problems::one_card_poker::contest_format::MAX_REPORTED_ERRORS;

/// Runs `bluff one-card-poker`.
pub fn run(args: OcpArgs) -> Result<()> {
    match args.command {
        Some(OcpCommand::Validate(v)) => validate(v),
        Some(OcpCommand::Batch(b)) => batch(b),
        None => solve(args.solve),
    }
}

/// Solves, prints and scores through the library (`one_card_poker::task::produce`), with a
/// progress bar for CFR.
fn produce(
    params: &OcpParams,
    method: Method,
    iterations: usize,
    exact: bool,
    digits: usize,
) -> Result<Produced> {
    let precision = if exact {
        Precision::Exact
    } else {
        Precision::Decimal(digits)
    };
    let bar = if method == Method::Cfr {
        ProgressBar::new(iterations as u64).with_style(
            ProgressStyle::with_template("CFR {bar:40} {pos}/{len} iterations ({eta})")
                .expect("valid template"),
        )
    } else {
        ProgressBar::hidden()
    };
    let method = match method {
        Method::Exact => task::Method::Exact,
        Method::Lp => task::Method::Lp,
        Method::Cfr => task::Method::Cfr,
    };
    let produced = task::produce(params, method, iterations, precision, |done| {
        bar.set_position(done as u64)
    });
    bar.finish_and_clear();
    Ok(produced?)
}

fn read_params(args: &SolveArgs) -> Result<OcpParams> {
    if let (Some(n), Some(a), Some(b)) = (args.n, args.ante, args.bet) {
        // Input piped in as well would be ignored silently; say so instead.
        if !std::io::stdin().is_terminal() {
            let text = crate::files::read_stdin("nothing (N A B came as options)")?;
            if !text.trim().is_empty() {
                bail!(
                    "`N A B` given twice: with --n/--ante/--bet and on stdin ({}); give one",
                    bluff::format::text::quoted(text.trim())
                );
            }
        }
        return parse_input(&format!("{n} {a} {b}")).map_err(|e| anyhow::anyhow!("{e}"));
    }
    let text = crate::files::read_stdin("`N A B`")?;
    parse_input(&text).map_err(|e| anyhow::anyhow!("stdin: {e}"))
}

fn exact_json(r: &Rational) -> Value {
    json!({"exact": format_rational(r), "float": rational_to_f64(r)})
}

fn score_json(s: &OcpScore<Rational>) -> Value {
    json!({
        "first_seat": exact_json(&s.first_seat),
        "second_seat": exact_json(&s.second_seat),
        "average": exact_json(&s.average),
        "gap": exact_json(&s.gap),
    })
}

fn method_name(m: Method) -> &'static str {
    match m {
        Method::Exact => "exact",
        Method::Cfr => "cfr",
        Method::Lp => "lp",
    }
}

fn solve(solve_args: SolveArgs) -> Result<()> {
    let params = read_params(&solve_args)?;
    let args = &solve_args.produce;
    let out = produce(
        &params,
        args.method,
        args.iterations as usize,
        args.exact,
        args.digits as usize,
    )?;
    if args.json {
        crate::print_json(&json!({
            "n": params.n, "a": params.ante, "b": params.bet,
            "method": method_name(args.method),
            "iterations": out.iterations,
            "seconds": out.seconds,
            "optimum": exact_json(&params.value()),
            "printed_score": score_json(&out.printed),
            "lines": out.text.lines().collect::<Vec<_>>(),
        }));
        return Ok(());
    }
    print!("{}", out.text);
    let gap = &out.printed.gap;
    match args.method {
        Method::Exact | Method::Lp => eprintln!(
            "exact equilibrium ({}), certified by an exact best response (gap 0); the printed text scores {} chips, gap {} (= {:.3e})",
            if args.method == Method::Lp { "sequence-form LP" } else { "vector form" },
            format_rational(&out.printed.average),
            format_rational(gap),
            rational_to_f64(gap)
        ),
        Method::Cfr => eprintln!(
            "vanilla CFR, {} iterations (an approximation, not an equilibrium): gap {:.3e} chips; printed text gap {:.3e} (exact value rounded)",
            out.iterations,
            out.computed_gap,
            rational_to_f64(gap)
        ),
    }
    Ok(())
}

fn read_file(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}

fn file_errors(path: &Path, e: FileErrors) -> anyhow::Error {
    anyhow::anyhow!(
        "{} is invalid:\n{}",
        path.display(),
        e.to_string()
            .lines()
            .map(|l| format!("  {}: {l}", path.display()))
            .collect::<Vec<_>>()
            .join("\n")
    )
}

fn validate(args: ValidateArgs) -> Result<()> {
    let params = parse_input(&read_file(&args.input)?).map_err(|e| file_errors(&args.input, e))?;
    let text = read_file(&args.strategy)?;
    let strategy = match parse_strategy(&text, params.n) {
        Ok(s) => s,
        Err(e) => {
            if args.json {
                crate::print_json(&json!({
                    "valid": false,
                    "error_count": e.1,
                    "errors_listed": e.0.len().min(MAX_LISTED_ERRORS),
                    "errors": e.0.iter().take(MAX_LISTED_ERRORS).map(|x| json!({"line": x.line, "detail": x.detail})).collect::<Vec<_>>(),
                }));
            }
            return Err(file_errors(&args.strategy, e));
        }
    };
    let s = score(&params, &strategy);
    let optimum: Rational = params.value();
    if args.json {
        let mut v = score_json(&s);
        v["valid"] = json!(true);
        v["n"] = json!(params.n);
        v["a"] = json!(params.ante);
        v["b"] = json!(params.bet);
        v["optimum"] = exact_json(&optimum);
        crate::print_json(&v);
        return Ok(());
    }
    println!(
        "{}: valid, {} lines for N={} A={} B={}",
        args.strategy.display(),
        4 * params.n,
        params.n,
        params.ante,
        params.bet
    );
    println!("expected chips against a best response (exact; float = exact value rounded to f64):");
    let rows = [
        ("first to act", &s.first_seat),
        ("second to act", &s.second_seat),
        ("average (score)", &s.average),
        ("optimum A/2", &optimum),
        ("gap", &s.gap),
    ];
    for (name, v) in rows {
        let x = rational_to_f64(v);
        let float = if name == "gap" {
            format!("{x:.3e}")
        } else {
            format!("{x:.15}")
        };
        println!("  {name:<16} {:>40}  {float}", short_rational(v));
    }
    Ok(())
}

/// A rational as `p/q`, or elided in the middle when very long.
fn short_rational(r: &Rational) -> String {
    let s = format_rational(r);
    if s.len() <= 60 {
        s
    } else {
        format!("{}...{} ({} chars)", &s[..24], &s[s.len() - 24..], s.len())
    }
}

fn batch(args: BatchArgs) -> Result<()> {
    // Read and check every input before writing anything.
    let mut jobs = Vec::new();
    let mut seen = std::collections::HashMap::new();
    for input in &args.inputs {
        let params = parse_input(&read_file(input)?).map_err(|e| file_errors(input, e))?;
        let stem = input
            .file_stem()
            .with_context(|| format!("{} has no file name", input.display()))?
            .to_string_lossy()
            .to_string();
        let name = format!("{stem}.out");
        if let Some(other) = seen.insert(name.clone(), input.clone()) {
            bail!(
                "{} and {} would both write {name}",
                other.display(),
                input.display()
            );
        }
        jobs.push((input.clone(), stem, name, params));
    }
    if args.out.exists() && !args.out.is_dir() {
        bail!("--out {}: is a file, expected a folder", args.out.display());
    }
    if let Some(zip) = &args.zip {
        // Check the ZIP's folder before creating anything.
        crate::files::check_writable("--zip", zip)?;
    }
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    // No output may be an input: `--zip x.in`, or an input such as `t.out` inside --out.
    let mut plan = crate::files::FilePlan::new();
    for input in &args.inputs {
        plan.input(input);
    }
    for (_, _, name, _) in &jobs {
        plan.output("--out", &args.out.join(name));
    }
    if let Some(zip) = &args.zip {
        plan.output("--zip", zip);
    }
    plan.check()?;
    let o = &args.solve;
    let bar = ProgressBar::new(jobs.len() as u64).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} tests {msg}").expect("valid template"),
    );
    let mut rows = Vec::new();
    let mut files = Vec::new();
    for (input, stem, name, params) in &jobs {
        bar.set_message(stem.clone());
        let out = produce(
            params,
            o.method,
            o.iterations as usize,
            o.exact,
            o.digits as usize,
        )
        .with_context(|| format!("solving {}", input.display()))?;
        let path = args.out.join(name);
        write_output(&path, out.text.as_bytes())?;
        // Validate the file as written on disk.
        let on_disk = read_file(&path)?;
        let strategy = parse_strategy(&on_disk, params.n).map_err(|e| file_errors(&path, e))?;
        let s = score(params, &strategy);
        rows.push((stem.clone(), *params, s, out.seconds));
        files.push((name.clone(), on_disk));
        bar.inc(1);
    }
    bar.finish_and_clear();
    if let Some(zip_path) = &args.zip {
        let mut buffer = std::io::Cursor::new(Vec::new());
        {
            let mut zip = zip::ZipWriter::new(&mut buffer);
            let options = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated);
            for (name, text) in &files {
                zip.start_file(name.as_str(), options)?;
                zip.write_all(text.as_bytes())?;
            }
            zip.finish()?;
        }
        write_output(zip_path, buffer.get_ref())?;
    }
    if o.json {
        let tests: Vec<Value> = rows
            .iter()
            .map(|(stem, p, s, secs)| {
                let mut v = score_json(s);
                v["test"] = json!(stem);
                v["n"] = json!(p.n);
                v["a"] = json!(p.ante);
                v["b"] = json!(p.bet);
                v["optimum"] = exact_json(&p.value());
                v["seconds"] = json!(secs);
                v
            })
            .collect();
        crate::print_json(&json!({
            "method": method_name(o.method),
            "out": args.out.display().to_string(),
            "zip": args.zip.as_ref().map(|z| z.display().to_string()),
            "tests": tests,
        }));
        return Ok(());
    }
    println!(
        "{:<12} {:>3} {:>3} {:>3} {:>20} {:>12} {:>9}",
        "test", "N", "A", "B", "payoff (chips)", "gap", "time"
    );
    for (stem, p, s, secs) in &rows {
        println!(
            "{:<12} {:>3} {:>3} {:>3} {:>20.15} {:>12.3e} {:>7.1}ms",
            stem,
            p.n,
            p.ante,
            p.bet,
            rational_to_f64(&s.average),
            rational_to_f64(&s.gap),
            secs * 1000.0
        );
    }
    println!(
        "payoff and gap are the written files' exact scores rounded to f64; wrote {} to {}{}",
        crate::plural(rows.len(), "file", "files"),
        args.out.display(),
        args.zip
            .as_ref()
            .map(|z| format!(" and {}", z.display()))
            .unwrap_or_default()
    );
    Ok(())
}
