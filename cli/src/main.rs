//! The `bluff` command line: parses arguments, calls the library (`bluff`), presents the
//! results (text, JSON, progress bars, files), and maps errors to exit codes.

mod baby_poker;
mod eval;
pub mod export;
pub mod files;
mod games;
mod lp;
mod normal_form;
mod one_card_poker;
mod report;
mod serve;
mod shrek_donkey;
pub mod signals;
pub(crate) mod solve;
mod spot;
mod spot_report;
mod study;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Top-level command-line arguments.
#[derive(Parser, Debug)]
#[command(
    name = "bluff",
    version,
    about = "Nash equilibria of two-player zero-sum games with hidden information"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List the built-in games and their parameters.
    Games(games::GamesArgs),
    /// Evaluate a strategy file: values, best responses, exploitability (exact and f64).
    Eval(eval::EvalArgs),
    /// Solve a game by the CFR family or the exact LP; write the strategy, curve, plot, report.
    Solve(Box<solve::SolveArgs>),
    /// One-card poker contest task: solve `N A B`, validate a 4N-line file, batch and zip.
    OneCardPoker(one_card_poker::OcpArgs),
    /// Write a game as a Gambit .efg file (or its reduced normal form as .nfg).
    Export(export::ExportArgs),
    /// Baby poker, exactly: pure matrix, saddle points, value by three LPs, optimal sets.
    BabyPoker(baby_poker::BabyPokerArgs),
    /// Reduced normal form of a game: saddle points, exact value, optimal mixed strategies.
    NormalForm(normal_form::NormalFormArgs),
    /// The card-guessing game of Codeforces 98E: win probabilities, equilibrium mixes, a check.
    ShrekDonkey(shrek_donkey::ShrekDonkeyArgs),
    /// One self-contained HTML page explaining a strategy: leaks, convergence, pictures.
    Report(report::ReportArgs),
    /// A local web application: set up, solve and explore a game in the browser.
    Serve(serve::ServeArgs),
    /// Where two strategy files differ: per set, the largest difference and its reach.
    Diff(study::DiffArgs),
    /// One node of a hold'em spot's strategy file, per hand (`--node PATH`).
    ExportStrategy(spot::ExportStrategyArgs),
}

/// A run stopped by SIGINT or SIGTERM after saving its work: exits with 128 + the signal.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Interrupted {
    /// The signal number.
    pub signal: i32,
    /// What was saved.
    pub message: String,
}

/// Checks `--threads` by the library's thread policy (`bluff::solve::Threads`) and says what
/// is wrong in the option's words.
pub fn threads_arg(threads: Option<usize>) -> anyhow::Result<bluff::solve::Threads> {
    use bluff::solve::{Threads, ThreadsError};
    let asked = Threads::from_option(threads);
    match asked.count() {
        Ok(_) => Ok(asked),
        Err(ThreadsError::Zero) => anyhow::bail!("--threads 0: expected at least 1"),
        Err(ThreadsError::TooMany { asked, max }) => anyhow::bail!(
            "--threads {asked}: at most {max} (4 per available core, between 4 and 256); \
             results do not depend on the thread count"
        ),
        Err(e) => Err(e.into()),
    }
}

/// Runs the command line. Exit status: 0 success, 1 error (printed as `error: ...`), 2 usage
/// error (clap), 130/143 after SIGINT/SIGTERM interrupted a run that saved its work; a closed
/// output pipe ends the process by SIGPIPE, silently.
fn main() -> ExitCode {
    signals::default_sigpipe();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Games(args) => games::run(args),
        Command::Eval(args) => eval::run(args),
        Command::Solve(args) => solve::run(*args),
        Command::OneCardPoker(args) => one_card_poker::run(args),
        Command::Export(args) => export::run(args),
        Command::BabyPoker(args) => baby_poker::run(args),
        Command::NormalForm(args) => normal_form::run(args),
        Command::ShrekDonkey(args) => shrek_donkey::run(args),
        Command::Report(args) => report::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Diff(args) => study::run(args),
        Command::ExportStrategy(args) => spot::export_strategy(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            if let Some(i) = err.downcast_ref::<Interrupted>() {
                eprintln!("{}", i.message);
                return ExitCode::from(signals::exit_status(i.signal));
            }
            eprintln!("error: {}", chain_message(&err));
            ExitCode::FAILURE
        }
    }
}

/// The error and its causes joined by ": ", each cause left out when the text so far already
/// ends with it (the library's errors put their cause in their own message as well).
fn chain_message(err: &anyhow::Error) -> String {
    let mut message = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if message.is_empty() {
            message = text;
        } else if !message.ends_with(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
    }
    message
}

/// Loads the game a spec names (see `bluff::games::load`), with a progress bar on a terminal
/// for a big `.efg` file, and prints the reader's warnings on stderr.
pub(crate) fn load_game(spec: &str) -> anyhow::Result<bluff::game::Game> {
    use indicatif::{ProgressBar, ProgressStyle};
    use std::io::IsTerminal;
    let mut bar: Option<ProgressBar> = None;
    let terminal = std::io::stderr().is_terminal();
    let loaded = bluff::games::load_with_progress(spec, &mut |read, total| {
        if !terminal || total < 1 << 24 {
            return;
        }
        bar.get_or_insert_with(|| {
            ProgressBar::new(total)
                .with_style(
                    ProgressStyle::with_template(
                        "loading {msg} {bar:30} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
                    )
                    .expect("valid template"),
                )
                .with_message(spec.trim_end().to_string())
        })
        .set_position(read);
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let loaded = loaded?;
    for w in &loaded.warnings {
        eprintln!("warning: {}: {w}", spec.trim_end());
    }
    Ok(loaded.game)
}

/// A spinner that follows the exact LP's float simplex on a terminal (hidden otherwise).
pub(crate) struct LpSpinner(indicatif::ProgressBar);

impl LpSpinner {
    /// A spinner on stderr when it is a terminal.
    pub(crate) fn new() -> Self {
        use std::io::IsTerminal;
        if !std::io::stderr().is_terminal() {
            return LpSpinner(indicatif::ProgressBar::hidden());
        }
        LpSpinner(
            indicatif::ProgressBar::new_spinner().with_style(
                indicatif::ProgressStyle::with_template(
                    "{spinner} float simplex: {pos} pivots, {msg} [{elapsed}]",
                )
                .expect("valid template"),
            ),
        )
    }

    /// Shows where the simplex stands.
    pub(crate) fn report(&self, p: &bluff::lp::LpProgress) {
        self.0.set_position(p.pivots as u64);
        self.0
            .set_message(format!("{}, objective {:.12}", p.phase, p.objective));
    }
}

impl Drop for LpSpinner {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}

/// Prints JSON to stdout, pretty.
pub(crate) fn print_json(value: &serde_json::Value) {
    println!(
        "{}",
        serde_json::to_string_pretty(value).expect("JSON values serialise")
    );
}

/// `n` followed by the singular or plural noun.
pub(crate) fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A game's size for headings: "9 nodes, 1 information set".
pub(crate) fn game_size(game: &bluff::game::Game) -> String {
    format!(
        "{}, {}",
        plural(game.nodes.len(), "node", "nodes"),
        plural(game.num_infosets(), "information set", "information sets")
    )
}
