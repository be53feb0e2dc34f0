//! Spot checkpoints: a hold'em solver's whole state in a versioned little-endian file, streamed
//! from and into the solver's arrays (the flop spot's state is over a gigabyte; no copy of it
//! is made in memory), so a run resumed from it continues to the same bits.
//!
//! ```text
//! magic    8 bytes  "BLUFFSPC"
//! version  u32      4 (version 1 held each decision node's entries hand-major, version 2
//!                   a river node's hands in hand order, version 3 the nodes' blocks in
//!                   breadth-first order; their files are refused: the state is now
//!                   action-major, a river node's hands in its board's rank order, the
//!                   blocks in preorder)
//! header   u32 length, then that many bytes of JSON (Header: the spot's key, the algorithm,
//!          its parameters, the precision, iterations, the run's solving time and curve, and
//!          each state array's name and length)
//! arrays   each array of the header in order, every entry little-endian in its array's width
//!          (4 or 8 bytes; compressed16: 2-byte regrets and sums, 4-byte scales and the
//!          rules' other arrays)
//! trailer  FNV-1a (word-wise) u64 of everything between the version and the trailer
//! ```
//! The header is checked against the spot and the solver the caller built before any entry is
//! read: the arrays are the solver's own, sized by its game, never by the file; the length of
//! the file must be what the header says, and the checksum is checked before the caller
//! iterates, so a truncated or corrupted file is an error, never a run.

use super::solver::snapshot::{ArrayMut, ArrayRef};
use super::solver::Solver;
use super::strategy_file::{Hasher, SpotKey};
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::path::Path;

const MAGIC: &[u8; 8] = b"BLUFFSPC";
/// The format version this build writes and reads.
pub const VERSION: u32 = 4;
/// The largest header read (a header is a few kilobytes: the spot's hands and the curve).
const MAX_HEADER_BYTES: u32 = 64 << 20;
/// Entries converted per write or read.
const CHUNK: usize = 1 << 16;

/// What a spot checkpoint says besides the state arrays.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// The spot it was written for.
    pub spot: SpotKey,
    /// The algorithm's name.
    pub algo: String,
    /// Its parameters (their debug form: a resumed run must ask for the same).
    pub params: String,
    /// The precision of the stored state (`f32`, `f64`, `compressed16`).
    pub precision: String,
    /// Iterations done.
    pub iterations: u64,
    /// Solving time so far, seconds (measurements included, saves excluded).
    pub solve_seconds: f64,
    /// Measurements so far: iteration, exploitability (chips), solving seconds.
    pub points: Vec<(u64, f64, f64)>,
    /// The state arrays' names and entries, in file order.
    pub arrays: Vec<(String, u64)>,
}

/// Why a spot checkpoint could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum SpotCheckpointError {
    /// Reading or writing the file failed.
    #[error("{0}")]
    Io(String),
    /// Not a spot checkpoint.
    #[error("not a bluff spot checkpoint (the file does not start with BLUFFSPC)")]
    Magic,
    /// Another version of the format.
    #[error("spot checkpoint format version {0}; this bluff reads version {VERSION}")]
    Version(u32),
    /// Contents that do not parse or do not fit the solver.
    #[error("malformed spot checkpoint: {0}")]
    Malformed(String),
    /// The checksum does not match.
    #[error("corrupted spot checkpoint: checksum {found:016x}, contents {expected:016x}")]
    Checksum {
        /// Stored.
        found: u64,
        /// Computed.
        expected: u64,
    },
}

impl From<crate::format::output::WriteError> for SpotCheckpointError {
    fn from(e: crate::format::output::WriteError) -> Self {
        SpotCheckpointError::Io(e.to_string())
    }
}

/// Writes bytes and hashes them.
struct Hashing<'a> {
    w: &'a mut dyn Write,
    h: Hasher,
}

impl Hashing<'_> {
    fn put(&mut self, b: &[u8]) -> std::io::Result<()> {
        self.h.update(b);
        self.w.write_all(b)
    }
}

/// The bytes of a file of `header_len` header bytes and `array_bytes` bytes of arrays.
fn file_len(header_len: u64, array_bytes: u64) -> u64 {
    8 + 4 + 4 + header_len + array_bytes + 8
}

/// An entry as the file holds it: little-endian, `W` bytes.
trait Le: Copy {
    /// Bytes per entry.
    const W: usize;
    /// Appends its bytes.
    fn put(self, out: &mut Vec<u8>);
    /// Reads it from `W` bytes.
    fn get(b: &[u8]) -> Self;
}

macro_rules! le {
    ($($t:ty),*) => {$(
        impl Le for $t {
            const W: usize = std::mem::size_of::<$t>();
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b.try_into().expect("an entry's bytes"))
            }
        }
    )*};
}
le!(f32, f64, i16, u16);

/// Writes an array's entries, a chunk at a time.
fn put_all<T: Le>(o: &mut Hashing, x: &[T], buf: &mut Vec<u8>) -> std::io::Result<()> {
    for c in x.chunks(CHUNK) {
        buf.clear();
        for v in c {
            v.put(buf);
        }
        o.put(buf)?;
    }
    Ok(())
}

/// Reads an array's entries (named `name` in errors), a chunk at a time, hashing the bytes.
fn get_all<T: Le>(
    r: &mut dyn Read,
    hasher: &mut Hasher,
    x: &mut [T],
    buf: &mut [u8],
    name: &str,
) -> Result<(), SpotCheckpointError> {
    for c in x.chunks_mut(CHUNK) {
        let bytes = &mut buf[..c.len() * T::W];
        take(r, bytes, name)?;
        hasher.update(bytes);
        for (v, b) in c.iter_mut().zip(bytes.chunks_exact(T::W)) {
            *v = T::get(b);
        }
    }
    Ok(())
}

/// Saves `solver`'s state (atomically: a temporary sibling, then a rename) with `header`'s
/// description of the run; the header's `arrays` and `precision` are the solver's. Returns
/// the bytes written.
pub fn save(path: &Path, solver: &Solver, header: &Header) -> Result<u64, SpotCheckpointError> {
    let arrays = solver.state_arrays();
    let mut header = header.clone();
    header.precision = solver.precision().name().to_string();
    header.iterations = solver.iterations();
    header.arrays = arrays
        .iter()
        .map(|(n, a)| (n.clone(), a.len() as u64))
        .collect();
    let json = serde_json::to_vec(&header).map_err(|e| SpotCheckpointError::Io(e.to_string()))?;
    let json_len = u32::try_from(json.len())
        .ok()
        .filter(|&n| n <= MAX_HEADER_BYTES)
        .ok_or_else(|| {
            SpotCheckpointError::Malformed(format!("a header of {} bytes", json.len()))
        })?;
    crate::format::output::write_file_with(path, |w| {
        w.write_all(MAGIC)?;
        w.write_all(&VERSION.to_le_bytes())?;
        let mut o = Hashing {
            w,
            h: Hasher::new(),
        };
        o.put(&json_len.to_le_bytes())?;
        o.put(&json)?;
        let mut buf: Vec<u8> = Vec::with_capacity(CHUNK * 8);
        for (_, a) in &arrays {
            match a {
                ArrayRef::F32(x) => put_all(&mut o, x, &mut buf)?,
                ArrayRef::F64(x) => put_all(&mut o, x, &mut buf)?,
                ArrayRef::I16(x) => put_all(&mut o, x, &mut buf)?,
                ArrayRef::U16(x) => put_all(&mut o, x, &mut buf)?,
            }
        }
        let sum = o.h.finish();
        o.w.write_all(&sum.to_le_bytes())
    })?;
    let array_bytes = arrays.iter().map(|(_, a)| a.len() as u64 * a.width()).sum();
    Ok(file_len(u64::from(json_len), array_bytes))
}

/// Whether the file at `path` starts as a spot checkpoint does.
pub fn is_spot_checkpoint(path: &Path) -> bool {
    let mut magic = [0u8; 8];
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
        && std::fs::File::open(path)
            .and_then(|mut f| f.read_exact(&mut magic))
            .is_ok()
        && &magic == MAGIC
}

/// Reads exactly `buf.len()` bytes, naming what was being read when the file ends early.
fn take(r: &mut dyn Read, buf: &mut [u8], what: &str) -> Result<(), SpotCheckpointError> {
    r.read_exact(buf).map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => {
            SpotCheckpointError::Malformed(format!("the file ends inside {what}"))
        }
        _ => SpotCheckpointError::Io(format!("reading {what}: {e}")),
    })
}

/// An open spot checkpoint: its header read, its arrays not yet.
pub struct Opened {
    /// The run it describes.
    pub header: Header,
    file: std::io::BufReader<std::fs::File>,
    hasher: Hasher,
    header_len: u64,
    file_len: u64,
}

/// Opens the checkpoint at `path` and reads its header (nothing of the state yet).
pub fn open(path: &Path) -> Result<Opened, SpotCheckpointError> {
    let io = |e: std::io::Error| SpotCheckpointError::Io(format!("{}: {e}", path.display()));
    let file = std::fs::File::open(path).map_err(io)?;
    let file_len = file.metadata().map_err(io)?.len();
    let mut file = std::io::BufReader::with_capacity(1 << 20, file);
    let mut magic = [0u8; 8];
    take(&mut file, &mut magic, "the magic")?;
    if &magic != MAGIC {
        return Err(SpotCheckpointError::Magic);
    }
    let mut word = [0u8; 4];
    take(&mut file, &mut word, "the version")?;
    let version = u32::from_le_bytes(word);
    if version != VERSION {
        return Err(SpotCheckpointError::Version(version));
    }
    let mut hasher = Hasher::new();
    take(&mut file, &mut word, "the header's length")?;
    hasher.update(&word);
    let header_len = u32::from_le_bytes(word);
    if header_len > MAX_HEADER_BYTES || u64::from(header_len) + 16 > file_len {
        return Err(SpotCheckpointError::Malformed(format!(
            "a header of {header_len} bytes in a file of {file_len}"
        )));
    }
    let mut json = vec![0u8; header_len as usize];
    take(&mut file, &mut json, "the header")?;
    hasher.update(&json);
    let header: Header = serde_json::from_slice(&json)
        .map_err(|e| SpotCheckpointError::Malformed(format!("the header: {e}")))?;
    Ok(Opened {
        header,
        file,
        hasher,
        header_len: u64::from(header_len),
        file_len,
    })
}

impl Opened {
    /// Reads the state into `solver` (built for the same spot, algorithm and precision as
    /// the header says; its arrays must have the header's names and lengths) and sets its
    /// iterations; the checksum is checked before returning. On an error the solver's state
    /// is partly overwritten and must not be used.
    pub fn restore(mut self, solver: &mut Solver) -> Result<(), SpotCheckpointError> {
        let precision = solver.precision();
        if self.header.precision != precision.name() {
            return Err(SpotCheckpointError::Malformed(format!(
                "the state is stored in {}, the solver's in {}",
                self.header.precision,
                precision.name()
            )));
        }
        let iterations = self.header.iterations;
        {
            let mut arrays = solver.state_arrays_mut();
            let theirs: Vec<(String, u64)> = arrays
                .iter()
                .map(|(n, a)| (n.clone(), a.len() as u64))
                .collect();
            if theirs != self.header.arrays {
                return Err(SpotCheckpointError::Malformed(format!(
                    "its state arrays {:?} are not the solver's {:?}",
                    self.header.arrays, theirs
                )));
            }
            let array_bytes = arrays.iter().map(|(_, a)| a.len() as u64 * a.width()).sum();
            let expected = file_len(self.header_len, array_bytes);
            if expected != self.file_len {
                return Err(SpotCheckpointError::Malformed(format!(
                    "the file has {} bytes, its header says {expected}",
                    self.file_len
                )));
            }
            let mut buf = vec![0u8; CHUNK * 8];
            let (file, hasher) = (&mut self.file, &mut self.hasher);
            for (name, a) in arrays.iter_mut() {
                match a {
                    ArrayMut::F32(x) => get_all(file, hasher, x, &mut buf, name)?,
                    ArrayMut::F64(x) => get_all(file, hasher, x, &mut buf, name)?,
                    ArrayMut::I16(x) => get_all(file, hasher, x, &mut buf, name)?,
                    ArrayMut::U16(x) => get_all(file, hasher, x, &mut buf, name)?,
                }
            }
        }
        let mut sum = [0u8; 8];
        take(&mut self.file, &mut sum, "the checksum")?;
        let found = u64::from_le_bytes(sum);
        let expected = self.hasher.finish();
        if found != expected {
            return Err(SpotCheckpointError::Checksum { found, expected });
        }
        solver.set_iterations(iterations);
        Ok(())
    }
}
