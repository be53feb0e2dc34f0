//! The `.efg` reader: text to an [`EfgGame`], with line and column in every error.

use super::lexer::{Lexer, Tok};
use super::writer::is_gambit_label;
use super::{
    EfgChanceInfoset, EfgGame, EfgInfoset, EfgNode, EfgNodeKind, EfgOutcome, ParseError, ParsedEfg,
    Pos, Warning,
};
use crate::format::text::{quoted, quoted_list};
use crate::scalar::{format_rational, Rational};
use num_traits::{One, Signed, Zero};
use std::collections::HashMap;
use std::io::BufRead;

struct Reader<R: BufRead> {
    lx: Lexer<R>,
    game: EfgGame,
    node_pos: Vec<Pos>,
    warnings: Vec<Warning>,
    chance_ids: HashMap<i64, usize>,
    player_ids: Vec<HashMap<i64, usize>>,
    outcome_ids: HashMap<i64, usize>,
}

/// Reads the header that `.efg` and `.nfg` share: `KIND VERSION R|D "title" { "player" ... }`.
pub(crate) fn read_header<R: BufRead>(
    lx: &mut Lexer<R>,
    kind: &str,
    version: &str,
    version_expected: &str,
) -> Result<(String, Vec<String>), ParseError> {
    lx.keyword(kind, &format!("the file type \"{kind}\" at the start"))?;
    match &lx.tok {
        Tok::Number if lx.text() == version => lx.advance()?,
        _ => return Err(lx.expected(version_expected)),
    }
    match &lx.tok {
        Tok::Symbol if lx.text() == "R" || lx.text() == "D" => lx.advance()?,
        _ => return Err(lx.expected("the number type \"R\" or \"D\"")),
    }
    let title = lx.take_text("the game title (a quoted label)")?;
    lx.expect(Tok::LBrace, "'{' opening the player list")?;
    let mut players = Vec::new();
    while lx.tok == Tok::Text {
        players.push(lx.take_text("a player name")?);
    }
    lx.expect(
        Tok::RBrace,
        "a quoted player name or '}' closing the player list",
    )?;
    Ok((title, players))
}

/// Reads `.efg` text. Every malformed input gives a [`ParseError`] naming line and column.
pub fn read_efg(text: &str) -> Result<ParsedEfg, ParseError> {
    read_efg_from(text.as_bytes())
}

/// Reads `.efg` text from a buffered stream into the general tree.
pub fn read_efg_from<R: BufRead>(src: R) -> Result<ParsedEfg, ParseError> {
    let mut lx = Lexer::new(src)?;
    let (title, players) = read_header(
        &mut lx,
        "EFG",
        "2",
        "version 2 after \"EFG\" (only EFG version 2 exists)",
    )?;
    let comment = lx.optional_text()?;
    let n = players.len();
    let mut r = Reader {
        lx,
        game: EfgGame {
            title,
            comment,
            players,
            nodes: Vec::new(),
            chance_infosets: Vec::new(),
            infosets: vec![Vec::new(); n],
            outcomes: Vec::new(),
        },
        node_pos: Vec::new(),
        warnings: Vec::new(),
        chance_ids: HashMap::new(),
        player_ids: vec![HashMap::new(); n],
        outcome_ids: HashMap::new(),
    };
    r.tree()?;
    if r.lx.tok != Tok::Eof {
        r.warnings.push(Warning {
            pos: r.lx.pos,
            message: format!(
                "{} after the last node of the tree: ignored (as Gambit does)",
                r.lx.describe()
            ),
        });
        r.lx.check_rest_utf8()?;
    }
    if let Some(w) = label_rule_warning(&r.game, &r.node_pos) {
        r.warnings.push(w);
    }
    Ok(ParsedEfg {
        game: r.game,
        node_pos: r.node_pos,
        warnings: r.warnings,
    })
}

/// One warning for the labels that break Gambit 16's rule ([`is_gambit_label`]): bluff reads
/// them, but Gambit 16 would refuse the file. Points at the first node that carries one.
fn label_rule_warning(game: &EfgGame, node_pos: &[Pos]) -> Option<Warning> {
    let mut bad: Vec<(Pos, String)> = game
        .players
        .iter()
        .filter(|p| !is_gambit_label(p))
        .map(|p| {
            (
                Pos { line: 1, column: 1 },
                format!("player name {}", quoted(p)),
            )
        })
        .collect();
    for (n, node) in game.nodes.iter().enumerate() {
        let pos = node_pos.get(n).copied().unwrap_or_default();
        // Formats only the (rare) bad labels; a set's labels repeat at each of its nodes.
        let mut check = |what: &str, label: &str| {
            if is_gambit_label(label) {
                return;
            }
            let item = format!("{what} {}", quoted(label));
            if !bad.iter().any(|(_, b)| *b == item) {
                bad.push((pos, item));
            }
        };
        check("node name", &node.name);
        match &node.kind {
            EfgNodeKind::Chance { infoset } => {
                let set = &game.chance_infosets[*infoset];
                check("chance information set", &set.label);
                set.actions.iter().for_each(|a| check("chance outcome", a));
            }
            EfgNodeKind::Personal { player, infoset } => {
                let set = &game.infosets[*player][*infoset];
                check("information set", &set.label);
                set.actions.iter().for_each(|a| check("action", a));
            }
            EfgNodeKind::Terminal => {}
        }
        if let Some(o) = node.outcome {
            check("outcome", &game.outcomes[o].label);
        }
    }
    let (pos, first) = bad.first()?.clone();
    Some(label_warning(pos, &first, bad.len()))
}

/// The warning for `count` distinct labels breaking Gambit 16's rule, `first` the first met.
pub(crate) fn label_warning(pos: Pos, first: &str, count: usize) -> Warning {
    let bad_len = count;
    Warning {
        pos,
        message: format!(
            "{first} breaks Gambit 16's label rule (printable ASCII, single spaces, no space at either end){}; bluff reads it, Gambit 16 would refuse the file, and `bluff export` rewrites such labels",
            match bad_len {
                1 => String::new(),
                n => format!(" ({} more distinct labels do too)", n - 1),
            }
        ),
    }
}

/// The warning for a chance set `id` whose probabilities sum to `sum`, none when it is 1.
pub(crate) fn chance_sum_warning(pos: Pos, id: i64, sum: &Rational) -> Option<Warning> {
    if sum.is_one() {
        return None;
    }
    let message = if sum.is_zero() {
        format!("chance information set {id}: probabilities sum to 0")
    } else {
        let s = format_rational(sum);
        format!(
            "chance information set {id}: probabilities sum to {s}, not 1; bluff divides each by {s} when it builds the game"
        )
    };
    Some(Warning { pos, message })
}

/// Reads `.efg` bytes (which must be UTF-8).
pub fn read_efg_bytes(bytes: &[u8]) -> Result<ParsedEfg, ParseError> {
    read_efg_from(bytes)
}

impl<R: BufRead> Reader<R> {
    /// Reads the nodes in pre-order without recursion (deep files must not overflow the stack).
    fn tree(&mut self) -> Result<(), ParseError> {
        let mut open: Vec<(usize, usize)> = Vec::new();
        let root = self.node()?;
        if !self.game.nodes[root].children.is_empty() {
            open.push((root, self.game.nodes[root].children.len()));
            self.game.nodes[root].children.clear();
        }
        while let Some(top) = open.last_mut() {
            if top.1 == 0 {
                open.pop();
                continue;
            }
            top.1 -= 1;
            let parent = top.0;
            if self.lx.tok == Tok::Eof {
                let (parent_kind, missing) = (self.game.nodes[parent].kind.clone(), top.1 + 1);
                return Err(self.lx.error(format!(
                    "end of file while {missing} more child node(s) of the {} node at {} are expected",
                    match parent_kind {
                        EfgNodeKind::Chance { .. } => "chance",
                        _ => "personal",
                    },
                    self.node_pos[parent]
                )));
            }
            let child = self.node()?;
            let k = self.game.nodes[child].children.len();
            self.game.nodes[parent].children.push(child);
            if k > 0 {
                self.game.nodes[child].children.clear();
                open.push((child, k));
            }
        }
        Ok(())
    }

    /// Reads one node's own entry. Its `children` temporarily holds placeholders, one per child.
    fn node(&mut self) -> Result<usize, ParseError> {
        let pos = self.lx.pos;
        let letter = match self.lx.tok {
            Tok::Symbol if matches!(self.lx.text(), "c" | "p" | "t") => self.lx.text().to_string(),
            _ => {
                return Err(self
                    .lx
                    .expected("a node: \"c\" (chance), \"p\" (personal) or \"t\" (terminal)"))
            }
        };
        self.lx.advance()?;
        let name = self
            .lx
            .take_text("the node's name (a quoted label, may be \"\")")?;
        let (kind, num_children) = match letter.as_str() {
            "c" => {
                let infoset = self.chance_infoset()?;
                (
                    EfgNodeKind::Chance { infoset },
                    self.game.chance_infosets[infoset].actions.len(),
                )
            }
            "p" => {
                let (player, infoset) = self.player_infoset()?;
                (
                    EfgNodeKind::Personal { player, infoset },
                    self.game.infosets[player][infoset].actions.len(),
                )
            }
            _ => (EfgNodeKind::Terminal, 0),
        };
        let outcome = self.outcome()?;
        self.game.nodes.push(EfgNode {
            name,
            kind,
            outcome,
            children: vec![usize::MAX; num_children],
        });
        self.node_pos.push(pos);
        Ok(self.game.nodes.len() - 1)
    }

    fn chance_infoset(&mut self) -> Result<usize, ParseError> {
        let id_pos = self.lx.pos;
        let id = self.lx.integer("the chance information set's id")?;
        let known = self.chance_ids.get(&id).copied();
        if self.lx.tok != Tok::Text {
            return known.ok_or_else(|| ParseError {
                pos: id_pos,
                message: format!(
                    "chance information set {id} is used here before it is described (expected its label and {{ \"outcome\" probability ... }})"
                ),
            });
        }
        let label = self.lx.take_text("label")?;
        let brace = self.lx.pos;
        self.lx
            .expect(Tok::LBrace, "'{' opening the chance outcomes")?;
        let mut actions = Vec::new();
        let mut probs = Vec::new();
        loop {
            actions.push(self.lx.take_text("a quoted chance outcome label")?);
            let p_pos = self.lx.pos;
            let p = self.lx.rational("the chance outcome's probability")?;
            if p.is_negative() {
                return Err(ParseError {
                    pos: p_pos,
                    message: format!("chance probability {} is negative", format_rational(&p)),
                });
            }
            probs.push(p);
            if self.lx.tok == Tok::RBrace {
                self.lx.advance()?;
                break;
            }
        }
        if let Some(k) = known {
            let set = &self.game.chance_infosets[k];
            if set.label != label || set.actions != actions || set.probs != probs {
                return Err(ParseError {
                    pos: id_pos,
                    message: format!(
                        "chance information set {id} is described again differently: {} {{ {} }} here, {} {{ {} }} before",
                        quoted(&label),
                        describe_chance(&actions, &probs),
                        quoted(&set.label),
                        describe_chance(&set.actions, &set.probs)
                    ),
                });
            }
            return Ok(k);
        }
        let sum: Rational = probs.iter().sum();
        if let Some(w) = chance_sum_warning(brace, id, &sum) {
            self.warnings.push(w);
        }
        self.game.chance_infosets.push(EfgChanceInfoset {
            id,
            label,
            actions,
            probs,
        });
        let k = self.game.chance_infosets.len() - 1;
        self.chance_ids.insert(id, k);
        Ok(k)
    }

    fn player_infoset(&mut self) -> Result<(usize, usize), ParseError> {
        let n = self.game.players.len();
        let player_pos = self.lx.pos;
        let number = self.lx.integer("the moving player's number")?;
        if number < 1 || number as u64 > n as u64 {
            return Err(ParseError {
                pos: player_pos,
                message: format!(
                    "player number {number} is not between 1 and {n} (the file names {n} players)"
                ),
            });
        }
        let player = (number - 1) as usize;
        let id_pos = self.lx.pos;
        let id = self.lx.integer("the information set's id")?;
        let known = self.player_ids[player].get(&id).copied();
        if self.lx.tok != Tok::Text {
            return known.map(|k| (player, k)).ok_or_else(|| ParseError {
                pos: id_pos,
                message: format!(
                    "information set {id} of player {number} is used here before it is described (expected its label and {{ \"action\" ... }})"
                ),
            });
        }
        let label = self.lx.take_text("label")?;
        self.lx.expect(Tok::LBrace, "'{' opening the action list")?;
        let mut actions = Vec::new();
        loop {
            actions.push(self.lx.take_text("a quoted action label")?);
            if self.lx.tok == Tok::RBrace {
                self.lx.advance()?;
                break;
            }
        }
        if let Some(k) = known {
            let set = &self.game.infosets[player][k];
            if set.label != label || set.actions != actions {
                return Err(ParseError {
                    pos: id_pos,
                    message: format!(
                        "information set {id} of player {number} is described again differently: {} {} here, {} {} before",
                        quoted(&label),
                        quoted_list(&actions),
                        quoted(&set.label),
                        quoted_list(&set.actions)
                    ),
                });
            }
            return Ok((player, k));
        }
        self.game.infosets[player].push(EfgInfoset { id, label, actions });
        let k = self.game.infosets[player].len() - 1;
        self.player_ids[player].insert(id, k);
        Ok((player, k))
    }

    fn outcome(&mut self) -> Result<Option<usize>, ParseError> {
        let id_pos = self.lx.pos;
        let id = self.lx.integer("the outcome id (0 for none)")?;
        let known = self.outcome_ids.get(&id).copied();
        if self.lx.tok != Tok::Text {
            if id == 0 {
                return Ok(None);
            }
            return known.map(Some).ok_or_else(|| ParseError {
                pos: id_pos,
                message: format!(
                    "outcome {id} is used here before it is described (expected its label and {{ payoffs }})"
                ),
            });
        }
        if id == 0 {
            return Err(self
                .lx
                .error("outcome 0 is the null outcome and cannot have a label or payoffs"));
        }
        let label = self.lx.take_text("label")?;
        self.lx.expect(Tok::LBrace, "'{' opening the payoffs")?;
        let n = self.game.players.len();
        let mut payoffs = Vec::with_capacity(n);
        for k in 0..n {
            let what = format!("player {}'s payoff ({} numbers in all)", k + 1, n);
            payoffs.push(self.lx.rational(&what)?);
            if self.lx.tok == Tok::Comma {
                self.lx.advance()?;
            }
        }
        self.lx.expect(
            Tok::RBrace,
            &format!("'}}' after the {n} payoffs of outcome {id} (one per player)"),
        )?;
        if let Some(k) = known {
            let o = &self.game.outcomes[k];
            if o.label != label || o.payoffs != payoffs {
                return Err(ParseError {
                    pos: id_pos,
                    message: format!(
                        "outcome {id} is described again differently: {} {{ {} }} here, {} {{ {} }} before",
                        quoted(&label),
                        describe_numbers(&payoffs),
                        quoted(&o.label),
                        describe_numbers(&o.payoffs)
                    ),
                });
            }
            return Ok(Some(k));
        }
        self.game.outcomes.push(EfgOutcome { id, label, payoffs });
        let k = self.game.outcomes.len() - 1;
        self.outcome_ids.insert(id, k);
        Ok(Some(k))
    }
}

fn describe_numbers(v: &[Rational]) -> String {
    v.iter().map(format_rational).collect::<Vec<_>>().join(" ")
}

fn describe_chance(actions: &[String], probs: &[Rational]) -> String {
    actions
        .iter()
        .zip(probs)
        .map(|(a, p)| format!("{} {}", quoted(a), format_rational(p)))
        .collect::<Vec<_>>()
        .join(" ")
}
