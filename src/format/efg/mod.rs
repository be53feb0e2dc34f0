//! Gambit `.efg` files (extensive form, version 2), read and written the way Gambit does.
//!
//! Reading goes through a general tree, [`EfgGame`]: any number of players, any payoffs,
//! information-set ids per player and for chance, outcomes on any node. [`efg_to_game`] then
//! turns a two-player tree (constant-sum or general-sum) into a [`Game`], and explains why
//! when it cannot. [`game_to_efg`] and [`write_efg`] go the other way, in a form Gambit reads back.
//!
//! Files are loaded for solving by [`load_efg`] ([`load_efg_file`]), which streams the text into
//! a [`Game`] without the general tree, in a fraction of the memory, and gives the same game and
//! messages as the two steps above.
//!
//! Why two parsers: the streaming loader exists for memory (a 1e7-node file peaks at 708 MB
//! through it, against 6.1 GB through the tree: `docs/benchmarks.md`, "Loading large `.efg`
//! files"), but it only builds games the solvers take; the tree reader keeps reading what they
//! do not (any number of players, general-sum payoffs), which Gambit's conformance test counts
//! node for node, and it is the writer's own type. They share the lexer, and
//! `tests/efg_roundtrip.rs` checks that they agree node for node (fixtures, every built-in
//! game, random trees, cut and changed files; also in the `efg` fuzz target).
//!
//! The lexer (`lexer.rs`, shared with `.nfg`), reader (`reader.rs`), streaming loader
//! (`load.rs`) and writer (`writer.rs`) live in their own files; this one holds the general tree
//! and the conversions.
//!
//! Grammar (see `docs/games.md`, "The `.efg` format"): `EFG 2 R|D "title" { "player" ... } ["comment"] node...`
//! with nodes in pre-order: `c "name" id ["infoset" { "action" prob ... }] outcome`,
//! `p "name" player id ["infoset" { "action" ... }] outcome`, `t "name" outcome`, and
//! `outcome = id ["label" { payoff [,] ... }]`.

mod lexer;
mod load;
mod reader;
mod writer;

pub(crate) use lexer::{Lexer, Tok};
pub use load::{load_efg, LoadError};
pub(crate) use reader::read_header;
pub use reader::{read_efg, read_efg_bytes, read_efg_from};
pub use writer::{gambit_label, is_gambit_label, write_efg};
pub(crate) use writer::{quote, quote_label};

use crate::error::{fail, Error, Result};
use crate::game::{Game, GameBuilder, NodeKind, NodeRef};
use crate::scalar::Rational;
use num_traits::Zero;
use std::collections::{HashMap, HashSet};
use std::fmt;
use thiserror::Error;

/// A 1-based line and column in the input (columns count characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Pos {
    /// Line number, from 1.
    pub line: usize,
    /// Column number, from 1.
    pub column: usize,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

/// A malformed `.efg` or `.nfg` input: where, and what was expected.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{pos}: {message}")]
pub struct ParseError {
    /// Where the offending token starts.
    pub pos: Pos,
    /// What is wrong and what was expected.
    pub message: String,
}

/// A problem that does not stop reading (the file is still loaded as Gambit would load it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// Where the cause starts.
    pub pos: Pos,
    /// What was found and what the reader did about it.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.pos, self.message)
    }
}

/// What happens at a node of an [`EfgGame`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EfgNodeKind {
    /// Chance moves with the probabilities of `chance_infosets[infoset]`.
    Chance {
        /// Index into [`EfgGame::chance_infosets`].
        infoset: usize,
    },
    /// Player `player` (0-based) moves at `infosets[player][infoset]`.
    Personal {
        /// 0-based player index.
        player: usize,
        /// Index into [`EfgGame::infosets`]`[player]`.
        infoset: usize,
    },
    /// A leaf.
    Terminal,
}

/// A node of an [`EfgGame`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EfgNode {
    /// The node's own label (often empty).
    pub name: String,
    /// Chance, personal or terminal.
    pub kind: EfgNodeKind,
    /// Index into [`EfgGame::outcomes`], `None` for the null outcome 0.
    pub outcome: Option<usize>,
    /// Children in action order (node indices).
    pub children: Vec<usize>,
}

/// A chance information set: its outcomes and their exact probabilities, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EfgChanceInfoset {
    /// The id used in the file (chance's own id space).
    pub id: i64,
    /// The set's label.
    pub label: String,
    /// Outcome labels, in child order.
    pub actions: Vec<String>,
    /// Probabilities as written (not normalised).
    pub probs: Vec<Rational>,
}

/// A player's information set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EfgInfoset {
    /// The id used in the file (per player).
    pub id: i64,
    /// The set's label.
    pub label: String,
    /// Action labels, in child order.
    pub actions: Vec<String>,
}

/// An outcome: one payoff per player, added to every path through a node that carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EfgOutcome {
    /// The id used in the file (never 0, the null outcome).
    pub id: i64,
    /// The outcome's label.
    pub label: String,
    /// One exact payoff per player.
    pub payoffs: Vec<Rational>,
}

/// A general extensive-form game as a `.efg` file describes it. Nodes are in file (pre-)order,
/// the root first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EfgGame {
    /// The title.
    pub title: String,
    /// The optional comment after the player list.
    pub comment: Option<String>,
    /// Player names, in player-number order.
    pub players: Vec<String>,
    /// All nodes in pre-order; the root is node 0.
    pub nodes: Vec<EfgNode>,
    /// Chance information sets in order of first appearance.
    pub chance_infosets: Vec<EfgChanceInfoset>,
    /// Each player's information sets in order of first appearance.
    pub infosets: Vec<Vec<EfgInfoset>>,
    /// Outcomes in order of first appearance.
    pub outcomes: Vec<EfgOutcome>,
}

/// A parsed `.efg` file: the game, where each node starts, and the warnings met.
#[derive(Clone, Debug)]
pub struct ParsedEfg {
    /// The game tree.
    pub game: EfgGame,
    /// For each node, where its type letter stands in the file.
    pub node_pos: Vec<Pos>,
    /// Problems Gambit accepts silently but a careful reader should hear about.
    pub warnings: Vec<Warning>,
}

// ---------------------------------------------------------------------------------------------
// Conversion to and from the solver's model.

/// The general tree of a compiled game: each chance node gets its own chance information set,
/// each terminal its own outcome (both players' payoffs, [`Game::payoff`]); node names empty.
pub fn game_to_efg(game: &Game) -> EfgGame {
    let mut efg = EfgGame {
        title: game.name.clone(),
        comment: None,
        players: game.player_names.to_vec(),
        nodes: Vec::with_capacity(game.nodes.len()),
        chance_infosets: Vec::new(),
        infosets: vec![Vec::new(), Vec::new()],
        outcomes: Vec::new(),
    };
    // Sets are listed in pre-order of first appearance (as a reader finds them), with file id
    // = the game's dense id + 1.
    let mut set_index: [Vec<Option<usize>>; 2] = [
        vec![None; game.infosets[0].len()],
        vec![None; game.infosets[1].len()],
    ];
    // Pre-order walk; `slot` says where to record each new node's index in its parent.
    let mut stack: Vec<(usize, Option<(usize, usize)>)> = vec![(0, None)];
    while let Some((n, slot)) = stack.pop() {
        let node = &game.nodes[n];
        let idx = efg.nodes.len();
        if let Some((parent, k)) = slot {
            efg.nodes[parent].children[k] = idx;
        }
        let (kind, outcome) = match node.kind {
            NodeKind::Chance => {
                let children = node.children();
                efg.chance_infosets.push(EfgChanceInfoset {
                    id: efg.chance_infosets.len() as i64 + 1,
                    label: String::new(),
                    actions: children
                        .clone()
                        .map(|c| game.chance_label[c].clone())
                        .collect(),
                    probs: children.map(|c| game.chance_prob[c].clone()).collect(),
                });
                (
                    EfgNodeKind::Chance {
                        infoset: efg.chance_infosets.len() - 1,
                    },
                    None,
                )
            }
            NodeKind::Decision { player, infoset } => {
                let (p, id) = (player as usize, infoset as usize);
                let index = *set_index[p][id].get_or_insert_with(|| {
                    let set = &game.infosets[p][id];
                    efg.infosets[p].push(EfgInfoset {
                        id: id as i64 + 1,
                        label: set.label.clone(),
                        actions: set.actions.to_vec(),
                    });
                    efg.infosets[p].len() - 1
                });
                (
                    EfgNodeKind::Personal {
                        player: p,
                        infoset: index,
                    },
                    None,
                )
            }
            NodeKind::Terminal { terminal } => {
                let t = terminal as usize;
                efg.outcomes.push(EfgOutcome {
                    id: efg.outcomes.len() as i64 + 1,
                    label: game.terminals[t].label.clone(),
                    payoffs: vec![game.payoff(t, 0), game.payoff(t, 1)],
                });
                (EfgNodeKind::Terminal, Some(efg.outcomes.len() - 1))
            }
        };
        efg.nodes.push(EfgNode {
            name: String::new(),
            kind,
            outcome,
            children: vec![usize::MAX; node.num_children as usize],
        });
        for (k, c) in node.children().enumerate().rev() {
            stack.push((c, Some((idx, k))));
        }
    }
    efg
}

/// Makes labels distinct and non-empty as Gambit does on reading: an empty or repeated label
/// `x` becomes `x_1`, `x_2`, ... (skipping names already in use).
pub fn normalize_labels(labels: &mut [String]) {
    // The usual case, short lists of distinct non-empty labels, needs no tables.
    if labels.len() <= 16
        && labels
            .iter()
            .enumerate()
            .all(|(i, l)| !l.is_empty() && !labels[..i].contains(l))
    {
        return;
    }
    let mut counts: HashMap<String, usize> = HashMap::new();
    for l in labels.iter() {
        *counts.entry(l.clone()).or_default() += 1;
    }
    let mut used: HashSet<String> = labels.iter().cloned().collect();
    let mut visited: HashMap<String, usize> = HashMap::new();
    for l in labels.iter_mut() {
        if counts[l.as_str()] == 1 && !l.is_empty() {
            continue;
        }
        let base = l.clone();
        let candidate = loop {
            let i = visited.entry(base.clone()).or_default();
            *i += 1;
            let c = format!("{base}_{i}");
            if !used.contains(&c) {
                break c;
            }
        };
        used.insert(candidate.clone());
        *l = candidate;
    }
}

/// Unique, readable labels for one player's information sets: the file's label when it is
/// non-empty and unique, else `label#id` (or `#id` for an empty label), so that strategy files
/// can name every set.
fn infoset_labels(sets: &[EfgInfoset]) -> Vec<String> {
    unique_set_labels(
        &sets
            .iter()
            .map(|s| (s.label.as_str(), s.id))
            .collect::<Vec<_>>(),
    )
}

/// [`infoset_labels`] on (label, file id) pairs.
pub(crate) fn unique_set_labels(sets: &[(&str, i64)]) -> Vec<String> {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for &(label, _) in sets {
        *counts.entry(label).or_default() += 1;
    }
    let unique = |label: &str| !label.is_empty() && counts[label] == 1;
    let mut used: HashSet<String> = sets
        .iter()
        .filter(|&&(label, _)| unique(label))
        .map(|&(label, _)| label.to_string())
        .collect();
    sets.iter()
        .map(|&(label, id)| {
            if unique(label) {
                return label.to_string();
            }
            let mut c = format!("{label}#{id}");
            while used.contains(&c) {
                c.push('#');
            }
            used.insert(c.clone());
            c
        })
        .collect()
}

/// The information-set labels [`efg_to_game`] gives each player's sets (indexed like
/// [`EfgGame::infosets`]).
pub fn game_infoset_labels(efg: &EfgGame) -> Vec<Vec<String>> {
    efg.infosets.iter().map(|s| infoset_labels(s)).collect()
}

/// Each player's payoff at every terminal node, summing the outcomes along its path.
/// Returns (terminal node, payoffs) in file order.
pub fn terminal_payoffs(efg: &EfgGame) -> Vec<(usize, Vec<Rational>)> {
    let n = efg.players.len();
    let mut result = Vec::new();
    let mut stack = vec![(0usize, vec![Rational::zero(); n])];
    while let Some((node, mut acc)) = stack.pop() {
        let nd = &efg.nodes[node];
        if let Some(o) = nd.outcome {
            for (a, p) in acc.iter_mut().zip(&efg.outcomes[o].payoffs) {
                *a += p;
            }
        }
        if nd.children.is_empty() {
            result.push((node, acc));
        } else {
            for &c in nd.children.iter().rev() {
                stack.push((c, acc.clone()));
            }
        }
    }
    result
}

/// Converts a two-player tree (constant-sum or general-sum) into a [`Game`]. Chance probabilities
/// that do not sum to 1 are divided by their sum; labels are made unique (Gambit's rule for
/// actions, `label#id` for information sets). Fails, saying why, for any other number of players
/// (checked first), imperfect recall, or chance sets summing to 0.
pub fn efg_to_game(efg: &EfgGame) -> Result<Game> {
    Ok(efg_to_builder(efg)?.build()?)
}

/// The checks and builder calls of [`efg_to_game`], without the final build, so that a caller
/// can free the general tree before the compiled game is allocated.
fn efg_to_builder(efg: &EfgGame) -> Result<GameBuilder> {
    if efg.players.len() != 2 {
        fail!(
            Unsupported,
            "the game has {} player(s); bluff takes two-player games only",
            efg.players.len()
        );
    }
    let payoffs = terminal_payoffs(efg);
    let mut players = efg.players.clone();
    normalize_labels(&mut players);
    let set_labels = game_infoset_labels(efg);
    let set_actions: Vec<Vec<Vec<String>>> = efg
        .infosets
        .iter()
        .map(|sets| {
            sets.iter()
                .map(|s| {
                    let mut a = s.actions.clone();
                    normalize_labels(&mut a);
                    a
                })
                .collect()
        })
        .collect();
    let mut chance: Vec<Vec<(String, Rational)>> = Vec::with_capacity(efg.chance_infosets.len());
    for set in &efg.chance_infosets {
        let sum: Rational = set.probs.iter().sum();
        if sum.is_zero() {
            fail!(
                Invalid,
                "chance information set {} has probabilities summing to 0, so no outcome can happen",
                set.id
            );
        }
        let mut labels = set.actions.clone();
        normalize_labels(&mut labels);
        chance.push(
            labels
                .into_iter()
                .zip(set.probs.iter().map(|p| p / &sum))
                .collect(),
        );
    }
    let mut pay_of = HashMap::new();
    for (node, pay) in payoffs {
        pay_of.insert(node, pay);
    }
    let mut b = GameBuilder::new(efg.title.clone(), players[0].clone(), players[1].clone());
    let mut stack: Vec<(usize, NodeRef)> = vec![(0, b.root())];
    while let Some((n, r)) = stack.pop() {
        let node = &efg.nodes[n];
        let children = match node.kind {
            EfgNodeKind::Chance { infoset } => b.chance(r, chance[infoset].clone())?,
            EfgNodeKind::Personal { player, infoset } => b.decision(
                r,
                player,
                &set_labels[player][infoset],
                &set_actions[player][infoset],
            )?,
            EfgNodeKind::Terminal => {
                let pay = pay_of.remove(&n).expect("every terminal has payoffs");
                let label = node
                    .outcome
                    .map(|o| efg.outcomes[o].label.clone())
                    .unwrap_or_else(|| node.name.clone());
                let [p0, p1]: [Rational; 2] = pay.try_into().expect("two players");
                b.terminal_labelled(r, [p0, p1], &label)?;
                Vec::new()
            }
        };
        for (&c, cr) in node.children.iter().zip(children) {
            stack.push((c, cr));
        }
    }
    Ok(b)
}

/// Reads a `.efg` file into a [`Game`], returning the warnings met. Errors name the file, and the
/// line and column where the text is malformed. The file is streamed ([`load_efg`]).
pub fn load_efg_file(path: &std::path::Path) -> Result<(Game, Vec<Warning>)> {
    load_efg_file_with_progress(path, &mut |_, _| {})
}

/// [`load_efg_file`], calling `progress(bytes read, file size)` as the file streams in (every
/// 64 KiB), for a progress bar.
pub fn load_efg_file_with_progress(
    path: &std::path::Path,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(Game, Vec<Warning>)> {
    let file = std::fs::File::open(path).map_err(|source| Error::Io {
        path: path.display().to_string(),
        source,
    })?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let src = std::io::BufReader::with_capacity(1 << 16, file);
    let result = load_efg(src, |bytes| progress(bytes, len));
    result.map_err(|e| match e {
        LoadError::Parse(error) => Error::Parse {
            file: path.display().to_string(),
            error,
        },
        LoadError::Outside(m) => Error::Unsupported(format!(
            "{} was read but is outside what bluff's solvers take: {m}",
            path.display()
        )),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::{int, rat};

    const TINY: &str = r#"EFG 2 R "Tiny bluff" { "P1" "P2" }
"Chance deals High or Low to P1; P1 bets or checks; P2 calls or folds."

c "deal" 1 "Deal" { "High" 1/3 "Low" 2/3 } 0
p "" 1 1 "P1 has High" { "Bet" "Check" } 0
p "" 2 1 "P2 facing a bet" { "Call" "Fold" } 0
t "" 1 "P1 wins 2" { 2, -2 }
t "" 2 "P1 wins 1" { 1 -1 }
t "" 2
p "" 1 2 "P1 has Low" { "Bet" "Check" } 0
p "" 2 1 0
t "" 3 "P2 wins 2" { -2 2 }
t "" 2
t "" 4 "P2 wins 1" { -1 1 }
"#;

    #[test]
    fn reads_the_documented_example() {
        let p = read_efg(TINY).unwrap();
        assert!(p.warnings.is_empty());
        let g = &p.game;
        assert_eq!(g.players, ["P1", "P2"]);
        assert_eq!(g.nodes.len(), 11);
        assert_eq!(g.chance_infosets[0].probs, vec![rat(1, 3), rat(2, 3)]);
        assert_eq!(g.infosets[1].len(), 1);
        assert_eq!(g.outcomes.len(), 4);
        assert_eq!(p.node_pos[1], Pos { line: 5, column: 1 });
        let game = efg_to_game(g).unwrap();
        assert_eq!(game.infosets[0].len(), 2);
        assert_eq!(game.infosets[1].len(), 1);
        assert_eq!(game.num_terminal_nodes(), 6);
        assert_eq!(game.constant_sum, int(0));
    }

    #[test]
    fn quoted_labels_follow_gambits_escapes() {
        let mut lx = Lexer::over_str(
            r#""a \"b\" c\d" "x
y""#,
        )
        .unwrap();
        assert_eq!((lx.tok, lx.text()), (Tok::Text, "a \"b\" c\\d"));
        // Gambit's quirk: a backslash after a backslash is kept, and escapes the next one too.
        let lx2 = Lexer::over_str(r#""a\\b""#).unwrap();
        assert_eq!((lx2.tok, lx2.text()), (Tok::Text, "a\\\\\\b"));
        lx.advance().unwrap();
        assert_eq!((lx.tok, lx.text()), (Tok::Text, "x\ny"));
        assert_eq!(quote("a \"b\" c\\d").unwrap(), r#""a \"b\" c\d""#);
        assert!(quote("ends\\").is_err());
    }

    #[test]
    fn errors_name_line_and_column() {
        let bad = TINY.replace("{ 1 -1 }", "{ 1 }");
        let e = read_efg(&bad).unwrap_err();
        assert_eq!(
            e.pos,
            Pos {
                line: 8,
                column: 24
            }
        );
        assert!(e.message.contains("player 2's payoff"), "{e}");
        let e = read_efg(&TINY.replace("p \"\" 2 1 0", "p \"\" 3 1 0")).unwrap_err();
        assert_eq!(e.pos.line, 11);
        assert!(e.message.contains("player number 3"), "{e}");
    }

    #[test]
    fn warns_and_normalises_when_chance_does_not_sum_to_one() {
        let p = read_efg(&TINY.replace("2/3", "1/3")).unwrap();
        assert_eq!(p.warnings.len(), 1);
        assert!(p.warnings[0].message.contains("sum to 2/3"));
        let game = efg_to_game(&p.game).unwrap();
        assert_eq!(game.chance_prob[1], rat(1, 2));
    }

    #[test]
    fn normalises_labels_like_gambit() {
        let mut v: Vec<String> = ["x", "x", "x_1", ""]
            .iter()
            .map(|s| s.to_string())
            .collect();
        normalize_labels(&mut v);
        assert_eq!(v, ["x_2", "x_3", "x_1", "_1"]);
    }
}
