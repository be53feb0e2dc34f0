//! Sampling checkpoints: a versioned little-endian binary file, streamed from and into the
//! tables (a run on liar's dice 2x5 holds gigabytes; no copy of them is made in memory).
//!
//! ```text
//! magic    8 bytes  "BLUFFMCC"
//! version  u32      3 (versions 1, without names, and 2, without a lock, are read too)
//! header   game spec, game id, algorithm, lock (each u32 length + UTF-8; the lock's
//!          canonical text, empty when nothing is locked); sampling u8 (0 external,
//!          1 outcome), epsilon f64; floor u8, alpha f64, beta f64, discount offset f64,
//!          gamma f64; epoch u64; baseline u8 then rate f64; seed u64, threads u64,
//!          iterations u64, epochs discounted u64; solve seconds f64; curve points (u64
//!          count, then iteration u64, exploitability f64, seconds f64 each)
//! tables   per player: width u32, entries u64, then per entry (in the order made): key u64,
//!          actions u32, actions x width f64
//! names    per player: count u64, then each name (u32 length + UTF-8) in key order: the sets'
//!          names of rules that number sets as met ([`Rules::interned_names`]; 0 otherwise)
//! trailer  length u64 of header, tables and names, FNV-1a 64 of them
//! ```
//! Every count is checked against the bytes left in the file before anything is allocated,
//! and the checksum is checked before the restored solver is handed back, so a truncated or
//! corrupted file is an error, never a run.

use super::{MccfrParams, MccfrSolver, Sampling};
use crate::cfr::checkpoint::Fnv;
use crate::cfr::RegretParams;
use crate::game::Rules;
use std::io::{Read, Write};
use std::path::Path;

const MAGIC: &[u8; 8] = b"BLUFFMCC";
/// The format version this build writes (it reads this and every earlier one).
pub const VERSION: u32 = 3;

/// What a checkpoint says about its run besides the solver's state.
#[derive(Clone, Debug, PartialEq)]
pub struct RunInfo {
    /// The game spec the run was started with.
    pub game_spec: String,
    /// The game's identity (rules: their name; an arena: its fingerprint in hex).
    pub game_id: String,
    /// The algorithm's name (`es-mccfr`, `os-mccfr`).
    pub algo: String,
    /// The run's lock as [`crate::lock::Lock::canonical`] writes it ("" when nothing is
    /// locked): the locked sets were played as chance nodes.
    pub lock: String,
    /// Solving time so far, seconds (measurements and saves excluded).
    pub solve_seconds: f64,
    /// Measurements so far: iteration, exploitability, solving seconds.
    pub points: Vec<(u64, f64, f64)>,
}

/// The solver settings a checkpoint holds (read before the game is built).
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    /// The run's description.
    pub info: RunInfo,
    /// Parameters.
    pub params: MccfrParams,
    /// Seed.
    pub seed: u64,
    /// Threads.
    pub threads: usize,
    /// Iterations done.
    pub iterations: u64,
    /// Discount epochs applied.
    pub epochs_discounted: u64,
}

/// Why a sampling checkpoint could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// Reading or writing the file failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// Not a sampling checkpoint.
    #[error("not a bluff sampling checkpoint (the file does not start with BLUFFMCC)")]
    Magic,
    /// Another version of the format.
    #[error("sampling checkpoint format version {0}; this bluff reads versions 1 to {VERSION}")]
    Version(u32),
    /// Contents that do not parse or do not fit.
    #[error("malformed sampling checkpoint: {0}")]
    Malformed(String),
    /// The checksum does not match.
    #[error("corrupted sampling checkpoint: checksum {found:016x}, contents {expected:016x}")]
    Checksum {
        /// Stored.
        found: u64,
        /// Computed.
        expected: u64,
    },
    /// The state does not fit the game.
    #[error(transparent)]
    State(#[from] super::MccfrError),
}

/// Writes bytes and hashes them.
struct Hashing<'a> {
    w: &'a mut dyn Write,
    h: Fnv,
    len: u64,
}

impl Hashing<'_> {
    fn put(&mut self, b: &[u8]) -> std::io::Result<()> {
        self.h.write(b);
        self.len += b.len() as u64;
        self.w.write_all(b)
    }
    fn u8(&mut self, x: u8) -> std::io::Result<()> {
        self.put(&[x])
    }
    fn u32(&mut self, x: u32) -> std::io::Result<()> {
        self.put(&x.to_le_bytes())
    }
    fn u64(&mut self, x: u64) -> std::io::Result<()> {
        self.put(&x.to_le_bytes())
    }
    fn f64(&mut self, x: f64) -> std::io::Result<()> {
        self.u64(x.to_bits())
    }
    fn str(&mut self, s: &str) -> std::io::Result<()> {
        self.u32(s.len() as u32)?;
        self.put(s.as_bytes())
    }
}

/// Writes `solver` and `info` as a checkpoint to `w`.
pub fn write<G: Rules>(
    w: &mut dyn Write,
    solver: &MccfrSolver<G>,
    info: &RunInfo,
) -> std::io::Result<()> {
    w.write_all(MAGIC)?;
    w.write_all(&VERSION.to_le_bytes())?;
    let mut o = Hashing {
        w,
        h: Fnv::default(),
        len: 0,
    };
    o.str(&info.game_spec)?;
    o.str(&info.game_id)?;
    o.str(&info.algo)?;
    o.str(&info.lock)?;
    let p = solver.params;
    match p.sampling {
        Sampling::External => {
            o.u8(0)?;
            o.f64(0.0)?;
        }
        Sampling::Outcome { epsilon } => {
            o.u8(1)?;
            o.f64(epsilon)?;
        }
    }
    let r = p.regret;
    o.u8(r.floor as u8)?;
    o.f64(r.alpha)?;
    o.f64(r.beta)?;
    o.f64(r.discount_offset)?;
    o.f64(r.gamma)?;
    o.u64(p.epoch)?;
    o.u8(p.baseline.is_some() as u8)?;
    o.f64(p.baseline.unwrap_or(0.0))?;
    o.u64(solver.seed)?;
    o.u64(solver.threads as u64)?;
    o.u64(solver.iterations)?;
    o.u64(solver.epochs_discounted)?;
    o.f64(info.solve_seconds)?;
    o.u64(info.points.len() as u64)?;
    for &(i, e, s) in &info.points {
        o.u64(i)?;
        o.f64(e)?;
        o.f64(s)?;
    }
    let mut bytes: Vec<u8> = Vec::new();
    for t in &solver.tables {
        o.u32(t.width() as u32)?;
        o.u64(t.len() as u64)?;
        for (key, numbers) in t.entries() {
            o.u64(key)?;
            o.u32((numbers.len() / t.width()) as u32)?;
            bytes.clear();
            bytes.extend(numbers.iter().flat_map(|x| x.to_le_bytes()));
            o.put(&bytes)?;
        }
    }
    let names = solver.rules.interned_names();
    for p in 0..2 {
        let list = names.as_ref().map_or(&[][..], |n| &n[p][..]);
        o.u64(list.len() as u64)?;
        for name in list {
            o.str(name)?;
        }
    }
    let (len, sum) = (o.len, o.h.finish());
    w.write_all(&len.to_le_bytes())?;
    w.write_all(&sum.to_le_bytes())
}

/// Saves atomically to `path` (a temporary sibling, then a rename).
pub fn save<G: Rules>(
    path: &Path,
    solver: &MccfrSolver<G>,
    info: &RunInfo,
) -> Result<(), crate::format::output::WriteError> {
    crate::format::output::write_file_with(path, |w| write(w, solver, info))
}

/// Reads bytes, hashes them and counts what is left.
struct Reading<'a> {
    r: &'a mut dyn Read,
    h: Fnv,
    left: u64,
}

impl Reading<'_> {
    fn take(&mut self, buf: &mut [u8], what: &str) -> Result<(), CheckpointError> {
        if buf.len() as u64 > self.left {
            return Err(CheckpointError::Malformed(format!(
                "{what} needs {} bytes, {} left",
                buf.len(),
                self.left
            )));
        }
        self.r.read_exact(buf)?;
        self.h.write(buf);
        self.left -= buf.len() as u64;
        Ok(())
    }
    fn u8(&mut self, what: &str) -> Result<u8, CheckpointError> {
        let mut b = [0u8; 1];
        self.take(&mut b, what)?;
        Ok(b[0])
    }
    fn flag(&mut self, what: &str) -> Result<bool, CheckpointError> {
        match self.u8(what)? {
            0 => Ok(false),
            1 => Ok(true),
            x => Err(CheckpointError::Malformed(format!(
                "{what} is {x}, not 0 or 1"
            ))),
        }
    }
    fn u32(&mut self, what: &str) -> Result<u32, CheckpointError> {
        let mut b = [0u8; 4];
        self.take(&mut b, what)?;
        Ok(u32::from_le_bytes(b))
    }
    fn u64(&mut self, what: &str) -> Result<u64, CheckpointError> {
        let mut b = [0u8; 8];
        self.take(&mut b, what)?;
        Ok(u64::from_le_bytes(b))
    }
    fn f64(&mut self, what: &str) -> Result<f64, CheckpointError> {
        Ok(f64::from_bits(self.u64(what)?))
    }
    fn str(&mut self, what: &str) -> Result<String, CheckpointError> {
        let n = self.u32(what)? as usize;
        if n as u64 > self.left {
            return Err(CheckpointError::Malformed(format!(
                "{what}: {n} bytes announced"
            )));
        }
        let mut b = vec![0u8; n];
        self.take(&mut b, what)?;
        String::from_utf8(b).map_err(|_| CheckpointError::Malformed(format!("{what}: not UTF-8")))
    }
    /// A count of items of at least `item_bytes` each, checked against the bytes left.
    fn count(&mut self, what: &str, item_bytes: u64) -> Result<u64, CheckpointError> {
        let n = self.u64(what)?;
        if n.saturating_mul(item_bytes) > self.left {
            return Err(CheckpointError::Malformed(format!(
                "{what}: {n} items do not fit the {} bytes left",
                self.left
            )));
        }
        Ok(n)
    }
}

/// Reads the magic, version and header of a checkpoint of `file_len` bytes.
fn read_header(r: &mut Reading, version: u32) -> Result<Header, CheckpointError> {
    let game_spec = r.str("game spec")?;
    let game_id = r.str("game id")?;
    let algo = r.str("algorithm")?;
    let lock = if version >= 3 {
        r.str("lock")?
    } else {
        String::new()
    };
    let sampling = match r.u8("sampling")? {
        0 => {
            r.f64("epsilon")?;
            Sampling::External
        }
        1 => Sampling::Outcome {
            epsilon: r.f64("epsilon")?,
        },
        x => return Err(CheckpointError::Malformed(format!("sampling kind {x}"))),
    };
    let regret = RegretParams {
        floor: r.flag("floor")?,
        alpha: r.f64("alpha")?,
        beta: r.f64("beta")?,
        discount_offset: r.f64("discount offset")?,
        gamma: r.f64("gamma")?,
        ..RegretParams::vanilla_alternating()
    };
    let epoch = r.u64("epoch")?;
    let has_baseline = r.flag("baseline flag")?;
    let rate = r.f64("baseline rate")?;
    let params = MccfrParams {
        sampling,
        regret,
        epoch,
        baseline: has_baseline.then_some(rate),
    };
    params
        .check()
        .map_err(|e| CheckpointError::Malformed(e.to_string()))?;
    let seed = r.u64("seed")?;
    let threads = r.u64("threads")?;
    let iterations = r.u64("iterations")?;
    let epochs_discounted = r.u64("epochs discounted")?;
    let solve_seconds = r.f64("solve seconds")?;
    let n = r.count("curve points", 24)?;
    let mut points = Vec::with_capacity(n as usize);
    for _ in 0..n {
        points.push((r.u64("point")?, r.f64("point")?, r.f64("point")?));
    }
    Ok(Header {
        info: RunInfo {
            game_spec,
            game_id,
            algo,
            lock,
            solve_seconds,
            points,
        },
        params,
        seed,
        threads: usize::try_from(threads)
            .map_err(|_| CheckpointError::Malformed(format!("{threads} threads")))?,
        iterations,
        epochs_discounted,
    })
}

/// Opens `path`, checks magic and version, and returns a reader positioned at the header
/// with the bytes of header and tables counted.
fn open(path: &Path) -> Result<(std::io::BufReader<std::fs::File>, u64, u32), CheckpointError> {
    let file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    let mut r = std::io::BufReader::with_capacity(1 << 20, file);
    let mut head = [0u8; 12];
    if len < 12 + 16 {
        return Err(CheckpointError::Magic);
    }
    r.read_exact(&mut head)?;
    if &head[..8] != MAGIC {
        return Err(CheckpointError::Magic);
    }
    let version = u32::from_le_bytes(head[8..12].try_into().expect("4 bytes"));
    if !(1..=VERSION).contains(&version) {
        return Err(CheckpointError::Version(version));
    }
    Ok((r, len - 12 - 16, version))
}

/// The header of the checkpoint at `path` (to learn its game before building it).
pub fn read_header_of(path: &Path) -> Result<Header, CheckpointError> {
    let (mut file, left, version) = open(path)?;
    read_header(
        &mut Reading {
            r: &mut file,
            h: Fnv::default(),
            left,
        },
        version,
    )
}

/// Restores the solver saved at `path` for `rules`, with its header; checks the checksum.
pub fn load<'g, G: Rules>(
    path: &Path,
    rules: &'g G,
) -> Result<(MccfrSolver<'g, G>, Header), CheckpointError> {
    let (mut file, left, version) = open(path)?;
    let mut r = Reading {
        r: &mut file,
        h: Fnv::default(),
        left,
    };
    let header = read_header(&mut r, version)?;
    let mut solver =
        MccfrSolver::new(rules, header.params, header.seed)?.with_threads(header.threads)?;
    let mut numbers: Vec<f64> = Vec::new();
    let mut bytes: Vec<u8> = Vec::new();
    for p in 0..2 {
        let width = r.u32("table width")? as usize;
        if width != solver.tables[p].width() {
            return Err(CheckpointError::Malformed(format!(
                "table width {width}, the parameters need {}",
                solver.tables[p].width()
            )));
        }
        let entries = r.count("table entries", 12)?;
        for _ in 0..entries {
            let key = r.u64("key")?;
            let n = r.u32("actions")? as u64;
            let len = n * width as u64 * 8;
            if len > r.left {
                return Err(CheckpointError::Malformed(format!(
                    "an entry of {n} actions does not fit the bytes left"
                )));
            }
            bytes.resize(len as usize, 0);
            r.take(&mut bytes, "entry")?;
            numbers.clear();
            numbers.extend(
                bytes
                    .chunks_exact(8)
                    .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes"))),
            );
            if numbers.iter().any(|x| !x.is_finite()) {
                return Err(CheckpointError::Malformed(format!(
                    "entry {key}: a non-finite number"
                )));
            }
            if !solver.tables[p].restore_entry(key, &numbers) {
                return Err(CheckpointError::Malformed(format!(
                    "entry {key} of player {} does not fit the game or repeats",
                    p + 1
                )));
            }
        }
    }
    let mut names: [Vec<String>; 2] = Default::default();
    if version >= 2 {
        for list in &mut names {
            let n = r.count("names", 4)?;
            list.reserve_exact(n as usize);
            for _ in 0..n {
                list.push(r.str("name")?);
            }
        }
    }
    if r.left != 0 {
        return Err(CheckpointError::Malformed(format!(
            "{} bytes after the tables",
            r.left
        )));
    }
    let expected = r.h.finish();
    let mut tail = [0u8; 16];
    file.read_exact(&mut tail)?;
    let stored_len = u64::from_le_bytes(tail[..8].try_into().expect("8 bytes"));
    let found = u64::from_le_bytes(tail[8..].try_into().expect("8 bytes"));
    if found != expected || stored_len != left {
        return Err(CheckpointError::Checksum { found, expected });
    }
    if header.epochs_discounted > header.iterations / header.params.epoch {
        return Err(CheckpointError::Malformed(
            "more epochs discounted than run".into(),
        ));
    }
    // Rules that number sets as met take the first run's numbers back before any set is met
    // (asked last, since it copies the names the rules hold).
    let named = names.iter().any(|l| !l.is_empty());
    if named && !rules.restore_interned_names(&names) {
        return Err(CheckpointError::Malformed(
            "the checkpoint names its sets, and these rules cannot number them so".into(),
        ));
    }
    if !named && solver.tables.iter().any(|t| !t.is_empty()) && rules.interned_names().is_some() {
        return Err(CheckpointError::Malformed(
            "these rules number sets as met, and the checkpoint does not name its sets".into(),
        ));
    }
    solver.iterations = header.iterations;
    solver.epochs_discounted = header.epochs_discounted;
    Ok((solver, header))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::leduc::Leduc;
    use crate::scalar::Rational;
    use std::borrow::Cow;
    use std::sync::Mutex;

    /// Leduc with its keys numbered as the sets are first met, as a game in Python numbers
    /// them (its "names" are Leduc's keys written out).
    #[derive(Default)]
    struct Interning {
        met: Mutex<[Vec<String>; 2]>,
    }

    impl Rules for Interning {
        type State = <Leduc as Rules>::State;
        fn name(&self) -> String {
            "interned leduc".into()
        }
        fn root(&self) -> Self::State {
            Leduc.root()
        }
        fn turn(&self, s: &Self::State) -> crate::game::Turn {
            Leduc.turn(s)
        }
        fn num_actions(&self, s: &Self::State) -> usize {
            Leduc.num_actions(s)
        }
        fn apply(&self, s: &mut Self::State, action: usize) {
            Leduc.apply(s, action)
        }
        fn chance_prob(&self, s: &Self::State, outcome: usize) -> f64 {
            Leduc.chance_prob(s, outcome)
        }
        fn chance_prob_exact(&self, s: &Self::State, outcome: usize) -> Rational {
            Leduc.chance_prob_exact(s, outcome)
        }
        fn infoset_key(&self, s: &Self::State) -> u64 {
            let crate::game::Turn::Player(p) = Leduc.turn(s) else {
                unreachable!("keys are asked at decisions")
            };
            let name = Leduc.infoset_key(s).to_string();
            let mut met = self.met.lock().unwrap();
            match met[p].iter().position(|n| *n == name) {
                Some(k) => k as u64,
                None => {
                    met[p].push(name);
                    met[p].len() as u64 - 1
                }
            }
        }
        fn payoff0(&self, s: &Self::State) -> f64 {
            Leduc.payoff0(s)
        }
        fn payoff0_exact(&self, s: &Self::State) -> Rational {
            Leduc.payoff0_exact(s)
        }
        fn infoset_label(&self, s: &Self::State, out: &mut String) {
            Leduc.infoset_label(s, out)
        }
        fn action_label(&self, s: &Self::State, action: usize) -> Cow<'_, str> {
            Leduc.action_label(s, action)
        }
        fn chance_label(&self, s: &Self::State, outcome: usize) -> Cow<'_, str> {
            Leduc.chance_label(s, outcome)
        }
        fn interned_names(&self) -> Option<[Vec<String>; 2]> {
            Some(self.met.lock().unwrap().clone())
        }
        fn restore_interned_names(&self, names: &[Vec<String>; 2]) -> bool {
            let mut met = self.met.lock().unwrap();
            if (0..2).any(|p| !names[p].starts_with(&met[p])) {
                return false;
            }
            *met = names.clone();
            true
        }
    }

    /// Rules that number sets as met: the checkpoint keeps the names, a resumed run (on fresh
    /// rules, which number nothing yet) continues bit for bit with a straight run; rules that
    /// number sets otherwise, or a version-1 style file without names, are refused.
    #[test]
    fn interned_names_round_trip_and_resume_bit_for_bit() {
        let params = MccfrParams::external();
        let first = Interning::default();
        let mut s = MccfrSolver::new(&first, params, 9).unwrap();
        s.iterate(300);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.mcc");
        save(&path, &s, &info()).unwrap();
        let fresh = Interning::default();
        let (mut back, _) = load(&path, &fresh).unwrap();
        assert_eq!(fresh.interned_names(), first.interned_names());
        assert_eq!(back.state(), s.state());
        let straight_rules = Interning::default();
        let mut straight = MccfrSolver::new(&straight_rules, params, 9).unwrap();
        straight.iterate(600);
        back.iterate(300);
        assert_eq!(back.state(), straight.state());
        // Rules that have already numbered another set first cannot take these names.
        let other = Interning::default();
        other.met.lock().unwrap()[0].push("elsewhere".into());
        assert!(load(&path, &other).is_err());
        // Native rules (keys from the state) refuse a checkpoint that names its sets.
        assert!(load(&path, &Leduc).is_err());
        // Interning rules refuse a checkpoint of trained tables without names.
        let mut plain = MccfrSolver::new(&Leduc, params, 9).unwrap();
        plain.iterate(10);
        save(&path, &plain, &info()).unwrap();
        assert!(load(&path, &Interning::default()).is_err());
    }

    fn info() -> RunInfo {
        RunInfo {
            game_spec: "leduc".into(),
            game_id: "leduc".into(),
            algo: "os-mccfr".into(),
            lock: "0\tJ:\t1/3,2/3\n".into(),
            solve_seconds: 1.5,
            points: vec![(10, 0.5, 0.25)],
        }
    }

    /// Saving and loading gives the same state; the loaded run continues bit for bit; every
    /// truncation and a flipped byte anywhere are errors.
    #[test]
    fn round_trips_and_refuses_damage() {
        let params = MccfrParams {
            baseline: Some(0.5),
            ..MccfrParams::outcome(0.6)
        };
        let mut s = MccfrSolver::new(&Leduc, params, 4)
            .unwrap()
            .with_threads(2)
            .unwrap();
        s.iterate(64);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.mcc");
        save(&path, &s, &info()).unwrap();
        let (mut back, header) = load(&path, &Leduc).unwrap();
        assert_eq!(header.info, info());
        assert_eq!(back.state(), s.state());
        assert_eq!(read_header_of(&path).unwrap(), header);
        s.iterate(64);
        back.iterate(64);
        assert_eq!(back.state(), s.state());

        let bytes = std::fs::read(&path).unwrap();
        let bad = dir.path().join("bad.mcc");
        for len in [0, 11, 12, 40, bytes.len() / 2, bytes.len() - 1] {
            std::fs::write(&bad, &bytes[..len]).unwrap();
            assert!(load(&bad, &Leduc).is_err(), "truncated to {len}");
        }
        for i in (0..bytes.len()).step_by(97) {
            let mut b = bytes.clone();
            b[i] ^= 0x10;
            std::fs::write(&bad, &b).unwrap();
            assert!(load(&bad, &Leduc).is_err(), "byte {i} flipped");
        }
    }

    /// A version-2 file (no lock in the header) still loads, as unlocked, to the same state.
    #[test]
    fn reads_version_2() {
        let mut s = MccfrSolver::new(&Leduc, MccfrParams::external(), 1).unwrap();
        s.iterate(16);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.mcc");
        let unlocked = RunInfo {
            lock: String::new(),
            ..info()
        };
        save(&path, &s, &unlocked).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        // The lock's length (4 zero bytes) follows the three strings after magic and version.
        let mut at = 12;
        for _ in 0..3 {
            at += 4 + u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        }
        assert_eq!(bytes[at..at + 4], [0, 0, 0, 0]);
        let mut body = bytes[12..at].to_vec();
        body.extend_from_slice(&bytes[at + 4..bytes.len() - 16]);
        let mut h = Fnv::default();
        h.write(&body);
        let mut old = MAGIC.to_vec();
        old.extend_from_slice(&2u32.to_le_bytes());
        old.extend_from_slice(&body);
        old.extend_from_slice(&(body.len() as u64).to_le_bytes());
        old.extend_from_slice(&h.finish().to_le_bytes());
        std::fs::write(&path, &old).unwrap();
        let (back, header) = load(&path, &Leduc).unwrap();
        assert_eq!(header.info, unlocked);
        assert_eq!(back.state(), s.state());
    }
}
