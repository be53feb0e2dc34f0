//! Loading a `.efg` stream straight into the flat [`Game`] arena.
//!
//! [`super::efg_to_game`] goes through the general tree [`super::EfgGame`] and the
//! [`GameBuilder`](crate::game::GameBuilder); that costs hundreds of bytes per node. This loader
//! reads tokens from a buffered stream and writes each node into the arena as it is read: a
//! node's children get contiguous slots when the node is read, and the file's pre-order fills
//! them. Labels, probabilities and payoffs are interned as they come (a file has few distinct
//! ones), so per node it keeps only the arena entry and two 4-byte ids. A final pass renumbers
//! the arena breadth-first, so the game is the one [`super::efg_to_game`] builds, node for node.
//!
//! It takes the same files and reports the same problems: syntax errors name line and column,
//! games outside what the solvers take (not two players, imperfect recall,
//! chance summing to 0) are refused with the node path, and the same warnings are collected.

use super::lexer::{Lexer, Number, Tok};
use super::reader::chance_sum_warning;
use super::writer::is_gambit_label;
use super::{normalize_labels, unique_set_labels, ParseError, Pos, Warning};
use crate::format::text::{quoted, quoted_list};
use crate::fxhash::FxMap;
use crate::game::{
    check_perfect_recall, shared_labels, Game, Infoset, Interned, Labels, Node, NodeKind, Terminal,
};
use crate::scalar::{format_rational, Rational, Scalar};
use num_traits::{One, Zero};
use std::borrow::Borrow;
use std::collections::HashSet;
use std::hash::Hash;
use std::io::BufRead;

/// Why a `.efg` stream could not be loaded.
#[derive(Debug)]
pub enum LoadError {
    /// The text is malformed (line and column inside).
    Parse(ParseError),
    /// The text is a valid `.efg` file, but the game is outside what bluff's solvers take.
    Outside(String),
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::Parse(e) => write!(f, "{e}"),
            LoadError::Outside(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for LoadError {}

impl From<ParseError> for LoadError {
    fn from(e: ParseError) -> Self {
        LoadError::Parse(e)
    }
}

const NONE: u32 = u32::MAX;

/// File ids (any `i64`) to dense indices: a vector for the usual small positive ids, a hash map
/// for the rest, so a huge id in a small file allocates nothing large.
#[derive(Default)]
struct IdMap {
    dense: Vec<u32>,
    sparse: FxMap<i64, u32>,
    count: usize,
}

impl IdMap {
    fn get(&self, id: i64) -> Option<u32> {
        match usize::try_from(id).ok().and_then(|i| self.dense.get(i)) {
            Some(&v) if v != NONE => Some(v),
            // An id may sit in the map from before the vector grew past it.
            _ => self.sparse.get(&id).copied(),
        }
    }

    fn insert(&mut self, id: i64, v: u32) {
        self.count += 1;
        if let Ok(i) = usize::try_from(id) {
            // The vector grows only while ids stay within a small factor of the entries (plus
            // 4 MB, as files number sets out of order).
            if i < self.dense.len() || i <= 16 * self.count + (1 << 20) {
                if i >= self.dense.len() {
                    let len = (i + 1).max(2 * self.dense.len());
                    self.dense.resize(len, NONE);
                }
                self.dense[i] = v;
                return;
            }
        }
        self.sparse.insert(id, v);
    }
}

/// Distinct values, each with a dense id.
struct Table<T> {
    values: Vec<T>,
    ids: FxMap<T, u32>,
}

impl<T> Default for Table<T> {
    fn default() -> Self {
        Table {
            values: Vec::new(),
            ids: FxMap::default(),
        }
    }
}

impl<T: Clone + Eq + Hash> Table<T> {
    fn id<Q>(&mut self, v: &Q) -> u32
    where
        T: Borrow<Q>,
        Q: Hash + Eq + ToOwned<Owned = T> + ?Sized,
    {
        if let Some(&id) = self.ids.get(v) {
            return id;
        }
        let id = self.values.len() as u32;
        self.values.push(v.to_owned());
        self.ids.insert(v.to_owned(), id);
        id
    }
}

struct ChanceSet {
    label: String,
    /// The set's outcomes are `chance_outcomes[first_outcome..][..len]`.
    first_outcome: u32,
    len: u32,
}

/// One outcome of a chance set: the file's label, the game's (normalised) label and
/// probability, as ids.
#[derive(Clone, Copy)]
struct ChanceOutcome {
    raw: u32,
    label: u32,
    prob: u32,
    raw_prob: u32,
}

struct PlayerSet {
    id: i64,
    label: String,
    actions: Labels,
    /// The normalised labels the game uses.
    game_actions: Labels,
}

#[derive(Clone, Copy)]
struct Outcome {
    label: u32,
    payoffs: u32,
}

/// A chance set's label and each outcome's (raw label id, raw probability id).
type ChanceContent = (String, Vec<(u32, u32)>);

/// A node whose children are still being read.
struct Open {
    next: u32,
    end: u32,
    /// Payoffs of the outcomes on the path so far (an id into `pays`), or NONE.
    acc: u32,
    pos: Pos,
    chance: bool,
}

struct Loader<R: BufRead> {
    lx: Lexer<R>,
    warnings: Vec<Warning>,
    nodes: Vec<Node>,
    /// Per node, the chance outcome leading to it (0: none, probability 1, label "").
    chance_outcome: Vec<u32>,
    chance_outcomes: Vec<ChanceOutcome>,
    raw_chance_labels: Table<String>,
    raw_probs: Table<Number>,
    probs: Table<Rational>,
    chance_labels: Table<String>,
    chance_sets: Vec<ChanceSet>,
    chance_ids: IdMap,
    player_sets: [Vec<PlayerSet>; 2],
    player_ids: [IdMap; 2],
    action_lists: FxMap<Labels, ()>,
    /// Chance sets by content (label, then each outcome's raw label and probability ids), so
    /// that the many sets with equal outcomes share one run of [`ChanceOutcome`]s.
    chance_contents: FxMap<ChanceContent, (u32, bool)>,
    outcomes: Vec<Outcome>,
    outcome_ids: IdMap,
    labels: Table<String>,
    pays: Table<[Number; 2]>,
    /// Distinct (payoffs, label) pairs of terminal nodes, in file order.
    terminals: Table<(u32, u32)>,
    /// The first terminal's payoff sum.
    first_sum: Option<Rational>,
    /// Whether some terminal's payoffs sum to another value than the first's.
    general_sum: bool,
    zero_chance: Option<i64>,
    bad_labels: Vec<(Pos, String)>,
    bad_seen: HashSet<String>,
    name: String,
    scratch_label: String,
    scratch: Vec<String>,
    scratch_numbers: Vec<Number>,
    nodes_read: u64,
}

/// Reads a `.efg` stream into a [`Game`], returning the warnings met; `progress` hears the
/// number of bytes read now and then. The game equals what [`super::efg_to_game`] builds from
/// [`super::read_efg`]'s tree.
pub fn load_efg<R: BufRead>(
    src: R,
    mut progress: impl FnMut(u64),
) -> Result<(Game, Vec<Warning>), LoadError> {
    let mut lx = Lexer::new(src)?;
    let (title, mut players) = super::read_header(
        &mut lx,
        "EFG",
        "2",
        "version 2 after \"EFG\" (only EFG version 2 exists)",
    )?;
    lx.optional_text()?;
    if players.len() != 2 {
        return Err(LoadError::Outside(format!(
            "the game has {} player(s); bluff takes two-player games only",
            players.len()
        )));
    }
    let mut bad_labels = Vec::new();
    let mut bad_seen = HashSet::new();
    for p in &players {
        if !is_gambit_label(p) {
            let item = format!("player name {}", quoted(p));
            bad_seen.insert(item.clone());
            bad_labels.push((Pos { line: 1, column: 1 }, item));
        }
    }
    let mut ld = Loader {
        lx,
        warnings: Vec::new(),
        nodes: Vec::new(),
        chance_outcome: Vec::new(),
        chance_outcomes: Vec::new(),
        raw_chance_labels: Table::default(),
        raw_probs: Table::default(),
        probs: Table::default(),
        chance_labels: Table::default(),
        chance_sets: Vec::new(),
        chance_ids: IdMap::default(),
        player_sets: [Vec::new(), Vec::new()],
        player_ids: [IdMap::default(), IdMap::default()],
        action_lists: FxMap::default(),
        chance_contents: FxMap::default(),
        outcomes: Vec::new(),
        outcome_ids: IdMap::default(),
        labels: Table::default(),
        pays: Table::default(),
        terminals: Table::default(),
        first_sum: None,
        general_sum: false,
        zero_chance: None,
        bad_labels,
        bad_seen,
        name: String::new(),
        scratch_label: String::new(),
        scratch: Vec::new(),
        scratch_numbers: Vec::new(),
        nodes_read: 0,
    };
    // Id 0 of the chance columns: probability 1 and label "" (nodes under no chance node).
    ld.probs.id(&Rational::one());
    ld.chance_labels.id("");
    ld.raw_chance_labels.id("");
    let one = Number::from_rational(Rational::one());
    ld.raw_probs.id(&one);
    ld.chance_outcomes.push(ChanceOutcome {
        raw: 0,
        label: 0,
        prob: 0,
        raw_prob: 0,
    });
    ld.tree(&mut progress)?;
    progress(ld.lx.offset);
    if ld.lx.tok != Tok::Eof {
        ld.warnings.push(Warning {
            pos: ld.lx.pos,
            message: format!(
                "{} after the last node of the tree: ignored (as Gambit does)",
                ld.lx.describe()
            ),
        });
        ld.lx.check_rest_utf8()?;
    }
    if let Some((pos, first)) = ld.bad_labels.first().cloned() {
        ld.warnings.push(super::reader::label_warning(
            pos,
            &first,
            ld.bad_labels.len(),
        ));
    }
    if let Some(id) = ld.zero_chance {
        return Err(LoadError::Outside(format!(
            "chance information set {id} has probabilities summing to 0, so no outcome can happen"
        )));
    }
    normalize_labels(&mut players);
    let warnings = std::mem::take(&mut ld.warnings);
    let game = ld.finish(title, players)?;
    Ok((game, warnings))
}

impl<R: BufRead> Loader<R> {
    /// The sum of two payoff vectors (ids; NONE is no payoff).
    fn add_pays(&mut self, a: u32, b: u32) -> u32 {
        if a == NONE {
            return b;
        }
        if b == NONE {
            return a;
        }
        let [a0, a1] = &self.pays.values[a as usize];
        let [b0, b1] = &self.pays.values[b as usize];
        let s0 = Number::from_rational(a0.to_rational() + b0.to_rational());
        let s1 = Number::from_rational(a1.to_rational() + b1.to_rational());
        self.pays.id(&[s0, s1])
    }

    fn check_label(&mut self, pos: Pos, what: &str, label: &str) {
        if is_gambit_label(label) {
            return;
        }
        let item = format!("{what} {}", quoted(label));
        if self.bad_seen.insert(item.clone()) {
            self.bad_labels.push((pos, item));
        }
    }

    /// Reads the nodes in pre-order without recursion, each into the slot its parent reserved.
    fn tree(&mut self, progress: &mut impl FnMut(u64)) -> Result<(), LoadError> {
        let mut open: Vec<Open> = Vec::new();
        self.nodes.push(Node {
            kind: NodeKind::Chance,
            first_child: 0,
            num_children: 0,
            parent: NONE,
            action: 0,
        });
        self.chance_outcome.push(0);
        self.node(0, NONE, &mut open)?;
        while let Some(top) = open.last_mut() {
            if top.next == top.end {
                open.pop();
                continue;
            }
            let slot = top.next;
            top.next += 1;
            let acc = top.acc;
            if self.lx.tok == Tok::Eof {
                let top = open.last().expect("just used");
                return Err(self
                    .lx
                    .error(format!(
                        "end of file while {} more child node(s) of the {} node at {} are expected",
                        top.end - slot,
                        if top.chance { "chance" } else { "personal" },
                        top.pos
                    ))
                    .into());
            }
            self.node(slot, acc, &mut open)?;
            if self.nodes_read.is_multiple_of(8192) {
                progress(self.lx.offset);
            }
        }
        Ok(())
    }

    /// Reads one node into `slot`; a node with children reserves their slots and opens.
    fn node(&mut self, slot: u32, acc: u32, open: &mut Vec<Open>) -> Result<(), LoadError> {
        let pos = self.lx.pos;
        let letter = match self.lx.tok {
            Tok::Symbol if matches!(self.lx.text().as_bytes(), [b'c' | b'p' | b't']) => {
                self.lx.text().as_bytes()[0]
            }
            _ => {
                return Err(self
                    .lx
                    .expected("a node: \"c\" (chance), \"p\" (personal) or \"t\" (terminal)")
                    .into())
            }
        };
        self.lx.advance()?;
        self.nodes_read += 1;
        if self.lx.tok != Tok::Text {
            return Err(self
                .lx
                .expected("the node's name (a quoted label, may be \"\")")
                .into());
        }
        let mut name = std::mem::take(&mut self.name);
        name.clear();
        name.push_str(self.lx.text());
        self.lx.advance()?;
        self.check_label(pos, "node name", &name);
        let (kind, chance_set) = match letter {
            b'c' => (NodeKind::Chance, Some(self.chance_infoset(pos)?)),
            b'p' => {
                let (player, set) = self.player_infoset(pos)?;
                (
                    NodeKind::Decision {
                        player: player as u8,
                        infoset: set,
                    },
                    None,
                )
            }
            _ => (NodeKind::Terminal { terminal: 0 }, None),
        };
        let outcome = self.outcome(pos)?;
        let own = outcome.map_or(NONE, |o| self.outcomes[o as usize].payoffs);
        let num_children = match kind {
            NodeKind::Chance => self.chance_sets[chance_set.expect("chance") as usize].len as usize,
            NodeKind::Decision { player, infoset } => self.player_sets[player as usize]
                [infoset as usize]
                .actions
                .len(),
            NodeKind::Terminal { .. } => 0,
        };
        let kind = if let NodeKind::Terminal { .. } = kind {
            let total = self.add_pays(acc, own);
            let total = if total == NONE {
                let zero = Number::from_rational(Rational::zero());
                self.pays.id(&[zero.clone(), zero])
            } else {
                total
            };
            let label = match outcome {
                Some(o) => self.outcomes[o as usize].label,
                None => self.labels.id(&name),
            };
            let terminal = match self.terminals.ids.get(&(total, label)) {
                Some(&t) => t,
                None => {
                    self.new_terminal(total);
                    self.terminals.id(&(total, label))
                }
            };
            NodeKind::Terminal { terminal }
        } else {
            kind
        };
        self.name = name;
        let first = self.nodes.len();
        self.nodes[slot as usize].kind = kind;
        if num_children > 0 {
            let end = first + num_children;
            if end >= NONE as usize {
                return Err(self
                    .lx
                    .error(format!(
                        "the game has more than {} nodes, more than bluff's 32-bit node ids hold",
                        NONE - 1
                    ))
                    .into());
            }
            let n = &mut self.nodes[slot as usize];
            n.first_child = first as u32;
            n.num_children = num_children as u32;
            for k in 0..num_children {
                self.nodes.push(Node {
                    kind: NodeKind::Chance,
                    first_child: 0,
                    num_children: 0,
                    parent: slot,
                    action: k as u32,
                });
            }
            match chance_set {
                Some(c) => {
                    let o = self.chance_sets[c as usize].first_outcome;
                    self.chance_outcome.extend(o..o + num_children as u32);
                }
                None => self.chance_outcome.resize(end, 0),
            }
            open.push(Open {
                next: first as u32,
                end: end as u32,
                acc: self.add_pays(acc, own),
                pos,
                chance: chance_set.is_some(),
            });
        }
        Ok(())
    }

    /// Records a new distinct terminal outcome, noting whether its payoffs' sum differs from the
    /// first terminal's (the game is then general-sum).
    fn new_terminal(&mut self, pays: u32) {
        let [p0, p1] = &self.pays.values[pays as usize];
        let sum = p0.to_rational() + p1.to_rational();
        match &self.first_sum {
            None => self.first_sum = Some(sum),
            Some(s) => self.general_sum |= *s != sum,
        }
    }

    /// Reads `{ "label" ... }` (with a number after each label when `numbers`) into the scratch
    /// buffers, reusing their strings: sets described again at every node cost no allocation.
    fn read_list(&mut self, numbers: bool) -> Result<usize, LoadError> {
        let (label_what, number_what) = if numbers {
            (
                "a quoted chance outcome label",
                "the chance outcome's probability",
            )
        } else {
            ("a quoted action label", "")
        };
        self.scratch_numbers.clear();
        let mut n = 0;
        loop {
            if self.lx.tok != Tok::Text {
                return Err(self.lx.expected(label_what).into());
            }
            if n < self.scratch.len() {
                self.scratch[n].clear();
                self.scratch[n].push_str(self.lx.text());
            } else {
                self.scratch.push(self.lx.text().to_string());
            }
            n += 1;
            self.lx.advance()?;
            if numbers {
                let p_pos = self.lx.pos;
                let p = self.lx.number_value(number_what)?;
                if p.is_negative() {
                    return Err(ParseError {
                        pos: p_pos,
                        message: format!(
                            "chance probability {} is negative",
                            format_rational(&p.to_rational())
                        ),
                    }
                    .into());
                }
                self.scratch_numbers.push(p);
            }
            if self.lx.tok == Tok::RBrace {
                self.lx.advance()?;
                return Ok(n);
            }
        }
    }

    fn chance_infoset(&mut self, node_pos: Pos) -> Result<u32, LoadError> {
        let id_pos = self.lx.pos;
        let id = self.lx.integer("the chance information set's id")?;
        let known = self.chance_ids.get(id);
        if self.lx.tok != Tok::Text {
            return known.ok_or_else(|| {
                ParseError {
                    pos: id_pos,
                    message: format!(
                        "chance information set {id} is used here before it is described (expected its label and {{ \"outcome\" probability ... }})"
                    ),
                }
                .into()
            });
        }
        self.scratch_label.clear();
        self.scratch_label.push_str(self.lx.text());
        self.lx.advance()?;
        let brace = self.lx.pos;
        self.lx
            .expect(Tok::LBrace, "'{' opening the chance outcomes")?;
        let n = self.read_list(true)?;
        if let Some(k) = known {
            let set = &self.chance_sets[k as usize];
            let outcomes = &self.chance_outcomes[set.first_outcome as usize..][..set.len as usize];
            let same = set.label == self.scratch_label
                && outcomes.len() == n
                && outcomes.iter().enumerate().all(|(i, o)| {
                    self.raw_chance_labels.values[o.raw as usize] == self.scratch[i]
                        && self.raw_probs.values[o.raw_prob as usize] == self.scratch_numbers[i]
                });
            if !same {
                let describe = |pairs: Vec<(&String, &Number)>| {
                    pairs
                        .iter()
                        .map(|(a, p)| {
                            format!("{} {}", quoted(a), format_rational(&p.to_rational()))
                        })
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                return Err(ParseError {
                    pos: id_pos,
                    message: format!(
                        "chance information set {id} is described again differently: {} {{ {} }} here, {} {{ {} }} before",
                        quoted(&self.scratch_label),
                        describe(self.scratch[..n].iter().zip(&self.scratch_numbers).collect()),
                        set.label,
                        describe(
                            outcomes
                                .iter()
                                .map(|o| (
                                    &self.raw_chance_labels.values[o.raw as usize],
                                    &self.raw_probs.values[o.raw_prob as usize]
                                ))
                                .collect()
                        )
                    ),
                }
                .into());
            }
            return Ok(k);
        }
        let key: Vec<(u32, u32)> = (0..n)
            .map(|i| {
                (
                    self.raw_chance_labels.id(self.scratch[i].as_str()),
                    self.raw_probs.id(&self.scratch_numbers[i]),
                )
            })
            .collect();
        let key = (self.scratch_label.clone(), key);
        let known_content = self.chance_contents.get(&key).copied();
        let label = key.0.clone();
        let actions = self.scratch[..n].to_vec();
        let probs = std::mem::take(&mut self.scratch_numbers);
        self.check_label(node_pos, "chance information set", &label);
        for a in &actions {
            self.check_label(node_pos, "chance outcome", a);
        }
        // Sets with the same content as an earlier one whose probabilities sum to 1 skip the
        // exact arithmetic.
        let sum: Rational = match known_content {
            Some((_, true)) => Rational::one(),
            _ => probs.iter().map(Number::to_rational).sum(),
        };
        if let Some(w) = chance_sum_warning(brace, id, &sum) {
            self.warnings.push(w);
        }
        if sum.is_zero() && self.zero_chance.is_none() {
            self.zero_chance = Some(id);
        }
        let k = u32::try_from(self.chance_sets.len()).expect("fewer sets than nodes");
        // A set whose labels and probabilities were seen before shares their outcomes.
        let first_outcome = match known_content {
            Some((first_outcome, _)) => first_outcome,
            None => self.push_chance_outcomes(key, &actions, &probs, &sum, n)?,
        };
        self.scratch_numbers = probs;
        self.chance_sets.push(ChanceSet {
            label,
            first_outcome,
            len: n as u32,
        });
        self.chance_ids.insert(id, k);
        Ok(k)
    }

    /// Stores a new chance set content's outcomes (labels as read and as the game shows
    /// them, probabilities as read and divided by their `sum`); returns the first one's id.
    fn push_chance_outcomes(
        &mut self,
        key: ChanceContent,
        actions: &[String],
        probs: &[Number],
        sum: &Rational,
        n: usize,
    ) -> Result<u32, LoadError> {
        self.chance_contents
            .insert(key, (self.chance_outcomes.len() as u32, sum.is_one()));
        let first_outcome = u32::try_from(self.chance_outcomes.len())
            .ok()
            .filter(|&f| (f as usize) < (NONE as usize).saturating_sub(n))
            .ok_or_else(|| {
                self.lx
                    .error("more chance outcomes than bluff's 32-bit ids hold")
            })?;
        let mut game_labels = actions.to_vec();
        normalize_labels(&mut game_labels);
        for ((raw, game), p) in actions.iter().zip(&game_labels).zip(probs) {
            let v = if sum.is_zero() {
                Rational::zero()
            } else {
                p.to_rational() / sum
            };
            let outcome = ChanceOutcome {
                raw: self.raw_chance_labels.id(raw),
                label: self.chance_labels.id(game),
                prob: self.probs.id(&v),
                raw_prob: self.raw_probs.id(p),
            };
            self.chance_outcomes.push(outcome);
        }
        Ok(first_outcome)
    }

    fn player_infoset(&mut self, node_pos: Pos) -> Result<(usize, u32), LoadError> {
        let player_pos = self.lx.pos;
        let number = self.lx.integer("the moving player's number")?;
        if !(1..=2).contains(&number) {
            return Err(ParseError {
                pos: player_pos,
                message: format!(
                    "player number {number} is not between 1 and 2 (the file names 2 players)"
                ),
            }
            .into());
        }
        let player = (number - 1) as usize;
        let id_pos = self.lx.pos;
        let id = self.lx.integer("the information set's id")?;
        let known = self.player_ids[player].get(id);
        if self.lx.tok != Tok::Text {
            return known.map(|k| (player, k)).ok_or_else(|| {
                ParseError {
                    pos: id_pos,
                    message: format!(
                        "information set {id} of player {number} is used here before it is described (expected its label and {{ \"action\" ... }})"
                    ),
                }
                .into()
            });
        }
        self.scratch_label.clear();
        self.scratch_label.push_str(self.lx.text());
        self.lx.advance()?;
        self.lx.expect(Tok::LBrace, "'{' opening the action list")?;
        let n = self.read_list(false)?;
        if let Some(k) = known {
            let set = &self.player_sets[player][k as usize];
            if set.label != self.scratch_label || *set.actions != self.scratch[..n] {
                return Err(ParseError {
                    pos: id_pos,
                    message: format!(
                        "information set {id} of player {number} is described again differently: {} {} here, {} {} before",
                        quoted(&self.scratch_label),
                        quoted_list(&self.scratch[..n]),
                        quoted(&set.label),
                        quoted_list(&set.actions)
                    ),
                }
                .into());
            }
            return Ok((player, k));
        }
        let label = self.scratch_label.clone();
        let actions = self.scratch[..n].to_vec();
        self.check_label(node_pos, "information set", &label);
        for a in &actions {
            self.check_label(node_pos, "action", a);
        }
        let raw = shared_labels(&mut self.action_lists, &actions);
        let mut game_actions = actions;
        normalize_labels(&mut game_actions);
        let game_actions = shared_labels(&mut self.action_lists, &game_actions);
        let k = u32::try_from(self.player_sets[player].len()).expect("fewer sets than nodes");
        self.player_sets[player].push(PlayerSet {
            id,
            label,
            actions: raw,
            game_actions,
        });
        self.player_ids[player].insert(id, k);
        Ok((player, k))
    }

    fn outcome(&mut self, node_pos: Pos) -> Result<Option<u32>, LoadError> {
        let id_pos = self.lx.pos;
        let id = self.lx.integer("the outcome id (0 for none)")?;
        let known = self.outcome_ids.get(id);
        if self.lx.tok != Tok::Text {
            if id == 0 {
                return Ok(None);
            }
            return known.map(Some).ok_or_else(|| {
                ParseError {
                    pos: id_pos,
                    message: format!(
                        "outcome {id} is used here before it is described (expected its label and {{ payoffs }})"
                    ),
                }
                .into()
            });
        }
        if id == 0 {
            return Err(self
                .lx
                .error("outcome 0 is the null outcome and cannot have a label or payoffs")
                .into());
        }
        let label = self.labels.id(self.lx.text());
        self.lx.advance()?;
        self.lx.expect(Tok::LBrace, "'{' opening the payoffs")?;
        let p0 = self
            .lx
            .number_value("player 1's payoff (2 numbers in all)")?;
        if self.lx.tok == Tok::Comma {
            self.lx.advance()?;
        }
        let p1 = self
            .lx
            .number_value("player 2's payoff (2 numbers in all)")?;
        if self.lx.tok == Tok::Comma {
            self.lx.advance()?;
        }
        if self.lx.tok != Tok::RBrace {
            return Err(self
                .lx
                .expected(&format!(
                    "'}}' after the 2 payoffs of outcome {id} (one per player)"
                ))
                .into());
        }
        self.lx.advance()?;
        let pays = self.pays.id(&[p0, p1]);
        if let Some(k) = known {
            let o = self.outcomes[k as usize];
            if o.label != label || o.payoffs != pays {
                let describe = |v: &[Number; 2]| {
                    v.iter()
                        .map(|x| format_rational(&x.to_rational()))
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                return Err(ParseError {
                    pos: id_pos,
                    message: format!(
                        "outcome {id} is described again differently: {} {{ {} }} here, {} {{ {} }} before",
                        quoted(&self.labels.values[label as usize]),
                        describe(&self.pays.values[pays as usize]),
                        quoted(&self.labels.values[o.label as usize]),
                        describe(&self.pays.values[o.payoffs as usize])
                    ),
                }
                .into());
            }
            return Ok(Some(k));
        }
        let label_text = self.labels.values[label as usize].clone();
        self.check_label(node_pos, "outcome", &label_text);
        let k = u32::try_from(self.outcomes.len()).expect("fewer outcomes than nodes");
        self.outcomes.push(Outcome {
            label,
            payoffs: pays,
        });
        self.outcome_ids.insert(id, k);
        Ok(Some(k))
    }

    /// Renumbers the arena breadth-first (as the builder does), numbers information sets and
    /// terminal outcomes by first appearance in that order, and checks perfect recall.
    fn finish(self, title: String, players: Vec<String>) -> Result<Game, LoadError> {
        let Loader {
            nodes: old,
            chance_outcome: old_outcome,
            chance_outcomes,
            probs,
            chance_labels,
            player_sets,
            pays,
            terminals: file_terminals,
            labels,
            outcomes,
            outcome_ids,
            general_sum,
            ..
        } = self;
        // Freed before the new arena is allocated, to keep the peak down.
        drop((outcomes, outcome_ids));
        let file_terminals = file_terminals.values;
        let n = old.len();
        let mut nodes = Vec::with_capacity(n);
        let mut prob_id = Vec::with_capacity(n);
        let mut label_id = Vec::with_capacity(n);
        // (old index, new parent) in breadth-first order.
        let mut order: Vec<(u32, u32)> = Vec::with_capacity(n);
        order.push((0, NONE));
        let mut set_new: [Vec<u32>; 2] = [
            vec![NONE; player_sets[0].len()],
            vec![NONE; player_sets[1].len()],
        ];
        let mut infosets: [Vec<Infoset>; 2] = [Vec::new(), Vec::new()];
        let mut num_actions = [0usize; 2];
        let mut terminal_new = vec![NONE; file_terminals.len()];
        let mut terminals = Vec::new();
        let mut payoff1 = Vec::new();
        let mut i = 0;
        while i < order.len() {
            let (o, parent) = order[i];
            let node = &old[o as usize];
            let first_child = if node.num_children > 0 {
                order.len() as u32
            } else {
                0
            };
            for c in node.children() {
                order.push((c as u32, i as u32));
            }
            let kind = match node.kind {
                NodeKind::Decision { player, infoset } => {
                    let p = player as usize;
                    let slot = &mut set_new[p][infoset as usize];
                    if *slot == NONE {
                        *slot = infosets[p].len() as u32;
                        let set = &player_sets[p][infoset as usize];
                        infosets[p].push(Infoset {
                            player: p,
                            label: String::new(),
                            actions: set.game_actions.clone(),
                            nodes: Vec::new(),
                            action_offset: num_actions[p],
                            parent_action: None,
                        });
                        num_actions[p] += set.game_actions.len();
                    }
                    infosets[p][*slot as usize].nodes.push(i as u32);
                    NodeKind::Decision {
                        player,
                        infoset: *slot,
                    }
                }
                NodeKind::Terminal { terminal } => {
                    let slot = &mut terminal_new[terminal as usize];
                    if *slot == NONE {
                        *slot = terminals.len() as u32;
                        let (pay, label) = file_terminals[terminal as usize];
                        let payoff0 = pays.values[pay as usize][0].to_rational();
                        if general_sum {
                            payoff1.push(pays.values[pay as usize][1].to_rational());
                        }
                        terminals.push(Terminal {
                            payoff0_f64: payoff0.to_f64(),
                            payoff0,
                            label: labels.values[label as usize].clone(),
                        });
                    }
                    NodeKind::Terminal { terminal: *slot }
                }
                NodeKind::Chance => NodeKind::Chance,
            };
            nodes.push(Node {
                kind,
                first_child,
                num_children: node.num_children,
                parent,
                action: node.action,
            });
            let c = chance_outcomes[old_outcome[o as usize] as usize];
            prob_id.push(c.prob);
            label_id.push(c.label);
            i += 1;
        }
        drop((old, old_outcome, order));
        // Unique information-set labels by Gambit's rule, as `efg_to_game` gives them.
        for p in 0..2 {
            let names = unique_set_labels(
                &player_sets[p]
                    .iter()
                    .map(|s| (s.label.as_str(), s.id))
                    .collect::<Vec<_>>(),
            );
            for (k, name) in names.into_iter().enumerate() {
                let id = set_new[p][k];
                if id != NONE {
                    infosets[p][id as usize].label = name;
                }
            }
            for set in &mut infosets[p] {
                set.nodes.shrink_to_fit();
            }
        }
        let mut action_infoset: [Vec<u32>; 2] = [vec![0; num_actions[0]], vec![0; num_actions[1]]];
        for (p, sets) in infosets.iter().enumerate() {
            for (id, set) in sets.iter().enumerate() {
                for a in set.action_range() {
                    action_infoset[p][a] = id as u32;
                }
            }
        }
        let constant_sum = match file_terminals.first() {
            Some(_) if general_sum => Rational::zero(),
            Some(&(pay, _)) => {
                let [a, b] = &pays.values[pay as usize];
                a.to_rational() + b.to_rational()
            }
            None => Rational::zero(),
        };
        let distinct_f64: Vec<f64> = probs.values.iter().map(|p| p.to_f64()).collect();
        let chance_prob_f64 = prob_id.iter().map(|&i| distinct_f64[i as usize]).collect();
        let chance_prob = Interned::from_parts(probs.values, prob_id);
        let [name0, name1]: [String; 2] = players.try_into().expect("two players");
        let mut game = Game {
            name: title,
            player_names: [name0, name1],
            nodes,
            chance_prob,
            chance_prob_f64,
            chance_label: Interned::from_parts(chance_labels.values, label_id),
            terminals,
            infosets,
            num_actions,
            constant_sum,
            payoff1: general_sum.then_some(payoff1),
            action_infoset,
            chance_uniform: Vec::new(),
        };
        game.mark_uniform_chance();
        check_perfect_recall(&mut game).map_err(|e| LoadError::Outside(e.to_string()))?;
        Ok(game)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_map_finds_ids_kept_apart_before_the_vector_grew() {
        let mut m = IdMap::default();
        m.insert(10_000_000, 7);
        m.insert(-3, 8);
        for id in 0..600_000 {
            m.insert(id, id as u32 + 10);
        }
        // The vector now covers 10 000 000, which was stored in the map.
        m.insert(10_000_001, 9);
        assert!(m.dense.len() > 10_000_001);
        assert_eq!(m.get(10_000_000), Some(7));
        assert_eq!(m.get(-3), Some(8));
        assert_eq!(m.get(599_999), Some(600_009));
        assert_eq!(m.get(10_000_001), Some(9));
        assert_eq!(m.get(10_000_002), None);
        assert_eq!(m.get(i64::MAX), None);
    }
}
