//! The one way bluff writes a file: every output of the command line, the report's pictures,
//! checkpoints and the Python package's files go through [`write_file`].
//!
//! Why not just `File::create`: a run killed half-way would leave a half-written file where a
//! good one stood. Why not always a temporary file and a rename: a rename replaces whatever
//! directory entry stands at the path, so `-o /dev/null` run as root would turn the machine's
//! `/dev/null` into a regular file, `-o link` would replace a symbolic link by a copy while the
//! file it named kept its old content, and a replaced file would take the default mode (a
//! private strategy of mode 600 would come out world-readable). The rules, applied to the
//! final target of the whole chain of symbolic links (see [`resolve`]):
//!
//! - a **regular file** (or a path where nothing stands yet, which includes the target of a
//!   dangling link) is replaced atomically: a temporary file in the target's own directory,
//!   written, synced, given the old file's owner (where the process may set it) and mode, then
//!   renamed over the target; the link, if any, stays a link;
//! - a **character device, FIFO or pipe** is written in place (`/dev/null`, a terminal, the
//!   pipe behind `/dev/stdout`); a FIFO is opened only when the output is written, so checking
//!   a plan up front never blocks waiting for a reader;
//! - the kernel's descriptor links (`/dev/stdout`, `/dev/fd/N`, `/proc/self/fd/N`) name an open
//!   file of this process, which may have no path at all (`pipe:[1234]`): they are written in
//!   place, as the shell's `>` would;
//! - anything else (a folder, a socket, a block device) is refused with a message naming it.

use std::fs::{File, Metadata, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// How many symbolic links a path may pass through (Linux's own limit for one lookup).
const MAX_LINK_HOPS: usize = 40;

/// Why an output could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The target is of a kind bluff never writes to (a folder, a socket, a block device).
    #[error("{path}: is {kind}; outputs go to regular files, character devices, FIFOs or pipes")]
    Unsupported {
        /// The path as given.
        path: String,
        /// What stands there, with its article ("a folder").
        kind: &'static str,
    },
    /// The path names no file (empty, or ending in `..`).
    #[error("{path}: not a file name")]
    NotAFileName {
        /// The path as given.
        path: String,
    },
    /// The chain of symbolic links is longer than [`MAX_LINK_HOPS`] (or loops).
    #[error("{path}: too many levels of symbolic links")]
    LinkLoop {
        /// The path as given.
        path: String,
    },
    /// An operating-system error, with what was being done.
    #[error("{path}: {action}: {source}")]
    Io {
        /// The path as given.
        path: String,
        /// What failed ("creating a temporary file in /tmp").
        action: String,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
}

/// Where an output path leads, once every symbolic link is followed.
#[derive(Debug)]
pub enum Destination {
    /// `-`: the process's standard output.
    Stdout,
    /// A regular file, replaced atomically (or created: `existing` is `None`).
    Replace {
        /// The final target (links followed).
        target: PathBuf,
        /// The file standing there now, whose owner and mode the new file keeps.
        existing: Option<Metadata>,
    },
    /// A character device, FIFO, pipe or descriptor link, written in place.
    InPlace {
        /// The path to open (links are followed by `open` itself).
        target: PathBuf,
        /// What it is.
        kind: InPlaceKind,
    },
}

/// The targets written in place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InPlaceKind {
    /// A character device (`/dev/null`, a terminal).
    CharacterDevice,
    /// A named pipe.
    Fifo,
    /// A descriptor link (`/dev/stdout`): whatever the process has open there.
    Descriptor,
}

impl std::fmt::Display for InPlaceKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            InPlaceKind::CharacterDevice => "a character device",
            InPlaceKind::Fifo => "a FIFO",
            InPlaceKind::Descriptor => "an open descriptor",
        })
    }
}

/// `true` when `path` is `-`, the conventional name of standard output.
pub fn is_stdout(path: &Path) -> bool {
    path == Path::new("-")
}

/// The folder a file path lives in (`.` for a bare name).
pub fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// `true` for the kernel's links to this process's open descriptors, whose targets may have no
/// path: `/dev/fd/N`, `/proc/<pid>/fd/N` (`/dev/stdout` leads to one of these).
fn is_descriptor_link(path: &Path) -> bool {
    let dir = parent_dir(path);
    let dir = dir.to_string_lossy();
    dir == "/dev/fd" || (dir.starts_with("/proc/") && dir.ends_with("/fd"))
}

/// Follows `path` through every symbolic link and says how it will be written; reads
/// metadata only (a FIFO is not opened). See the module documentation for the rules.
pub fn resolve(path: &Path) -> Result<Destination, WriteError> {
    let shown = || path.display().to_string();
    if is_stdout(path) {
        return Ok(Destination::Stdout);
    }
    if path.as_os_str().is_empty() || path.file_name().is_none() {
        return Err(WriteError::NotAFileName { path: shown() });
    }
    let mut current = path.to_path_buf();
    for _ in 0..=MAX_LINK_HOPS {
        let meta = match std::fs::symlink_metadata(&current) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Destination::Replace {
                    target: current,
                    existing: None,
                })
            }
            Err(source) => {
                return Err(WriteError::Io {
                    path: shown(),
                    action: format!("reading what {} is", current.display()),
                    source,
                })
            }
        };
        if meta.file_type().is_symlink() {
            if is_descriptor_link(&current) {
                // The open file behind the descriptor, whatever it is, is written in place.
                let meta = std::fs::metadata(&current).map_err(|source| WriteError::Io {
                    path: shown(),
                    action: format!("reading what {} is", current.display()),
                    source,
                })?;
                return match kind_of(&meta) {
                    Kind::Writable(_) | Kind::Regular => Ok(Destination::InPlace {
                        target: current,
                        kind: InPlaceKind::Descriptor,
                    }),
                    Kind::Refused(kind) => Err(WriteError::Unsupported {
                        path: shown(),
                        kind,
                    }),
                };
            }
            let link = std::fs::read_link(&current).map_err(|source| WriteError::Io {
                path: shown(),
                action: format!("reading the link {}", current.display()),
                source,
            })?;
            current = if link.is_absolute() {
                link
            } else {
                parent_dir(&current).join(link)
            };
            continue;
        }
        return match kind_of(&meta) {
            Kind::Regular => Ok(Destination::Replace {
                target: current,
                existing: Some(meta),
            }),
            Kind::Writable(kind) => Ok(Destination::InPlace {
                target: current,
                kind,
            }),
            Kind::Refused(kind) => Err(WriteError::Unsupported {
                path: shown(),
                kind,
            }),
        };
    }
    Err(WriteError::LinkLoop { path: shown() })
}

/// What stands at a path, for the rules above.
enum Kind {
    /// A regular file.
    Regular,
    /// Written in place.
    Writable(InPlaceKind),
    /// Never written.
    Refused(&'static str),
}

fn kind_of(meta: &Metadata) -> Kind {
    let ft = meta.file_type();
    if ft.is_file() {
        return Kind::Regular;
    }
    if ft.is_dir() {
        return Kind::Refused("a folder");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_char_device() {
            return Kind::Writable(InPlaceKind::CharacterDevice);
        }
        if ft.is_fifo() {
            return Kind::Writable(InPlaceKind::Fifo);
        }
        if ft.is_socket() {
            return Kind::Refused("a socket");
        }
        if ft.is_block_device() {
            return Kind::Refused("a block device");
        }
    }
    Kind::Refused("not a regular file")
}

/// Checks up front that `path` can be written as [`write_file`] will write it: a replaced or new
/// file's folder exists and takes new files (a probe file is created and removed); a device,
/// FIFO or pipe is only looked at. Returns where the output will go.
pub fn check_writable(path: &Path) -> Result<Destination, WriteError> {
    let dest = resolve(path)?;
    if let Destination::Replace { target, .. } = &dest {
        let dir = parent_dir(target);
        let io = |action: String, source| WriteError::Io {
            path: path.display().to_string(),
            action,
            source,
        };
        match std::fs::metadata(&dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(io(
                    format!("{} is not a folder", dir.display()),
                    std::io::Error::from(std::io::ErrorKind::NotADirectory),
                ))
            }
            Err(e) => {
                return Err(io(
                    format!("the folder {} does not exist", dir.display()),
                    e,
                ))
            }
        }
        let probe = dir.join(format!(".bluff-probe.{}.tmp", std::process::id()));
        match OpenOptions::new().write(true).create_new(true).open(&probe) {
            Ok(_) => {
                let _ = std::fs::remove_file(&probe);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(io(format!("cannot create files in {}", dir.display()), e)),
        }
    }
    Ok(dest)
}

/// Writes `bytes` to `path` by the rules of the module documentation (`-` is standard output).
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    write_file_with(path, |w| w.write_all(bytes))
}

/// Writes what `write` writes to `path` by the rules of the module documentation, through a
/// buffer, so a large output (a sampling checkpoint of gigabytes) is written without a copy of
/// it in memory.
pub fn write_file_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), WriteError> {
    let io = |action: String, source| WriteError::Io {
        path: path.display().to_string(),
        action,
        source,
    };
    match resolve(path)? {
        Destination::Stdout => {
            let mut out = std::io::stdout().lock();
            buffered(&mut out, write)
                .and_then(|_| out.flush())
                .map_err(|e| io("writing to standard output".into(), e))
        }
        Destination::InPlace { target, kind } => {
            // No `create`: a device or pipe that vanished meanwhile is an error, not a new file.
            let mut file = OpenOptions::new()
                .write(true)
                .truncate(true)
                .open(&target)
                .map_err(|e| io(format!("opening {kind} for writing"), e))?;
            buffered(&mut file, write)
                .and_then(|_| file.flush())
                .map_err(|e| io(format!("writing to {kind}"), e))
        }
        Destination::Replace { target, existing } => {
            replace(&target, existing.as_ref(), |f| buffered(f, write))
                .map_err(|(action, e)| io(action, e))
        }
    }
}

/// Runs `write` on `w` through a buffer of 1 MiB and flushes it.
fn buffered(
    w: &mut dyn Write,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut buffer = std::io::BufWriter::with_capacity(1 << 20, w);
    write(&mut buffer)?;
    buffer.flush()
}

/// The atomic replacement of a regular file (or creation of a new one) at `target`.
fn replace(
    target: &Path,
    existing: Option<&Metadata>,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), (String, std::io::Error)> {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = parent_dir(target);
    let (tmp, mut file) = create_temporary(&dir, &name, existing.is_some())
        .map_err(|e| (format!("creating a temporary file in {}", dir.display()), e))?;
    let written = (|| -> Result<(), (String, std::io::Error)> {
        if let Some(meta) = existing {
            keep_owner_and_mode(&file, meta)?;
        }
        write(&mut file)
            .and_then(|_| file.sync_all())
            .map_err(|e| (format!("writing {}", tmp.display()), e))?;
        std::fs::rename(&tmp, target)
            .map_err(|e| (format!("renaming {} into place", tmp.display()), e))
    })();
    drop(file);
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written?;
    // The rename is durable once the folder is synced; a folder that cannot be opened for
    // that (some file systems) leaves the file written all the same.
    if let Ok(d) = File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// A new temporary file beside the target. It replaces an existing file: private (mode 600)
/// until it takes the old file's mode, so its content is never readable by more users than
/// the old file's was. A new file: the usual mode (0666 less the umask), as the shell makes.
fn create_temporary(dir: &Path, name: &str, private: bool) -> std::io::Result<(PathBuf, File)> {
    let mut attempt = 0u32;
    loop {
        let tmp = dir.join(format!(".{name}.{}.{attempt}.tmp", std::process::id()));
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        if private {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        #[cfg(not(unix))]
        let _ = private;
        match options.open(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 100 => {
                attempt += 1
            }
            Err(e) => return Err(e),
        }
    }
}

/// Gives the temporary file the replaced file's owner (where the process may: as root, or when
/// only the group changes to one of the process's) and then its mode (`chown` may clear the
/// set-id bits, so the mode comes second).
fn keep_owner_and_mode(file: &File, meta: &Metadata) -> Result<(), (String, std::io::Error)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let mine = file
            .metadata()
            .map_err(|e| ("reading the temporary file's owner".to_string(), e))?;
        if (mine.uid(), mine.gid()) != (meta.uid(), meta.gid()) {
            // Not allowed for an unprivileged process giving a file away: the new file then
            // belongs to the process, as any file it writes.
            let _ = std::os::unix::fs::fchown(file, Some(meta.uid()), Some(meta.gid()));
        }
        file.set_permissions(std::fs::Permissions::from_mode(meta.mode() & 0o7777))
            .map_err(|e| ("setting the temporary file's mode".to_string(), e))?;
    }
    #[cfg(not(unix))]
    {
        file.set_permissions(meta.permissions())
            .map_err(|e| ("setting the temporary file's permissions".to_string(), e))?;
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
        write_file(&path, b"first").unwrap();
        write_file(&path, b"second").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "second");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn missing_directory_is_an_error_naming_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("no/such/dir/out.txt");
        let err = write_file(&path, b"x").unwrap_err();
        assert!(err.to_string().contains("no/such/dir"), "{err}");
        assert!(check_writable(&path).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn a_replaced_file_keeps_its_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("private.json");
        std::fs::write(&path, "old").unwrap();
        for mode in [0o600, 0o640, 0o755, 0o444] {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
            write_file(&path, b"new").unwrap();
            let got = std::fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
            assert_eq!(got, mode, "mode {mode:o} became {got:o}");
            assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_link_is_kept_and_its_target_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target.json");
        std::fs::write(&target, "old").unwrap();
        // A chain of two links, the second relative.
        let first = dir.path().join("first");
        let second = dir.path().join("second");
        std::os::unix::fs::symlink("target.json", &second).unwrap();
        std::os::unix::fs::symlink(&second, &first).unwrap();
        write_file(&first, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&first)
            .unwrap()
            .file_type()
            .is_symlink());
        assert!(std::fs::symlink_metadata(&second)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
    }

    #[cfg(unix)]
    #[test]
    fn a_dangling_link_creates_its_target() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink("made.txt", &link).unwrap();
        write_file(&link, b"x").unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("made.txt")).unwrap(),
            "x"
        );
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
    }

    #[cfg(unix)]
    #[test]
    fn a_link_loop_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        std::os::unix::fs::symlink(&b, &a).unwrap();
        std::os::unix::fs::symlink(&a, &b).unwrap();
        let err = write_file(&a, b"x").unwrap_err();
        assert!(matches!(err, WriteError::LinkLoop { .. }), "{err}");
    }

    #[test]
    fn a_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let err = write_file(dir.path(), b"x").unwrap_err();
        assert!(err.to_string().contains("a folder"), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn character_devices_are_written_in_place() {
        // /dev/null stays a character device after being written.
        use std::os::unix::fs::FileTypeExt;
        assert!(matches!(
            resolve(Path::new("/dev/null")).unwrap(),
            Destination::InPlace { .. }
        ));
        write_file(Path::new("/dev/null"), b"discarded").unwrap();
        let ft = std::fs::symlink_metadata("/dev/null").unwrap().file_type();
        assert!(ft.is_char_device());
    }

    #[cfg(unix)]
    #[test]
    fn a_socket_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sock");
        let _listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        let err = write_file(&path, b"x").unwrap_err();
        assert!(err.to_string().contains("a socket"), "{err}");
        assert!(check_writable(&path).is_err());
    }
}
