//! `bluff export`: write a game as a Gambit file (`.efg` extensive form, or `.nfg` reduced
//! strategic form).

use crate::format::{efg, nfg};
use crate::games;
use anyhow::{bail, Context, Result};
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
    /// Game spec (see `bluff games`) or a .efg file.
    game: String,
    /// Output file (written atomically); `-` or omitted writes to stdout.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Output format (default: from the output file's extension, else efg).
    #[arg(long, value_enum)]
    format: Option<ExportFormat>,
}

/// Runs `bluff export`.
pub fn run(args: ExportArgs) -> Result<()> {
    let game = games::load(&args.game)?;
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
        ExportFormat::Nfg => nfg::write_nfg(&nfg::reduced_normal_form(&game)?)?,
    };
    if to_stdout {
        std::io::stdout().write_all(text.as_bytes())?;
        return Ok(());
    }
    let path = args.output.expect("checked above");
    write_atomic(&path, text.as_bytes())?;
    eprintln!(
        "wrote {} ({} nodes, {} information sets) to {}",
        args.game,
        game.nodes.len(),
        game.num_infosets(),
        path.display()
    );
    Ok(())
}

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename, so a
/// reader never sees a half-written file and a failure leaves any old file untouched.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let Some(name) = path.file_name() else {
        bail!("{} is not a file path", path.display());
    };
    let tmp = dir.join(format!(
        ".{}.tmp{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| -> Result<()> {
        let mut f =
            std::fs::File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
        f.write_all(bytes)
            .with_context(|| format!("writing {}", tmp.display()))?;
        f.sync_all()
            .with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, path)
            .with_context(|| format!("renaming {} to {}", tmp.display(), path.display()))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
