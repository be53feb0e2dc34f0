//! `bluff export`: write a game as a Gambit file (`.efg` extensive form, or `.nfg` reduced
//! strategic form).

use crate::files::write_output;
use anyhow::Result;
use bluff::format::{efg, nfg};
use clap::{Args, ValueEnum};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Output formats of `bluff export`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// Gambit extensive form (`.efg`, version 2).
    Efg,
    /// Gambit strategic form (`.nfg`, payoff version) of the reduced normal form.
    Nfg,
}

/// Arguments of `bluff export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// Game spec (see `bluff games`), a .efg file, or a hold'em spot (.toml: the spot built as
    /// an ordinary game, hands and board cards dealt by chance; for small spots, such as
    /// reduced decks).
    game: String,
    /// Output file (written atomically); `-` or omitted writes to stdout.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Output format (default: from the output file's extension, else efg).
    #[arg(long, value_enum)]
    format: Option<ExportFormat>,
}

/// Whether a game argument names a hold'em spot file (`.toml`).
fn is_spot(spec: &str) -> bool {
    spec.trim_end().to_ascii_lowercase().ends_with(".toml")
}

/// A hold'em spot file built as an ordinary game (`bluff::holdem::reference`), its size
/// checked before building.
fn spot_game(path: &Path) -> Result<bluff::game::Game> {
    use anyhow::Context;
    use bluff::holdem::{reference, spot::Spot};
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let spot = Spot::parse(&text).with_context(|| path.display().to_string())?;
    let built = reference::game(&spot, reference::DEFAULT_MAX_NODES)
        .with_context(|| path.display().to_string())?;
    Ok(built.game)
}

/// Runs `bluff export`.
pub fn run(args: ExportArgs) -> Result<()> {
    if let Some(out) = &args.output {
        let mut plan = crate::files::FilePlan::new();
        plan.game(&args.game).output("-o", out);
        if is_spot(&args.game) {
            plan.input(Path::new(args.game.trim_end()));
        }
        plan.check()?;
    }
    let game = if is_spot(&args.game) {
        spot_game(Path::new(args.game.trim_end()))?
    } else {
        crate::load_game(&args.game)?
    };
    let to_stdout = args.output.as_deref().is_none_or(|p| p == Path::new("-"));
    let format = args.format.unwrap_or_else(|| {
        match args
            .output
            .as_deref()
            .and_then(|p| p.extension())
            .and_then(|e| e.to_str())
        {
            Some(e) if e.eq_ignore_ascii_case("nfg") => ExportFormat::Nfg,
            _ => ExportFormat::Efg,
        }
    });
    let text = match format {
        ExportFormat::Efg => efg::write_efg(&efg::game_to_efg(&game))?,
        ExportFormat::Nfg => nfg::write_nfg(&bluff::matrix::normal_form::to_nfg(&game)?)?,
    };
    if to_stdout {
        std::io::stdout().write_all(text.as_bytes())?;
        return Ok(());
    }
    let path = args.output.expect("checked above");
    write_output(&path, text.as_bytes())?;
    eprintln!(
        "wrote {} ({}) to {}",
        args.game,
        crate::game_size(&game),
        path.display()
    );
    Ok(())
}
