//! Solver checkpoints: a versioned little-endian binary file holding everything a CFR-family
//! run needs to continue bit for bit.
//!
//! ```text
//! magic    8 bytes  "BLUFFCKP"
//! version  u32      6 (2 to 5 are read too)
//! length   u64      payload bytes
//! payload  ...      see below
//! checksum u64      FNV-1a 64 of the payload
//! ```
//! Payload: game fingerprint u64; game spec, algorithm name (each u32 length + UTF-8);
//! parameters (alternating u8, alpha f64, beta f64, floor u8, gamma f64, predictive u8,
//! schedule u8 = 0 or 1 then horizon u64, alpha slope f64, beta slope f64, gamma slope f64;
//! version 3: then the discount offset f64, which version 2 leaves out and means 1; version 4:
//! then discount-first u8, prediction weight f64, volatility u8 = 0 or 1 then VAD-CFR's 16
//! constants f64 in `Volatility::to_array` order, which versions 2 and 3 leave out and mean
//! false, 1 and none);
//! version 2: average sums are kept in the discounted form `S <- S ((t-1)/t)^gamma + ...`;
//! check_every u64; next_check u64; solve seconds f64; curve points (u64 count, then iteration
//! u64, exploitability f64, seconds f64 each); solver iterations u64; arrays (u32 count, then
//! name, u64 length and that many f64 each); version 5: then the kernel u8 (0 tree, 1
//! sequence form; earlier versions mean the tree), so a resumed run continues on the kernel
//! that wrote the state; version 6: then the run's lock (u32 length + UTF-8, `Lock::canonical`,
//! empty when nothing is locked; earlier versions mean none). Every length is checked against the bytes left
//! before anything is allocated, so a truncated or corrupted file is an error, never a run.

use crate::cfr::{Kernel, RegretParams, SolverState};
use crate::curve::CurvePoint;
use crate::game::{Game, NodeKind};
use thiserror::Error;

const MAGIC: &[u8; 8] = b"BLUFFCKP";
/// The format version this build writes and reads.
pub const VERSION: u32 = 6;
/// The oldest format version this build still reads (no discount offset: it is 1).
const OLDEST_READ: u32 = 2;
const HEADER: usize = 8 + 4 + 8;

/// Why a checkpoint could not be read.
#[derive(Debug, Error, PartialEq)]
pub enum CheckpointError {
    /// Not a bluff checkpoint at all.
    #[error("not a bluff checkpoint (the file does not start with BLUFFCKP)")]
    Magic,
    /// Written by another version of the format.
    #[error("checkpoint format version {0}; this bluff reads versions {OLDEST_READ} to {VERSION}")]
    Version(u32),
    /// Shorter than its header says.
    #[error("truncated: {found} bytes, the header says {expected}")]
    Truncated {
        /// Bytes present.
        found: u64,
        /// Bytes the header announces.
        expected: u64,
    },
    /// The checksum does not match the contents.
    #[error("corrupted: checksum {found:016x} does not match the contents ({expected:016x})")]
    Checksum {
        /// Checksum stored in the file.
        found: u64,
        /// Checksum of the payload as read.
        expected: u64,
    },
    /// The payload does not parse (only possible for files with a valid checksum written by a
    /// faulty writer).
    #[error("malformed payload: {0}")]
    Payload(String),
    /// Longer than its header says (a file that grew, or bytes appended).
    #[error("{found} bytes or more, the header says {expected}")]
    TooLong {
        /// Bytes present (at least).
        found: u64,
        /// Bytes the header announces.
        expected: u64,
    },
    /// The file could not be read.
    #[error("{0}")]
    Io(String),
}

/// Reads a checkpoint from `path`: the header first, so that a file of the wrong kind or size
/// (a 40 GB file, `/dev/zero`) is refused before its payload is read into memory, then exactly
/// the bytes the header announces, then [`decode`].
pub fn read_file(path: &std::path::Path) -> Result<Checkpoint, CheckpointError> {
    use std::io::Read;
    let io = |e: std::io::Error| CheckpointError::Io(e.to_string());
    let mut file = std::fs::File::open(path).map_err(io)?;
    let mut header = Vec::with_capacity(HEADER);
    (&mut file)
        .take(HEADER as u64)
        .read_to_end(&mut header)
        .map_err(io)?;
    if header.len() < 8 || &header[..8] != MAGIC {
        return Err(CheckpointError::Magic);
    }
    if header.len() < HEADER {
        return decode(&header);
    }
    let version = u32::from_le_bytes(header[8..12].try_into().expect("4 bytes"));
    if !(OLDEST_READ..=VERSION).contains(&version) {
        return Err(CheckpointError::Version(version));
    }
    let len = u64::from_le_bytes(header[12..20].try_into().expect("8 bytes"));
    let expected = (HEADER as u64).saturating_add(len).saturating_add(8);
    // A regular file's size is known: compare before reading (and allocating) anything more.
    let meta = file.metadata().map_err(io)?;
    if meta.is_file() && meta.len() != expected {
        return Err(if meta.len() < expected {
            CheckpointError::Truncated {
                found: meta.len(),
                expected,
            }
        } else {
            CheckpointError::TooLong {
                found: meta.len(),
                expected,
            }
        });
    }
    // Otherwise (a pipe) read what the header announces, growing with the bytes that arrive.
    let mut bytes = header;
    (&mut file)
        .take(expected - HEADER as u64)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 == expected && file.read(&mut [0u8; 1]).map_err(io)? != 0 {
        return Err(CheckpointError::TooLong {
            found: expected + 1,
            expected,
        });
    }
    decode(&bytes)
}

/// A CFR-family run, frozen.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    /// [`game_fingerprint`] of the game being solved.
    pub fingerprint: u64,
    /// The game spec the run was started with.
    pub game_spec: String,
    /// The algorithm's command-line name (`cfr`, `dcfr`, ...).
    pub algo: String,
    /// The regret parameters.
    pub params: RegretParams,
    /// Largest gap between exploitability measurements.
    pub check_every: u64,
    /// Iteration at which the next scheduled measurement falls.
    pub next_check: u64,
    /// Solving time so far (excluding measurements), seconds.
    pub solve_seconds: f64,
    /// The scheduled measurements so far.
    pub points: Vec<CurvePoint>,
    /// The solver's state.
    pub state: SolverState,
    /// The kernel that ran the iterations.
    pub kernel: Kernel,
    /// The run's lock as [`crate::lock::Lock::canonical`] text ("" when nothing is locked).
    pub lock: String,
}

/// 64-bit FNV-1a, for checksums and fingerprints (not cryptographic: it detects accidents).
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    /// Hashes more bytes.
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    /// Hashes a string with its length (so concatenations differ).
    pub fn write_str(&mut self, s: &str) {
        self.write(&(s.len() as u64).to_le_bytes());
        self.write(s.as_bytes());
    }
    /// The hash so far.
    pub fn finish(&self) -> u64 {
        self.0
    }
}

/// A fingerprint of everything a CFR run depends on: the tree's shape, who acts where,
/// information-set and action labels, chance probabilities and payoffs (as f64 bits, which is
/// what the solver reads), player names.
pub fn game_fingerprint(game: &Game) -> u64 {
    let mut h = Fnv::default();
    for name in &game.player_names {
        h.write_str(name);
    }
    h.write(&(game.nodes.len() as u64).to_le_bytes());
    for (i, node) in game.nodes.iter().enumerate() {
        let (tag, a, b) = match node.kind {
            NodeKind::Chance => (0u8, 0u64, game.chance_prob_f64[i].to_bits()),
            NodeKind::Decision { player, infoset } => (1, player as u64, infoset as u64),
            NodeKind::Terminal { terminal } => (
                2,
                terminal as u64,
                game.terminals[terminal as usize].payoff0_f64.to_bits(),
            ),
        };
        h.write(&[tag]);
        h.write(&a.to_le_bytes());
        h.write(&b.to_le_bytes());
        h.write(&node.first_child.to_le_bytes());
        h.write(&node.num_children.to_le_bytes());
        h.write(&game.chance_prob_f64[i].to_bits().to_le_bytes());
    }
    for sets in &game.infosets {
        h.write(&(sets.len() as u64).to_le_bytes());
        for set in sets {
            h.write_str(&set.label);
            h.write(&(set.actions.len() as u64).to_le_bytes());
            for a in set.actions.iter() {
                h.write_str(a);
            }
        }
    }
    h.finish()
}

/// The identity, in a sharded run's checkpoints, of a game compiled from its rules without
/// the whole tree (so without [`game_fingerprint`]): the rules' name, the whole game's node
/// count, and per player every set's key and action count in the arena's numbering
/// (`action_start`: the sets' first actions, one more entry than sets).
pub fn rules_fingerprint(
    name: &str,
    game_nodes: u64,
    keys: &[Vec<u64>; 2],
    action_start: [&[u32]; 2],
) -> u64 {
    let mut h = Fnv::default();
    h.write_str("rules:");
    h.write_str(name);
    h.write(&game_nodes.to_le_bytes());
    for p in 0..2 {
        h.write(&(keys[p].len() as u64).to_le_bytes());
        for (key, w) in keys[p].iter().zip(action_start[p].windows(2)) {
            h.write(&key.to_le_bytes());
            h.write(&(w[1] - w[0]).to_le_bytes());
        }
    }
    h.finish()
}

struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, x: u8) {
        self.0.push(x);
    }
    fn u32(&mut self, x: u32) {
        self.0.extend_from_slice(&x.to_le_bytes());
    }
    fn u64(&mut self, x: u64) {
        self.0.extend_from_slice(&x.to_le_bytes());
    }
    fn f64(&mut self, x: f64) {
        self.u64(x.to_bits());
    }
    fn str(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.0.extend_from_slice(s.as_bytes());
    }
}

/// Serialises a checkpoint.
pub fn encode(c: &Checkpoint) -> Vec<u8> {
    let mut w = Writer(Vec::new());
    w.u64(c.fingerprint);
    w.str(&c.game_spec);
    w.str(&c.algo);
    let p = &c.params;
    w.u8(p.alternating as u8);
    w.f64(p.alpha);
    w.f64(p.beta);
    w.u8(p.floor as u8);
    w.f64(p.gamma);
    w.u8(p.predictive as u8);
    match p.schedule {
        None => w.u8(0),
        Some(s) => {
            w.u8(1);
            w.u64(s.horizon);
            w.f64(s.alpha_slope);
            w.f64(s.beta_slope);
            w.f64(s.gamma_slope);
        }
    }
    w.f64(p.discount_offset);
    w.u8(p.discount_first as u8);
    w.f64(p.prediction_weight);
    match p.volatility {
        None => w.u8(0),
        Some(v) => {
            w.u8(1);
            for x in v.to_array() {
                w.f64(x);
            }
        }
    }
    w.u64(c.check_every);
    w.u64(c.next_check);
    w.f64(c.solve_seconds);
    w.u64(c.points.len() as u64);
    for pt in &c.points {
        w.u64(pt.iteration);
        w.f64(pt.exploitability);
        w.f64(pt.seconds);
    }
    w.u64(c.state.iterations);
    w.u32(c.state.arrays.len() as u32);
    for (name, values) in &c.state.arrays {
        w.str(name);
        w.u64(values.len() as u64);
        for &v in values {
            w.f64(v);
        }
    }
    w.u8(match c.kernel {
        Kernel::Tree => 0,
        Kernel::Sequence => 1,
    });
    w.str(&c.lock);
    frame(VERSION, &w.0)
}

/// A checkpoint file: magic, format version, payload length, payload, FNV checksum.
fn frame(version: u32, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + payload.len() + 8);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(payload);
    let mut h = Fnv::default();
    h.write(payload);
    out.extend_from_slice(&h.finish().to_le_bytes());
    out
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: u64, what: &str) -> Result<&'a [u8], CheckpointError> {
        let left = (self.bytes.len() - self.pos) as u64;
        if n > left {
            return Err(CheckpointError::Payload(format!(
                "{what} needs {n} bytes, {left} left"
            )));
        }
        let s = &self.bytes[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Ok(s)
    }
    fn u8(&mut self, what: &str) -> Result<u8, CheckpointError> {
        Ok(self.take(1, what)?[0])
    }
    fn bool(&mut self, what: &str) -> Result<bool, CheckpointError> {
        match self.u8(what)? {
            0 => Ok(false),
            1 => Ok(true),
            x => Err(CheckpointError::Payload(format!(
                "{what} is {x}, not 0 or 1"
            ))),
        }
    }
    fn u32(&mut self, what: &str) -> Result<u32, CheckpointError> {
        Ok(u32::from_le_bytes(
            self.take(4, what)?.try_into().expect("4 bytes"),
        ))
    }
    fn u64(&mut self, what: &str) -> Result<u64, CheckpointError> {
        Ok(u64::from_le_bytes(
            self.take(8, what)?.try_into().expect("8 bytes"),
        ))
    }
    fn f64(&mut self, what: &str) -> Result<f64, CheckpointError> {
        Ok(f64::from_bits(self.u64(what)?))
    }
    fn str(&mut self, what: &str) -> Result<String, CheckpointError> {
        let n = self.u32(what)?;
        let bytes = self.take(n as u64, what)?;
        String::from_utf8(bytes.to_vec())
            .map_err(|_| CheckpointError::Payload(format!("{what} is not UTF-8")))
    }
    /// A count of items of `item_bytes` each, checked against the bytes left.
    fn count(&mut self, what: &str, item_bytes: u64) -> Result<usize, CheckpointError> {
        let n = self.u64(what)?;
        let left = (self.bytes.len() - self.pos) as u64;
        if n.saturating_mul(item_bytes) > left {
            return Err(CheckpointError::Payload(format!(
                "{what}: {n} items of {item_bytes} bytes, but {left} bytes are left"
            )));
        }
        Ok(n as usize)
    }
}

/// Reads a checkpoint, checking magic, version, length and checksum first.
pub fn decode(bytes: &[u8]) -> Result<Checkpoint, CheckpointError> {
    if bytes.len() < 8 || &bytes[..8] != MAGIC {
        return Err(CheckpointError::Magic);
    }
    if bytes.len() < HEADER {
        return Err(CheckpointError::Truncated {
            found: bytes.len() as u64,
            expected: HEADER as u64 + 8,
        });
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if !(OLDEST_READ..=VERSION).contains(&version) {
        return Err(CheckpointError::Version(version));
    }
    let len = u64::from_le_bytes(bytes[12..20].try_into().expect("8 bytes"));
    let expected = (HEADER as u64).saturating_add(len).saturating_add(8);
    if bytes.len() as u64 != expected {
        return Err(CheckpointError::Truncated {
            found: bytes.len() as u64,
            expected,
        });
    }
    let payload = &bytes[HEADER..HEADER + len as usize];
    let stored = u64::from_le_bytes(bytes[HEADER + len as usize..].try_into().expect("8 bytes"));
    let mut h = Fnv::default();
    h.write(payload);
    if h.finish() != stored {
        return Err(CheckpointError::Checksum {
            found: stored,
            expected: h.finish(),
        });
    }
    let mut r = Reader {
        bytes: payload,
        pos: 0,
    };
    let fingerprint = r.u64("fingerprint")?;
    let game_spec = r.str("game spec")?;
    let algo = r.str("algorithm")?;
    let mut params = RegretParams {
        alternating: r.bool("alternating")?,
        alpha: r.f64("alpha")?,
        beta: r.f64("beta")?,
        discount_offset: 1.0,
        floor: r.bool("floor")?,
        gamma: r.f64("gamma")?,
        predictive: r.bool("predictive")?,
        schedule: if r.bool("schedule")? {
            Some(crate::cfr::Schedule {
                horizon: r.u64("schedule horizon")?,
                alpha_slope: r.f64("alpha slope")?,
                beta_slope: r.f64("beta slope")?,
                gamma_slope: r.f64("gamma slope")?,
            })
        } else {
            None
        },
        discount_first: false,
        prediction_weight: 1.0,
        volatility: None,
    };
    if version >= 3 {
        params.discount_offset = r.f64("discount offset")?;
        if !(params.discount_offset.is_finite() && params.discount_offset > 0.0) {
            return Err(CheckpointError::Payload(format!(
                "discount offset {} is not a positive number",
                params.discount_offset
            )));
        }
    }
    if version >= 4 {
        params.discount_first = r.bool("discount first")?;
        params.prediction_weight = r.f64("prediction weight")?;
        if !params.prediction_weight.is_finite() {
            return Err(CheckpointError::Payload(format!(
                "prediction weight {} is not finite",
                params.prediction_weight
            )));
        }
        if r.bool("volatility")? {
            let mut a = [0.0; 16];
            for x in a.iter_mut() {
                *x = r.f64("volatility constant")?;
            }
            if let Some(x) = a.iter().find(|x| !x.is_finite()) {
                return Err(CheckpointError::Payload(format!(
                    "volatility constant {x} is not finite"
                )));
            }
            params.volatility = Some(crate::cfr::Volatility::from_array(a));
        }
    }
    let check_every = r.u64("check_every")?;
    let next_check = r.u64("next_check")?;
    let solve_seconds = r.f64("solve seconds")?;
    let n = r.count("curve points", 24)?;
    let mut points = Vec::with_capacity(n);
    for _ in 0..n {
        points.push(CurvePoint {
            iteration: r.u64("point iteration")?,
            exploitability: r.f64("point exploitability")?,
            seconds: r.f64("point seconds")?,
        });
    }
    let iterations = r.u64("iterations")?;
    let num_arrays = r.u32("array count")?;
    let mut arrays = Vec::new();
    for _ in 0..num_arrays {
        let name = r.str("array name")?;
        let len = r.count("array length", 8)?;
        let mut values = Vec::with_capacity(len);
        for _ in 0..len {
            values.push(r.f64("array value")?);
        }
        arrays.push((name, values));
    }
    let kernel = if version >= 5 {
        match r.u8("kernel")? {
            0 => Kernel::Tree,
            1 => Kernel::Sequence,
            k => {
                return Err(CheckpointError::Payload(format!(
                    "kernel {k}: expected 0 or 1"
                )))
            }
        }
    } else {
        Kernel::Tree
    };
    let lock = if version >= 6 {
        r.str("lock")?
    } else {
        String::new()
    };
    if r.pos != payload.len() {
        return Err(CheckpointError::Payload(format!(
            "{} unread bytes at the end",
            payload.len() - r.pos
        )));
    }
    Ok(Checkpoint {
        fingerprint,
        game_spec,
        algo,
        params,
        check_every,
        next_check,
        solve_seconds,
        points,
        state: SolverState { iterations, arrays },
        kernel,
        lock,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Checkpoint {
        Checkpoint {
            fingerprint: 0x1234_5678_9abc_def0,
            game_spec: "kuhn".into(),
            algo: "dcfr".into(),
            params: RegretParams::discounted_default(),
            check_every: 1000,
            next_check: 17,
            solve_seconds: 0.25,
            points: vec![CurvePoint {
                iteration: 3,
                exploitability: 0.125,
                seconds: 0.01,
            }],
            state: SolverState {
                iterations: 16,
                arrays: vec![("regret0".into(), vec![1.5, -0.0, f64::MIN_POSITIVE])],
            },
            kernel: Kernel::Tree,
            lock: String::new(),
        }
    }

    #[test]
    fn round_trips_bit_for_bit() {
        let c = sample();
        let back = decode(&encode(&c)).unwrap();
        assert_eq!(back, c);
        assert_eq!(
            back.state.arrays[0].1[1].to_bits(),
            (-0.0f64).to_bits(),
            "signed zero kept"
        );
    }

    #[test]
    fn every_truncation_and_every_flipped_byte_is_an_error() {
        let bytes = encode(&sample());
        for len in 0..bytes.len() {
            assert!(decode(&bytes[..len]).is_err(), "truncated to {len}");
        }
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x40;
            assert!(decode(&b).is_err(), "byte {i} flipped");
        }
    }

    #[test]
    fn huge_announced_lengths_are_refused_before_allocating() {
        let mut c = sample();
        c.points.clear();
        let mut bytes = encode(&c);
        // Rewrite the point count to 2^62 and fix the checksum: the reader must refuse it.
        let at =
            HEADER + 8 + (4 + 4) + (4 + 4) + 1 + 8 + 8 + 1 + 8 + 1 + 8 + (1 + 8 + 1) + 8 + 8 + 8;
        bytes[at..at + 8].copy_from_slice(&(1u64 << 62).to_le_bytes());
        fix_checksum(&mut bytes);
        let err = decode(&bytes).unwrap_err();
        assert!(err.to_string().contains("curve points"), "{err}");
    }

    /// Recomputes the checksum of an edited file, so that the reader sees the edit itself.
    fn fix_checksum(bytes: &mut [u8]) {
        let len = bytes.len();
        let mut h = Fnv::default();
        h.write(&bytes[HEADER..len - 8]);
        bytes[len - 8..].copy_from_slice(&h.finish().to_le_bytes());
    }

    /// Rewrites `bytes` (a version 5 file of the tree kernel) as version 4: without the
    /// kernel byte at the end; fixed checksum.
    fn as_version_4(bytes: &[u8]) -> Vec<u8> {
        let v5 = as_version_5(bytes);
        let mut payload = v5[HEADER..v5.len() - 8].to_vec();
        assert_eq!(payload.pop(), Some(0));
        frame(4, &payload)
    }

    /// Rewrites `bytes` (a version 6 file without a lock) as version 5: without the empty
    /// lock string at the end; fixed checksum.
    fn as_version_5(bytes: &[u8]) -> Vec<u8> {
        let mut payload = bytes[HEADER..bytes.len() - 8].to_vec();
        let at = payload.len() - 4;
        assert_eq!(payload.split_off(at), vec![0; 4]);
        frame(5, &payload)
    }

    /// A version 5 checkpoint (written before locks) resumes without a lock; a lock
    /// round-trips.
    #[test]
    fn version_5_reads_without_a_lock_and_a_lock_round_trips() {
        let mut c = sample();
        assert_eq!(decode(&as_version_5(&encode(&c))).unwrap(), c);
        c.lock = "0\tJ\t5/6,1/6\n".into();
        assert_eq!(decode(&encode(&c)).unwrap(), c);
    }

    /// Rewrites `bytes` (a version 5 file of the tree kernel without volatility) as version
    /// 3: without the discount-first flag, prediction weight and volatility flag after the
    /// offset at `offset_at`, nor the kernel; fixed checksum.
    fn as_version_3(bytes: &[u8], offset_at: usize) -> Vec<u8> {
        let v4 = as_version_4(bytes);
        let mut payload = v4[HEADER..v4.len() - 8].to_vec();
        let at = offset_at - HEADER + 8;
        payload.drain(at..at + 1 + 8 + 1);
        frame(3, &payload)
    }

    /// Rewrites `bytes` (a version 4 file without volatility) as version 2: no discount
    /// offset either.
    fn as_version_2(bytes: &[u8], offset_at: usize) -> Vec<u8> {
        let v3 = as_version_3(bytes, offset_at);
        let mut payload = v3[HEADER..v3.len() - 8].to_vec();
        payload.drain(offset_at - HEADER..offset_at - HEADER + 8);
        frame(2, &payload)
    }

    /// A version 4 checkpoint (written before the sequence-form kernel) resumes on the tree;
    /// a version 5 one keeps its kernel, and an unknown kernel is refused.
    #[test]
    fn version_4_reads_as_the_tree_kernel_and_version_5_keeps_its_kernel() {
        let mut c = sample();
        assert_eq!(decode(&as_version_4(&encode(&c))).unwrap(), c);
        c.kernel = Kernel::Sequence;
        let mut bytes = encode(&c);
        assert_eq!(decode(&bytes).unwrap(), c);
        let last = bytes.len() - 13;
        bytes[last] = 2;
        fix_checksum(&mut bytes);
        let err = decode(&bytes).unwrap_err().to_string();
        assert!(err.contains("kernel 2"), "{err}");
    }

    /// A version 3 checkpoint (written before the revised schedules, SAPCFR+ and VAD-CFR)
    /// resumes with add-then-discount, prediction weight 1 and no volatility; every new field
    /// round-trips, VAD-CFR's constants included.
    #[test]
    fn version_3_reads_with_the_old_rules_and_new_fields_round_trip() {
        let mut c = sample();
        c.algo = "hs-pcfr+".into();
        c.params = RegretParams::hs_pcfr_plus(30.0, 40);
        let bytes = encode(&c);
        let offset_at = HEADER + 8 + (4 + 4) + (4 + 8) + 1 + 8 + 8 + 1 + 8 + 1 + (1 + 8 + 24);
        assert_eq!(bytes[offset_at..offset_at + 8], 1.0f64.to_le_bytes());
        assert_eq!(decode(&as_version_3(&bytes, offset_at)).unwrap(), c);
        for params in [
            RegretParams::vad_cfr(),
            RegretParams::sapcfr_plus(),
            RegretParams::hs_pdcfr_plus(15.0, 1000),
        ] {
            c.params = params;
            assert_eq!(decode(&encode(&c)).unwrap(), c);
        }
    }

    /// A version 2 checkpoint (written before DCFR+ got its authors' offset) still resumes,
    /// with the offset 1 it was run with; a bad offset in version 3 is refused.
    #[test]
    fn version_2_reads_with_offset_one() {
        let mut c = sample();
        c.algo = "dcfr+".into();
        c.params = RegretParams::dcfr_plus();
        assert_eq!(c.params.discount_offset, 1.5);
        let bytes = encode(&c);
        // The offset follows the parameters: no schedule, so it sits right after the flag.
        let offset_at = HEADER + 8 + (4 + 4) + (4 + 5) + 1 + 8 + 8 + 1 + 8 + 1 + 1;
        assert_eq!(bytes[offset_at..offset_at + 8], 1.5f64.to_le_bytes());
        let back = decode(&as_version_2(&bytes, offset_at)).unwrap();
        assert_eq!(back.params.discount_offset, 1.0);
        c.params.discount_offset = 1.0;
        assert_eq!(back, c);

        let mut bad = bytes.clone();
        bad[offset_at..offset_at + 8].copy_from_slice(&(-1.0f64).to_le_bytes());
        fix_checksum(&mut bad);
        let err = decode(&bad).unwrap_err().to_string();
        assert!(err.contains("discount offset -1"), "{err}");
        let mut old = bytes;
        old[8..12].copy_from_slice(&1u32.to_le_bytes());
        assert_eq!(decode(&old).unwrap_err(), CheckpointError::Version(1));
    }
}
