//! Output safety for every command: outputs are checked before any work starts (the folder
//! exists and is writable, the path is not a folder), no output may be a file the command reads
//! (same file by device and inode, or the same canonical path), two outputs may not share a
//! path, and `-` means standard output.

use anyhow::{bail, Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// `true` when `path` is `-`, the conventional name of standard output.
pub fn is_stdout(path: &Path) -> bool {
    path == Path::new("-")
}

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

    /// A game spec: a file when it names a `.efg` or `.nfg` path.
    pub fn game(&mut self, spec: &str) -> &mut Self {
        let t = spec.trim_end();
        let lower = t.to_ascii_lowercase();
        if lower.ends_with(".efg") || lower.ends_with(".nfg") {
            self.inputs.push(PathBuf::from(t));
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
        for (i, (what, out)) in self.outputs.iter().enumerate() {
            check_writable(what, out)?;
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
            for (other_what, other) in &self.outputs[..i] {
                if same_file(other, out) {
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

/// The folder a file path will be created in.
fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Fails unless a file can be created at `path` (by a temporary sibling and a rename).
pub fn check_writable(what: &str, path: &Path) -> Result<()> {
    if path.file_name().is_none() {
        bail!("{what} {}: not a file name", path.display());
    }
    if path.is_dir() {
        bail!(
            "{what} {}: is a folder, expected a file name",
            path.display()
        );
    }
    let dir = parent_dir(path);
    if !dir.is_dir() {
        bail!(
            "{what} {}: the folder {} does not exist",
            path.display(),
            dir.display()
        );
    }
    // Try to create (and remove) a temporary file where the atomic write will put its own.
    let probe = dir.join(format!(".bluff-probe.{}.tmp", std::process::id()));
    let created = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe);
    match created {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e).with_context(|| {
            format!(
                "{what} {}: cannot create files in {}",
                path.display(),
                dir.display()
            )
        }),
    }
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

/// Writes `bytes` to standard output for `-`, else atomically to the file.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<()> {
    if is_stdout(path) {
        let mut out = std::io::stdout().lock();
        out.write_all(bytes)
            .and_then(|_| out.flush())
            .context("writing to standard output")
    } else {
        crate::format::atomic::write_atomic(path, bytes)
    }
}
