//! Output safety for every command: outputs are checked before any work starts (the folder
//! exists and is writable, the path is not a folder), no output may be a file the command reads
//! (same file by device and inode, or the same canonical path), two outputs may not share a
//! path, and `-` means standard output.

use anyhow::{bail, Context, Result};
use bluff::format::output::{self, parent_dir};
use std::path::{Path, PathBuf};

pub use bluff::format::output::is_stdout;

/// What a command reads and writes, checked together before the work starts.
#[derive(Default, Debug)]
pub struct FilePlan {
    inputs: Vec<PathBuf>,
    outputs: Vec<(String, PathBuf)>,
    /// Inputs a command deliberately replaces (a resumed checkpoint).
    replaceable: Vec<PathBuf>,
}

impl FilePlan {
    /// An empty plan.
    pub fn new() -> Self {
        Self::default()
    }

    /// A file the command reads.
    pub fn input(&mut self, path: &Path) -> &mut Self {
        self.inputs.push(path.to_path_buf());
        self
    }

    /// A game spec: a file when it names a `.efg` or `.nfg` path, or a hold'em spot (`.toml`).
    pub fn game(&mut self, spec: &str) -> &mut Self {
        if bluff::games::is_file_spec(spec) || crate::spot::is_spot(spec.trim_end()) {
            self.inputs.push(PathBuf::from(spec.trim_end()));
        }
        self
    }

    /// A file the command writes (`what` names the option, e.g. `-o`); `-` is standard output.
    pub fn output(&mut self, what: &str, path: &Path) -> &mut Self {
        if !is_stdout(path) {
            self.outputs.push((what.to_string(), path.to_path_buf()));
        }
        self
    }

    /// An input that this command may replace because it has read it whole first.
    pub fn replaceable(&mut self, path: &Path) -> &mut Self {
        self.replaceable.push(path.to_path_buf());
        self
    }

    /// Checks every output: its folder exists and takes new files, it is not a folder, it is no
    /// input, and no two outputs are the same file.
    pub fn check(&self) -> Result<()> {
        let mut devices = Vec::with_capacity(self.outputs.len());
        for (i, (what, out)) in self.outputs.iter().enumerate() {
            // A character device (`/dev/null`) may take several outputs.
            let device = matches!(
                check_writable(what, out)?,
                output::Destination::InPlace {
                    kind: output::InPlaceKind::CharacterDevice,
                    ..
                }
            );
            devices.push(device);
            for input in &self.inputs {
                if same_file(input, out) && !self.replaceable.iter().any(|r| same_file(r, out)) {
                    bail!(
                        "{what} {}: that is an input file of this command ({}); refusing to \
                         overwrite it",
                        out.display(),
                        input.display()
                    );
                }
            }
            for (j, (other_what, other)) in self.outputs[..i].iter().enumerate() {
                if !(device && devices[j]) && same_file(other, out) {
                    bail!(
                        "{other_what} {} and {what} {} are the same file",
                        other.display(),
                        out.display()
                    );
                }
            }
        }
        Ok(())
    }
}

/// Fails unless `path` can be written by [`output::write_file`]: see [`output::check_writable`].
pub fn check_writable(what: &str, path: &Path) -> Result<output::Destination> {
    output::check_writable(path).with_context(|| format!("{what} {}", path.display()))
}

/// `true` when `a` and `b` name the same file: the same device and inode when both exist, else
/// the same canonical folder and file name.
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
    }
    let canon = |p: &Path| -> Option<PathBuf> {
        if let Ok(c) = p.canonicalize() {
            return Some(c);
        }
        let dir = parent_dir(p).canonicalize().ok()?;
        Some(dir.join(p.file_name()?))
    };
    match (canon(a), canon(b)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// Writes `bytes` to standard output for `-`, else to the file by the safe-write rules.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<()> {
    Ok(output::write_file(path, bytes)?)
}

/// Most bytes read from standard input where a command expects one short line (`N A B`,
/// `m n`): a megabyte is far more than any valid input and bounds what a stray pipe allocates.
pub const STDIN_LIMIT: u64 = 1 << 20;

/// Reads standard input whole, refusing more than [`STDIN_LIMIT`] bytes; `what` names the
/// expected input in messages.
pub fn read_stdin(what: &str) -> Result<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(STDIN_LIMIT + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("reading {what} from stdin"))?;
    if bytes.len() as u64 > STDIN_LIMIT {
        bail!("stdin: more than {STDIN_LIMIT} bytes; expected {what}");
    }
    String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "stdin: not UTF-8 text (byte {} is invalid); expected {what}",
            e.utf8_error().valid_up_to()
        )
    })
}
