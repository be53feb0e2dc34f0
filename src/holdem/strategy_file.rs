//! Strategy files of hold'em spots: what `bluff solve SPOT.toml -o S` writes and `bluff eval`
//! and `bluff export-strategy` read.
//!
//! A file holds one strategy of one spot: for every decision node of the spot's game (the
//! public tree expanded with its deals) each hand's probabilities of the node's actions, as
//! little-endian `f32`. Nodes are keyed by their path (`flop:check,bet94;turn:8d:check`), not
//! by where an engine stores them, and the header names the spot, so a file is refused for
//! any other spot with the difference named. The layout:
//!
//! ```text
//! "BLUFFSPT"             8 bytes, the magic
//! version                u32 (1)
//! header length H        u32 (at most 1 MiB)
//! header                 H bytes of JSON (`Header`)
//! per decision node:     u16 path length L, L bytes of path (UTF-8), u8 player (0 OOP,
//!                        1 IP), u8 actions k, u32 hands n, then n x k f32 (hand-major: the
//!                        k actions of hand 0, then of hand 1, ... in the header's hand order)
//! checksum               u64: FNV-1a over the 8-byte little-endian words of everything
//!                        before it (the tail zero-padded)
//! ```
//!
//! The reader checks the magic, the version, the header's size and spot, the file's length
//! against the header's before reading a record, each record's path, player, actions and
//! hands against the spot's game before reading its numbers, every probability (finite, in
//! [0, 1], each hand's summing to 1 within 1e-4), that every node comes exactly once, and the
//! checksum; it streams, holding one node's numbers at a time. The writer writes through a
//! temporary file in the target's folder renamed over it ([`crate::format::output`]).

use super::cards::{cards_of, Card};
use super::iso::{map_card, SuitPerm};
use super::solver::{Game, GameKind, Solver};
use super::spot::Spot;
use super::tree::NodeKind;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::Path;

/// The first bytes of a strategy file.
pub const MAGIC: &[u8; 8] = b"BLUFFSPT";
/// The layout's version.
pub const VERSION: u32 = 1;
/// The largest header accepted, bytes.
pub const MAX_HEADER_BYTES: u32 = 1 << 20;
/// The longest node path accepted, bytes.
pub const MAX_PATH_BYTES: u16 = 4096;
/// How far a hand's probabilities may sum from 1.
pub const SUM_TOLERANCE: f64 = 1e-4;
/// The `format` field of the header.
pub const FORMAT: &str = "bluff-spot-strategy";

/// Why a strategy file was not read or written.
#[derive(Debug, thiserror::Error)]
pub enum StrategyFileError {
    /// The file could not be opened or read.
    #[error("{action}: {source}")]
    Io {
        /// What was being done.
        action: String,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
    /// Writing failed.
    #[error(transparent)]
    Write(#[from] crate::format::output::WriteError),
    /// Not a strategy file of a spot.
    #[error("not a hold'em strategy file (it does not start with BLUFFSPT)")]
    NotAStrategyFile,
    /// A version this build does not read.
    #[error("strategy file version {0}; this build reads version {VERSION}")]
    Version(u32),
    /// The file ends early or carries bytes past its end.
    #[error("the file has {found} bytes where its header says {expected} (truncated or padded)")]
    Length {
        /// Bytes the header implies.
        expected: u64,
        /// Bytes found.
        found: u64,
    },
    /// The header or a record is malformed.
    #[error("corrupt: {0}")]
    Corrupt(String),
    /// The checksum does not match the contents.
    #[error("corrupt: the checksum does not match the contents")]
    Checksum,
    /// The file was made for another spot.
    #[error("made for another spot: {0}")]
    OtherSpot(String),
}

impl StrategyFileError {
    fn io(action: &str) -> impl FnOnce(std::io::Error) -> StrategyFileError + '_ {
        move |source| {
            if source.kind() == std::io::ErrorKind::UnexpectedEof {
                StrategyFileError::Corrupt(format!("the file ends early ({action})"))
            } else {
                StrategyFileError::Io {
                    action: action.to_string(),
                    source,
                }
            }
        }
    }
}

/// What identifies a spot: a file is read only for the spot whose key equals its own.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpotKey {
    /// The board.
    pub board: String,
    /// The deck (ranks / suits).
    pub deck: String,
    /// The starting pot, chips.
    pub pot: i64,
    /// The starting stack, chips.
    pub stack: i64,
    /// The rake fraction.
    pub rake: f64,
    /// The rake cap, chips.
    pub rake_cap: f64,
    /// Each player's hands (`AhKh`, higher card first), in the file's order.
    pub hands: [Vec<String>; 2],
    /// A hash of each player's weights (the bits of each f64).
    pub weights: [String; 2],
    /// Nodes of the public tree.
    pub tree_nodes: usize,
    /// A hash of the public tree (every node's kind, street, parent, action and chips).
    pub tree: String,
}

/// The JSON header of a strategy file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Header {
    /// Always [`FORMAT`].
    pub format: String,
    /// The spot.
    pub spot: SpotKey,
    /// How the numbers are stored (`f32`).
    pub precision: String,
    /// Decision-node records.
    pub records: u64,
    /// Bytes of the records.
    pub record_bytes: u64,
    /// The algorithm that made the strategy (informative).
    pub algo: String,
    /// Its iterations (informative).
    pub iterations: u64,
    /// Its exploitability in chips as measured when written (informative).
    pub exploitability: Option<f64>,
}

/// What the writer records besides the strategy.
#[derive(Clone, Debug, Default)]
pub struct Provenance {
    /// The algorithm's name.
    pub algo: String,
    /// Iterations run.
    pub iterations: u64,
    /// The exploitability measured, chips.
    pub exploitability: Option<f64>,
}

/// A word-wise FNV-1a hash of a byte stream.
#[derive(Clone)]
pub(crate) struct Hasher {
    h: u64,
    pending: [u8; 8],
    len: usize,
}

impl Hasher {
    /// A hasher of nothing yet.
    pub(crate) fn new() -> Hasher {
        Hasher {
            h: 0xcbf2_9ce4_8422_2325,
            pending: [0; 8],
            len: 0,
        }
    }
    fn word(&mut self, w: u64) {
        self.h = (self.h ^ w).wrapping_mul(0x0000_0100_0000_01b3);
    }
    /// Hashes more bytes.
    pub(crate) fn update(&mut self, mut bytes: &[u8]) {
        if self.len > 0 {
            let take = (8 - self.len).min(bytes.len());
            self.pending[self.len..self.len + take].copy_from_slice(&bytes[..take]);
            self.len += take;
            bytes = &bytes[take..];
            if self.len < 8 {
                return;
            }
            self.word(u64::from_le_bytes(self.pending));
            self.len = 0;
        }
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.word(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        self.pending[..rest.len()].copy_from_slice(rest);
        self.len = rest.len();
    }
    /// The hash of the bytes so far.
    pub(crate) fn finish(&self) -> u64 {
        let mut s = self.clone();
        if s.len > 0 {
            s.pending[s.len..].fill(0);
            s.word(u64::from_le_bytes(s.pending));
        }
        s.word(0x9e37_79b9_7f4a_7c15 ^ self.len as u64);
        s.h
    }
}

fn hash_hex(bytes: impl IntoIterator<Item = u64>) -> String {
    let mut h = Hasher::new();
    for w in bytes {
        h.update(&w.to_le_bytes());
    }
    format!("{:016x}", h.finish())
}

/// A hand's name, higher card first (`AhKh`).
pub fn hand_name(hand: (Card, Card)) -> String {
    format!("{}{}", hand.0, hand.1)
}

/// The key of a spot, from the spot and its game.
pub fn spot_key(spot: &Spot, game: &Game) -> SpotKey {
    let tree = &game.tree;
    let tree_hash = hash_hex(tree.nodes.iter().flat_map(|n| {
        let kind = match n.kind {
            NodeKind::Decision(p) => u64::from(p),
            NodeKind::Chance => 2,
            NodeKind::Fold(p) => 3 + u64::from(p),
            NodeKind::Showdown => 5,
        };
        let action = n.action.map_or(u64::MAX, |a| {
            let (tag, amount) = match a {
                super::tree::Action::Fold => (0, 0),
                super::tree::Action::Check => (1, 0),
                super::tree::Action::Call => (2, 0),
                super::tree::Action::Bet(x) => (3, x),
                super::tree::Action::Raise(x) => (4, x),
                super::tree::Action::AllIn(x) => (5, x),
            };
            (tag << 56) ^ amount as u64
        });
        [
            kind | (n.street as u64) << 8,
            u64::from(n.parent),
            action,
            n.committed[0] as u64,
            n.committed[1] as u64,
        ]
    }));
    SpotKey {
        board: spot.board.to_string(),
        deck: spot.deck.to_string(),
        pot: spot.pot,
        stack: spot.stack,
        rake: spot.rake,
        rake_cap: spot.rake_cap,
        hands: [0, 1].map(|p| game.hands[p].iter().map(|&h| hand_name(h)).collect()),
        weights: [0, 1].map(|p| hash_hex(game.weights[p].iter().map(|w| w.to_bits()))),
        tree_nodes: tree.nodes.len(),
        tree: tree_hash,
    }
}

/// The first difference between a file's spot and this one, in words.
fn difference(file: &SpotKey, this: &SpotKey) -> Option<String> {
    let differs = |what: &str, a: &dyn std::fmt::Display, b: &dyn std::fmt::Display| {
        Some(format!("its {what} is {a}, this spot's is {b}"))
    };
    if file.board != this.board {
        return differs("board", &file.board, &this.board);
    }
    if file.deck != this.deck {
        return differs("deck", &file.deck, &this.deck);
    }
    if file.pot != this.pot {
        return differs("pot", &file.pot, &this.pot);
    }
    if file.stack != this.stack {
        return differs("stack", &file.stack, &this.stack);
    }
    if file.rake != this.rake {
        return differs("rake", &file.rake, &this.rake);
    }
    if file.rake_cap != this.rake_cap {
        return differs("rake_cap", &file.rake_cap, &this.rake_cap);
    }
    for (p, key) in ["oop_range", "ip_range"].iter().enumerate() {
        if file.hands[p] != this.hands[p] {
            let first = file.hands[p]
                .iter()
                .zip(&this.hands[p])
                .find(|(a, b)| a != b)
                .map(|(a, b)| format!(", {a} where this spot has {b}"))
                .unwrap_or_default();
            return Some(format!(
                "its {key} has other combos ({} combos, this spot's {}{first})",
                file.hands[p].len(),
                this.hands[p].len()
            ));
        }
        if file.weights[p] != this.weights[p] {
            return Some(format!("its {key} has the same combos with other weights"));
        }
    }
    if file.tree_nodes != this.tree_nodes || file.tree != this.tree {
        return Some(format!(
            "its action tree differs (bet sizes, thresholds or donk sizes): {} nodes, this \
             spot's {}",
            file.tree_nodes, this.tree_nodes
        ));
    }
    None
}

/// Each expanded node's dealt cards in order (`u8::MAX`: none), from the root down.
fn dealt_cards(game: &Game) -> Vec<[u8; 2]> {
    let mut dealt = vec![[u8::MAX; 2]; game.nodes.len()];
    for (i, node) in game.nodes.iter().enumerate() {
        let first = node.first_child as usize;
        for c in first..first + node.num_children as usize {
            let mut d = dealt[i];
            if node.kind == GameKind::Chance {
                let card = (game.nodes[c].board & !node.board).trailing_zeros() as u8;
                let slot = d.iter().position(|&x| x == u8::MAX).unwrap_or(1);
                d[slot] = card;
            }
            dealt[c] = d;
        }
    }
    dealt
}

/// The path of every decision node of the game, in node order: `(game node, path)`.
pub fn decision_paths(game: &Game) -> Vec<(usize, String)> {
    let dealt = dealt_cards(game);
    game.nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| matches!(n.kind, GameKind::Decision(_)))
        .map(|(i, n)| {
            let cards: Vec<Card> = dealt[i]
                .iter()
                .filter(|&&c| c != u8::MAX)
                .map(|&c| Card(c))
                .collect();
            (i, game.tree.path(n.tree_node as usize, &cards))
        })
        .collect()
}

/// A decision node's player, actions and hands.
fn shape(game: &Game, g: usize) -> (usize, usize, usize) {
    let node = game.nodes[g];
    let GameKind::Decision(a) = node.kind else {
        return (0, 0, 0);
    };
    let a = a as usize;
    (a, node.num_children as usize, game.hands[a].len())
}

/// A writer that hashes and counts what passes through it.
struct Hashing<'a> {
    inner: &'a mut dyn Write,
    hasher: Hasher,
    bytes: u64,
}

impl Write for Hashing<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Writes the average strategy of `solver` (a solver or an evaluator of `spot`) to `path`
/// (through a temporary file renamed over it); returns the bytes written.
pub fn write(
    path: &Path,
    spot: &Spot,
    solver: &Solver,
    provenance: &Provenance,
) -> Result<u64, StrategyFileError> {
    let game = &solver.game;
    let paths = decision_paths(game);
    let mut record_bytes = 0u64;
    for (g, p) in &paths {
        let (_, k, n) = shape(game, *g);
        record_bytes += 2 + p.len() as u64 + 6 + 4 * (k * n) as u64;
    }
    let header = Header {
        format: FORMAT.to_string(),
        spot: spot_key(spot, game),
        precision: "f32".to_string(),
        records: paths.len() as u64,
        record_bytes,
        algo: provenance.algo.clone(),
        iterations: provenance.iterations,
        exploitability: provenance.exploitability.filter(|x| x.is_finite()),
    };
    let json = serde_json::to_vec(&header).expect("the header serialises");
    if json.len() > MAX_HEADER_BYTES as usize {
        return Err(StrategyFileError::Corrupt(format!(
            "the header would take {} bytes, more than {MAX_HEADER_BYTES}",
            json.len()
        )));
    }
    for (_, p) in &paths {
        if p.len() > MAX_PATH_BYTES as usize {
            return Err(StrategyFileError::Corrupt(format!(
                "node path {p} is longer than {MAX_PATH_BYTES} bytes"
            )));
        }
    }
    let mut total = 0;
    crate::format::output::write_file_with(path, |w| {
        let mut w = Hashing {
            inner: w,
            hasher: Hasher::new(),
            bytes: 0,
        };
        w.write_all(MAGIC)?;
        w.write_all(&VERSION.to_le_bytes())?;
        w.write_all(&(json.len() as u32).to_le_bytes())?;
        w.write_all(&json)?;
        let mut buf: Vec<u8> = Vec::new();
        for (g, p) in &paths {
            let (a, k, n) = shape(game, *g);
            buf.clear();
            buf.extend_from_slice(&(p.len() as u16).to_le_bytes());
            buf.extend_from_slice(p.as_bytes());
            buf.push(a as u8);
            buf.push(k as u8);
            buf.extend_from_slice(&(n as u32).to_le_bytes());
            for x in solver.average_at(*g) {
                buf.extend_from_slice(&(x as f32).to_le_bytes());
            }
            w.write_all(&buf)?;
        }
        let sum = w.hasher.finish();
        w.write_all(&sum.to_le_bytes())?;
        total = w.bytes;
        Ok(())
    })?;
    Ok(total)
}

/// A reader that hashes what it reads.
struct HashingReader<R> {
    inner: R,
    hasher: Hasher,
}

impl<R: Read> HashingReader<R> {
    fn exact(&mut self, buf: &mut [u8], what: &str) -> Result<(), StrategyFileError> {
        self.inner
            .read_exact(buf)
            .map_err(StrategyFileError::io(what))?;
        self.hasher.update(buf);
        Ok(())
    }
}

/// An open strategy file checked against a spot's game: its header read and matched, ready
/// to stream its records ([`Reader::read`]).
pub struct Reader {
    file: HashingReader<std::io::BufReader<std::fs::File>>,
    /// The header.
    pub header: Header,
    /// The game node of each decision path.
    index: HashMap<String, usize>,
    /// Each decision node's (player, actions, hands), by game node.
    shapes: HashMap<usize, (usize, usize, usize)>,
}

impl Reader {
    /// The game node of the decision node at `path` (as [`super::tree::Tree::path`] writes
    /// it), if the file holds it.
    pub fn node_at(&self, path: &str) -> Option<usize> {
        self.index.get(path).copied()
    }

    /// Opens `path` and checks it against `spot` and its `game`: the magic, version, header,
    /// spot and length, before reading any record.
    pub fn open(path: &Path, spot: &Spot, game: &Game) -> Result<Reader, StrategyFileError> {
        let file = std::fs::File::open(path).map_err(StrategyFileError::io("opening it"))?;
        let found = file
            .metadata()
            .map_err(StrategyFileError::io("reading its size"))?
            .len();
        let mut r = HashingReader {
            inner: std::io::BufReader::with_capacity(1 << 20, file),
            hasher: Hasher::new(),
        };
        let mut magic = [0u8; 8];
        if found < 16 {
            return Err(StrategyFileError::NotAStrategyFile);
        }
        r.exact(&mut magic, "reading the magic")?;
        if &magic != MAGIC {
            return Err(StrategyFileError::NotAStrategyFile);
        }
        let mut word = [0u8; 4];
        r.exact(&mut word, "reading the version")?;
        let version = u32::from_le_bytes(word);
        if version != VERSION {
            return Err(StrategyFileError::Version(version));
        }
        r.exact(&mut word, "reading the header's length")?;
        let len = u32::from_le_bytes(word);
        if len > MAX_HEADER_BYTES || 16 + u64::from(len) + 8 > found {
            return Err(StrategyFileError::Corrupt(format!(
                "a header of {len} bytes (at most {MAX_HEADER_BYTES}, and within the file's \
                 {found})"
            )));
        }
        let mut json = vec![0u8; len as usize];
        r.exact(&mut json, "reading the header")?;
        let header: Header = serde_json::from_slice(&json)
            .map_err(|e| StrategyFileError::Corrupt(format!("the header: {e}")))?;
        if header.format != FORMAT || header.precision != "f32" {
            return Err(StrategyFileError::Corrupt(format!(
                "the header's format is {:?} in {:?}, expected {FORMAT:?} in \"f32\"",
                header.format, header.precision
            )));
        }
        if let Some(d) = difference(&header.spot, &spot_key(spot, game)) {
            return Err(StrategyFileError::OtherSpot(d));
        }
        let expected = (16 + u64::from(len))
            .saturating_add(header.record_bytes)
            .saturating_add(8);
        if expected != found {
            return Err(StrategyFileError::Length { expected, found });
        }
        let paths = decision_paths(game);
        if header.records != paths.len() as u64 {
            return Err(StrategyFileError::Corrupt(format!(
                "{} node records where this spot has {} decision nodes",
                header.records,
                paths.len()
            )));
        }
        let shapes = paths.iter().map(|(g, _)| (*g, shape(game, *g))).collect();
        let index = paths.into_iter().map(|(g, p)| (p, g)).collect();
        Ok(Reader {
            file: r,
            header,
            index,
            shapes,
        })
    }

    /// Streams the records: `sink(game node, probabilities)` for each decision node
    /// (hand-major, `k` per hand, as [`Solver::average_at`] gives them), then checks the
    /// checksum. A sink's work is to be thrown away when this fails.
    pub fn read(
        mut self,
        mut sink: impl FnMut(usize, &[f64]),
    ) -> Result<Header, StrategyFileError> {
        let corrupt = |s: String| StrategyFileError::Corrupt(s);
        let mut seen: HashMap<usize, ()> = HashMap::with_capacity(self.index.len());
        let mut bytes: Vec<u8> = Vec::new();
        let mut probs: Vec<f64> = Vec::new();
        for i in 0..self.header.records {
            let mut two = [0u8; 2];
            self.file.exact(&mut two, "reading a node record")?;
            let len = u16::from_le_bytes(two);
            if len > MAX_PATH_BYTES {
                return Err(corrupt(format!(
                    "record {i}: a path of {len} bytes (at most {MAX_PATH_BYTES})"
                )));
            }
            let mut p = vec![0u8; len as usize];
            self.file.exact(&mut p, "reading a node path")?;
            let p = String::from_utf8(p)
                .map_err(|_| corrupt(format!("record {i}: the node path is not UTF-8")))?;
            let Some(&g) = self.index.get(&p) else {
                return Err(corrupt(format!(
                    "record {i}: `{}` is no decision node of this spot",
                    p.chars().take(200).collect::<String>()
                )));
            };
            if seen.insert(g, ()).is_some() {
                return Err(corrupt(format!("node {p} comes twice")));
            }
            let mut six = [0u8; 6];
            self.file.exact(&mut six, "reading a node record")?;
            let (a, k, n) = self.shapes[&g];
            let (fa, fk) = (six[0] as usize, six[1] as usize);
            let fn_ = u32::from_le_bytes(six[2..6].try_into().expect("4 bytes")) as usize;
            if (fa, fk, fn_) != (a, k, n) {
                return Err(corrupt(format!(
                    "node {p}: player {fa}, {fk} actions, {fn_} hands where this spot has \
                     player {a}, {k} actions, {n} hands"
                )));
            }
            bytes.resize(4 * k * n, 0);
            self.file
                .exact(&mut bytes, "reading a node's probabilities")?;
            probs.clear();
            probs.extend(
                bytes
                    .chunks_exact(4)
                    .map(|c| f64::from(f32::from_le_bytes(c.try_into().expect("4 bytes")))),
            );
            for (h, row) in probs.chunks_exact(k).enumerate() {
                let ok = row.iter().all(|x| (0.0..=1.0).contains(x))
                    && (row.iter().sum::<f64>() - 1.0).abs() <= SUM_TOLERANCE;
                if !ok {
                    return Err(corrupt(format!(
                        "node {p}, hand {}: probabilities {row:?} are not a distribution",
                        self.header.spot.hands[a].get(h).map_or("?", |s| s.as_str())
                    )));
                }
            }
            sink(g, &probs);
        }
        let expected = self.file.hasher.finish();
        let mut eight = [0u8; 8];
        self.file
            .inner
            .read_exact(&mut eight)
            .map_err(StrategyFileError::io("reading the checksum"))?;
        if u64::from_le_bytes(eight) != expected {
            return Err(StrategyFileError::Checksum);
        }
        Ok(self.header)
    }
}

/// Reads the strategy file at `path` for `spot` into an evaluator of its game (the engine's
/// [`Solver::evaluator`]), on `threads` threads; the evaluator and the file's header.
pub fn load(
    path: &Path,
    spot: &Spot,
    game: Game,
    threads: usize,
) -> Result<(Solver, Header), StrategyFileError> {
    let reader = Reader::open(path, spot, &game)?;
    let mut solver = Solver::evaluator(game, threads);
    let header = reader.read(|g, probs| solver.set_average_at(g, probs))?;
    Ok((solver, header))
}

/// One node of a strategy, per hand: of a strategy file, what `bluff export-strategy` prints
/// (`T = f64`), or of an exact strategy of a spot built as a game (`T = Rational`,
/// [`super::river_lp::exact_node`]).
#[derive(Clone, Debug, PartialEq)]
pub struct NodeStrategy<T = f64> {
    /// The node's path, as the file keys it.
    pub path: String,
    /// The player acting (0 OOP, 1 IP).
    pub player: usize,
    /// The actions' names (`check`, `bet94`, ...).
    pub actions: Vec<String>,
    /// Each hand's name, weight in the range, reach (the weight times the player's own
    /// probabilities of the actions on the path, 0 for a hand holding a dealt card), and
    /// probabilities of the actions.
    pub hands: Vec<HandStrategy<T>>,
}

/// One hand at one node.
#[derive(Clone, Debug, PartialEq)]
pub struct HandStrategy<T = f64> {
    /// `AhKh`.
    pub hand: String,
    /// The hand's weight in the range.
    pub weight: f64,
    /// The weight times the player's own probabilities of reaching the node.
    pub reach: T,
    /// The probabilities of the node's actions.
    pub strategy: Vec<T>,
}

/// Reads one node (named by `node_path`, as [`super::tree::Tree::find`] reads paths) of the
/// strategy file at `path` for `spot`, with each hand's reach. A deal the solver did not walk
/// (one of a class of deals equivalent under a suit swap, [`super::iso`]) is read from the
/// deal walked for it, its hands mapped back by the swap.
pub fn node_strategy(
    path: &Path,
    spot: &Spot,
    game: &Game,
    node_path: &str,
) -> Result<NodeStrategy, NodePathOrFile> {
    node_strategy_by(game, node_path, |t, walked| {
        let reader = Reader::open(path, spot, game).map_err(NodePathOrFile::File)?;
        let plan = plan_node(game, node_path, t, walked, |p| reader.node_at(p))?;
        let mut rows: HashMap<usize, Vec<f64>> = HashMap::new();
        reader
            .read(|g, probs| {
                if g == plan.target || plan.wanted.contains_key(&g) {
                    rows.insert(g, probs.to_vec());
                }
            })
            .map_err(NodePathOrFile::File)?;
        Ok(finish_node(game, t, walked, &plan, &rows))
    })
}

/// The path of every decision node of `game` as a map to its game node (the inverse of
/// [`decision_paths`]), for [`solver_node_strategy`].
pub fn path_index(game: &Game) -> HashMap<String, usize> {
    decision_paths(game)
        .into_iter()
        .map(|(g, p)| (p, g))
        .collect()
}

/// One node (named by `node_path`) of the average strategy of `solver` in memory, as
/// [`node_strategy`] reads it from the file [`write`] makes of the same solver (there in
/// `f32`, here in `f64`); `index` is [`path_index`] of the solver's game.
pub fn solver_node_strategy(
    solver: &Solver,
    index: &HashMap<String, usize>,
    node_path: &str,
) -> Result<NodeStrategy, super::HoldemError> {
    let game = &solver.game;
    let found = node_strategy_by(game, node_path, |t, walked| {
        let plan = plan_node(game, node_path, t, walked, |p| index.get(p).copied())?;
        let rows: HashMap<usize, Vec<f64>> = std::iter::once(plan.target)
            .chain(plan.wanted.keys().copied())
            .map(|g| (g, solver.average_at(g)))
            .collect();
        Ok(finish_node(game, t, walked, &plan, &rows))
    });
    found.map_err(|e| match e {
        NodePathOrFile::Path(e) => e,
        NodePathOrFile::File(e) => super::HoldemError::Path {
            path: node_path.chars().take(200).collect(),
            reason: e.to_string(),
        },
    })
}

/// A node's strategy by `node_path`: `walked(public node, the deals the solver walked)` reads
/// it at the walked deals, and the hands are mapped back by the suit swap (see
/// [`node_strategy`]).
fn node_strategy_by(
    game: &Game,
    node_path: &str,
    walked_node: impl FnOnce(usize, &[Card]) -> Result<NodeStrategy, NodePathOrFile>,
) -> Result<NodeStrategy, NodePathOrFile> {
    let (t, dealt) = game.tree.find(node_path).map_err(NodePathOrFile::Path)?;
    let (walked, swap) = walked_deals(game, &dealt).ok_or_else(|| {
        NodePathOrFile::Path(super::HoldemError::Path {
            path: node_path.chars().take(200).collect(),
            reason: "deals a card twice or a card of the board".into(),
        })
    })?;
    let mut node = walked_node(t, &walked)?;
    if swap != [0, 1, 2, 3] {
        let player = node.player;
        let index: HashMap<(Card, Card), usize> = game.hands[player]
            .iter()
            .enumerate()
            .flat_map(|(i, &(a, b))| [((a, b), i), ((b, a), i)])
            .collect();
        let mut mapped = node.hands.clone();
        for (i, h) in node.hands.drain(..).enumerate() {
            let (a, b) = game.hands[player][i];
            let image = (map_card(&swap, a), map_card(&swap, b));
            let j = index[&image];
            mapped[j] = HandStrategy {
                hand: hand_name(game.hands[player][j]),
                weight: game.weights[player][j],
                ..h
            };
        }
        node.hands = mapped;
        node.path = game.tree.path(t, &dealt);
    }
    Ok(node)
}

/// The public-tree nodes from the root down to `t`, the root first.
pub(crate) fn root_chain(tree: &super::tree::Tree, t: usize) -> Vec<usize> {
    let mut chain = vec![t];
    while *chain.last().expect("one") != 0 {
        let up = tree.nodes[*chain.last().expect("one")].parent as usize;
        chain.push(up);
    }
    chain.reverse();
    chain
}

/// The cards the solver walked for the deals `dealt` (each the lowest card of its class under
/// the suit swaps that fix the board so far, [`super::iso::Symmetries::classes`]) and the
/// swap that maps the walked deals onto `dealt` (the identity when they are the same); `None`
/// when a card is dealt twice or is on the board.
pub(crate) fn walked_deals(game: &Game, dealt: &[Card]) -> Option<(Vec<Card>, SuitPerm)> {
    let mut swap: SuitPerm = [0, 1, 2, 3];
    let mut board = game.board;
    let mut walked = Vec::with_capacity(dealt.len());
    for &card in dealt {
        // The card in the walked frame: the inverse of `swap` applied.
        let mut inverse: SuitPerm = [0; 4];
        for (s, &t) in swap.iter().enumerate() {
            inverse[t as usize] = s as u8;
        }
        let c = map_card(&inverse, card);
        let left = cards_of(game.deck & !board);
        let (reps, classes) = game.symmetries.classes(board, &left);
        let (class, k) = classes[left.iter().position(|&x| x == c)?];
        if k > 0 {
            // Walked frame -> previous walked frame -> the dealt cards' frame.
            let p = game.symmetries.perms[k as usize - 1];
            swap = [0, 1, 2, 3].map(|s| swap[p[s] as usize]);
        }
        let rep = reps[class as usize];
        walked.push(rep);
        board |= rep.bit();
    }
    Some((walked, swap))
}

/// What reading one node needs: its canonical path, player, game node, and the player's own
/// decision nodes above it with the child taken at each (for the reach).
struct NodePlan {
    canonical: String,
    player: usize,
    target: usize,
    wanted: HashMap<usize, usize>,
}

/// The plan of the node at public-tree node `t` with the deals the solver walked, its game
/// nodes found by `node_at(path)`.
fn plan_node(
    game: &Game,
    node_path: &str,
    t: usize,
    dealt: &[Card],
    node_at: impl Fn(&str) -> Option<usize>,
) -> Result<NodePlan, NodePathOrFile> {
    let tree = &game.tree;
    let canonical = tree.path(t, dealt);
    let NodeKind::Decision(player) = tree.nodes[t].kind else {
        return Err(NodePathOrFile::Path(super::HoldemError::Path {
            path: node_path.chars().take(200).collect(),
            reason: "not a decision node (a chance node or the end of the hand)".into(),
        }));
    };
    let player = player as usize;
    // The player's own decision nodes on the way (with the cards dealt by then) and the
    // child taken at each.
    let chain = root_chain(tree, t);
    let deals_needed = chain
        .iter()
        .filter(|&&n| tree.nodes[n].kind == NodeKind::Chance)
        .count();
    if dealt.len() != deals_needed {
        return Err(NodePathOrFile::Path(super::HoldemError::Path {
            path: node_path.chars().take(200).collect(),
            reason: format!(
                "name the card dealt after each street (e.g. `{}`)",
                example_path(tree, &chain, game)
            ),
        }));
    }
    let mut wanted: HashMap<String, usize> = HashMap::new();
    let mut deals = 0;
    for w in chain.windows(2) {
        let (n, child) = (w[0], w[1]);
        match tree.nodes[n].kind {
            NodeKind::Decision(a) if a as usize == player => {
                let at = tree.path(n, &dealt[..deals]);
                wanted.insert(at, child - tree.nodes[n].first_child as usize);
            }
            NodeKind::Chance => deals += 1,
            _ => {}
        }
    }
    let target = node_at(&canonical).ok_or_else(|| {
        NodePathOrFile::Path(super::HoldemError::Path {
            path: node_path.chars().take(200).collect(),
            reason: "names no decision node of the spot's game".into(),
        })
    })?;
    let wanted = wanted
        .iter()
        .filter_map(|(p, &c)| node_at(p).map(|g| (g, c)))
        .collect();
    Ok(NodePlan {
        canonical,
        player,
        target,
        wanted,
    })
}

/// The node of `plan` from the probability rows of its game nodes (`rows`, by game node, as
/// [`Solver::average_at`] gives them).
fn finish_node(
    game: &Game,
    t: usize,
    dealt: &[Card],
    plan: &NodePlan,
    rows: &HashMap<usize, Vec<f64>>,
) -> NodeStrategy {
    let tree = &game.tree;
    let player = plan.player;
    let n = game.hands[player].len();
    let mut reach: Vec<f64> = game.weights[player].clone();
    // In game-node order, the order a file's records come in.
    let mut wanted: Vec<(usize, usize)> = plan.wanted.iter().map(|(&g, &c)| (g, c)).collect();
    wanted.sort_unstable();
    for (g, c) in wanted {
        let kk = game.nodes[g].num_children as usize;
        if let Some(probs) = rows.get(&g) {
            for h in 0..n {
                reach[h] *= probs[h * kk + c];
            }
        }
    }
    let k = game.nodes[plan.target].num_children as usize;
    let empty = Vec::new();
    let strategy = rows.get(&plan.target).unwrap_or(&empty);
    let dead = dealt.iter().fold(0u64, |s, c| s | c.bit());
    let hands = (0..n)
        .map(|h| {
            let hand = game.hands[player][h];
            let blocked = (hand.0.bit() | hand.1.bit()) & dead != 0;
            HandStrategy {
                hand: hand_name(hand),
                weight: game.weights[player][h],
                reach: if blocked { 0.0 } else { reach[h] },
                strategy: strategy.get(h * k..h * k + k).unwrap_or(&[]).to_vec(),
            }
        })
        .collect();
    let actions = tree.nodes[t]
        .children()
        .map(|c| {
            tree.nodes[c]
                .action
                .map_or(String::new(), |a| a.to_string())
        })
        .collect();
    NodeStrategy {
        path: plan.canonical.clone(),
        player,
        actions,
        hands,
    }
}

/// The path of `chain`'s last node with the first cards of the deck dealt (for messages).
fn example_path(tree: &super::tree::Tree, chain: &[usize], game: &Game) -> String {
    let deals = chain
        .iter()
        .filter(|&&n| tree.nodes[n].kind == NodeKind::Chance)
        .count();
    let cards: Vec<Card> = cards_of(game.deck & !game.board)
        .into_iter()
        .take(deals)
        .collect();
    tree.path(*chain.last().expect("one"), &cards)
}

/// Why [`node_strategy`] failed: the node path or the file.
#[derive(Debug, thiserror::Error)]
pub enum NodePathOrFile {
    /// The node path names no decision node.
    #[error(transparent)]
    Path(super::HoldemError),
    /// The strategy file was refused.
    #[error(transparent)]
    File(StrategyFileError),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_does_not_depend_on_how_the_bytes_are_split() {
        let bytes: Vec<u8> = (0..100u8).collect();
        let mut a = Hasher::new();
        a.update(&bytes);
        let mut b = Hasher::new();
        for c in bytes.chunks(3) {
            b.update(c);
        }
        assert_eq!(a.finish(), b.finish());
        let mut c = Hasher::new();
        c.update(&bytes[..99]);
        assert_ne!(a.finish(), c.finish());
    }
}
