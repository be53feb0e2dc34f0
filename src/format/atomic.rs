//! Writing output files atomically: a temporary file in the same directory, then a rename, so a
//! failed or interrupted run never leaves a half-written file behind.

use anyhow::{Context, Result};
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` via a temporary sibling file and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// Writes what `write` writes to `path` via a temporary sibling file and a rename, so a large
/// file (a sampling checkpoint of gigabytes) is written without a copy in memory.
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let name = path
        .file_name()
        .with_context(|| format!("{} is not a file path", path.display()))?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut attempt = 0u32;
    let (tmp_path, mut file) = loop {
        let tmp = dir.join(format!(
            ".{}.{}.{attempt}.tmp",
            name.to_string_lossy(),
            std::process::id()
        ));
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => break (tmp, f),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 100 => {
                attempt += 1
            }
            Err(e) => {
                return Err(e)
                    .with_context(|| format!("creating a temporary file in {}", dir.display()))
            }
        }
    };
    let written = {
        let mut buffered = std::io::BufWriter::with_capacity(1 << 20, &mut file);
        write(&mut buffered).and_then(|_| buffered.flush())
    }
    .and_then(|_| file.sync_all());
    drop(file);
    if let Err(e) = written.and_then(|_| std::fs::rename(&tmp_path, path)) {
        let _ = std::fs::remove_file(&tmp_path);
        return Err(e).with_context(|| format!("writing {}", path.display()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_whole_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        write_atomic(&path, b"first").unwrap();
        write_atomic(&path, b"second").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "second");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn missing_directory_is_an_error_naming_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("no/such/dir/out.txt");
        let err = write_atomic(&path, b"x").unwrap_err();
        assert!(format!("{err:#}").contains("no/such/dir"), "{err:#}");
    }
}
