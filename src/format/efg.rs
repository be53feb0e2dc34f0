//! Gambit `.efg` files (extensive form, version 2), read and written the way Gambit does.
//!
//! Reading goes through a general tree, [`EfgGame`]: any number of players, any payoffs,
//! information-set ids per player and for chance, outcomes on any node. [`efg_to_game`] then
//! turns a two-player constant-sum tree into a [`Game`] every solver takes, and explains why when
//! it cannot. [`game_to_efg`] and [`write_efg`] go the other way, in a form Gambit reads back.
//!
//! Grammar (see `GAMES.md` section 5): `EFG 2 R|D "title" { "player" ... } ["comment"] node...`
//! with nodes in pre-order: `c "name" id ["infoset" { "action" prob ... }] outcome`,
//! `p "name" player id ["infoset" { "action" ... }] outcome`, `t "name" outcome`, and
//! `outcome = id ["label" { payoff [,] ... }]`.

use crate::game::{Game, GameBuilder, NodeKind, NodeRef};
use crate::scalar::{format_rational, parse_rational, Rational};
use anyhow::{anyhow, bail, Context, Result};
use num_traits::{One, Signed, Zero};
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
// Lexer (shared with the .nfg reader).

/// A token of Gambit's savefile syntax.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    /// A number's text (parsed later, exactly).
    Number(String),
    /// A quoted label, unescaped.
    Text(String),
    /// Any other run of non-space characters.
    Symbol(String),
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `,`
    Comma,
    /// End of input.
    Eof,
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Number(t) => format!("number {t}"),
            Tok::Text(t) => format!("text {t:?}"),
            Tok::Symbol(t) => format!("{t:?}"),
            Tok::LBrace => "'{'".into(),
            Tok::RBrace => "'}'".into(),
            Tok::Comma => "','".into(),
            Tok::Eof => "end of file".into(),
        }
    }
}

/// Splits Gambit savefile text into tokens, tracking line and column.
pub(crate) struct Lexer<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    line: usize,
    column: usize,
    /// The current token and where it starts.
    pub tok: Tok,
    /// Start of the current token.
    pub pos: Pos,
}

impl<'a> Lexer<'a> {
    /// A lexer positioned on the first token.
    pub fn new(text: &'a str) -> Result<Self, ParseError> {
        let mut lx = Lexer {
            chars: text.chars().peekable(),
            line: 1,
            column: 1,
            tok: Tok::Eof,
            pos: Pos { line: 1, column: 1 },
        };
        lx.advance()?;
        Ok(lx)
    }

    fn here(&self) -> Pos {
        Pos {
            line: self.line,
            column: self.column,
        }
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn peek(&mut self) -> Option<char> {
        self.chars.peek().copied()
    }

    fn take_digits(&mut self, buf: &mut String) {
        while let Some(c) = self.peek().filter(char::is_ascii_digit) {
            buf.push(c);
            self.bump();
        }
    }

    /// An error at the current token.
    pub fn error(&self, message: impl Into<String>) -> ParseError {
        ParseError {
            pos: self.pos,
            message: message.into(),
        }
    }

    /// An error saying what was expected instead of the current token.
    pub fn expected(&self, what: &str) -> ParseError {
        self.error(format!("expected {what}, found {}", self.tok.describe()))
    }

    /// Moves to the next token.
    pub fn advance(&mut self) -> Result<(), ParseError> {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
        self.pos = self.here();
        let Some(c) = self.peek() else {
            self.tok = Tok::Eof;
            return Ok(());
        };
        self.tok = match c {
            '{' => {
                self.bump();
                Tok::LBrace
            }
            '}' => {
                self.bump();
                Tok::RBrace
            }
            ',' => {
                self.bump();
                Tok::Comma
            }
            '"' => {
                self.bump();
                Tok::Text(self.quoted()?)
            }
            c if c.is_ascii_digit() || c == '-' || c == '+' || c == '.' => {
                Tok::Number(self.number()?)
            }
            _ => {
                let mut s = String::new();
                while let Some(c) = self.peek().filter(|c| !c.is_whitespace()) {
                    s.push(c);
                    self.bump();
                }
                Tok::Symbol(s)
            }
        };
        Ok(())
    }

    /// The body of a quoted label after its opening quote. As in Gambit, `\"` is a quote and a
    /// backslash before any other character is kept as it is.
    fn quoted(&mut self) -> Result<String, ParseError> {
        let mut s = String::new();
        let mut last_slash = false;
        loop {
            let Some(a) = self.bump() else {
                return Err(ParseError {
                    pos: self.pos,
                    message: "this label's closing '\"' is missing (end of file reached)".into(),
                });
            };
            if a == '"' && !last_slash {
                return Ok(s);
            }
            if last_slash && a == '"' {
                s.push('"');
            } else if last_slash {
                s.push('\\');
                s.push(a);
            } else if a != '\\' {
                s.push(a);
            }
            // Gambit's rule: a backslash always escapes the next character's quote meaning.
            last_slash = a == '\\';
        }
    }

    /// A number token as Gambit's lexer cuts it: sign, digits, then a fraction `/q`, a decimal
    /// part or an exponent.
    fn number(&mut self) -> Result<String, ParseError> {
        let mut buf = String::new();
        let first = self.bump().expect("peeked");
        buf.push(first);
        self.take_digits(&mut buf);
        match self.peek() {
            Some('.') if first != '.' => {
                buf.push('.');
                self.bump();
                self.take_digits(&mut buf);
                if matches!(self.peek(), Some('e' | 'E')) {
                    self.exponent(&mut buf)?;
                }
            }
            Some('/') if first != '.' => {
                buf.push('/');
                self.bump();
                self.take_digits(&mut buf);
            }
            Some('e' | 'E') if first != '.' => self.exponent(&mut buf)?,
            _ => {}
        }
        Ok(buf)
    }

    fn exponent(&mut self, buf: &mut String) -> Result<(), ParseError> {
        buf.push(self.bump().expect("peeked"));
        match self.peek() {
            Some(c) if c == '+' || c == '-' || c.is_ascii_digit() => {
                buf.push(c);
                self.bump();
            }
            _ => {
                return Err(ParseError {
                    pos: self.pos,
                    message: format!(
                        "number {buf:?}: expected a sign or digit after the exponent marker"
                    ),
                })
            }
        }
        self.take_digits(buf);
        Ok(())
    }

    /// The current token as an exact number, then advances.
    pub fn rational(&mut self, what: &str) -> Result<Rational, ParseError> {
        let Tok::Number(t) = &self.tok else {
            return Err(self.expected(what));
        };
        let v = parse_rational(t).ok_or_else(|| {
            self.error(format!(
                "{what}: {t:?} is not a number (expected a decimal or p/q with q > 0)"
            ))
        })?;
        self.advance()?;
        Ok(v)
    }

    /// The current token as an integer, then advances.
    pub fn integer(&mut self, what: &str) -> Result<i64, ParseError> {
        let Tok::Number(t) = &self.tok else {
            return Err(self.expected(what));
        };
        let v = t
            .strip_prefix('+')
            .unwrap_or(t)
            .parse::<i64>()
            .map_err(|_| self.error(format!("{what}: {t:?} is not an integer")))?;
        self.advance()?;
        Ok(v)
    }

    /// The current token as a quoted label, then advances.
    pub fn text(&mut self, what: &str) -> Result<String, ParseError> {
        let Tok::Text(t) = &self.tok else {
            return Err(self.expected(what));
        };
        let t = t.clone();
        self.advance()?;
        Ok(t)
    }

    /// Requires the current token to be `tok`, then advances.
    pub fn expect(&mut self, tok: Tok, what: &str) -> Result<(), ParseError> {
        if self.tok != tok {
            return Err(self.expected(what));
        }
        self.advance()
    }

    /// Requires the symbol `word`, then advances.
    pub fn keyword(&mut self, word: &str, what: &str) -> Result<(), ParseError> {
        match &self.tok {
            Tok::Symbol(s) if s == word => self.advance(),
            _ => Err(self.expected(what)),
        }
    }
}

/// Decodes bytes as UTF-8, naming the line and column of the first bad byte.
pub(crate) fn decode_utf8(bytes: &[u8]) -> Result<&str, ParseError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let good = std::str::from_utf8(&bytes[..e.valid_up_to()]).expect("valid prefix");
        let line = good.matches('\n').count() + 1;
        let column = good.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        ParseError {
            pos: Pos { line, column },
            message: "the file is not valid UTF-8 text".into(),
        }
    })
}

// ---------------------------------------------------------------------------------------------
// Reader.

struct Reader<'a> {
    lx: Lexer<'a>,
    game: EfgGame,
    node_pos: Vec<Pos>,
    warnings: Vec<Warning>,
    chance_ids: HashMap<i64, usize>,
    player_ids: Vec<HashMap<i64, usize>>,
    outcome_ids: HashMap<i64, usize>,
}

/// Reads the header that `.efg` and `.nfg` share: `KIND VERSION R|D "title" { "player" ... }`.
pub(crate) fn read_header(
    lx: &mut Lexer,
    kind: &str,
    version: &str,
    version_expected: &str,
) -> Result<(String, Vec<String>), ParseError> {
    lx.keyword(kind, &format!("the file type \"{kind}\" at the start"))?;
    match &lx.tok {
        Tok::Number(t) if t == version => lx.advance()?,
        _ => return Err(lx.expected(version_expected)),
    }
    match &lx.tok {
        Tok::Symbol(s) if s == "R" || s == "D" => lx.advance()?,
        _ => return Err(lx.expected("the number type \"R\" or \"D\"")),
    }
    let title = lx.text("the game title (a quoted label)")?;
    lx.expect(Tok::LBrace, "'{' opening the player list")?;
    let mut players = Vec::new();
    while let Tok::Text(name) = &lx.tok {
        players.push(name.clone());
        lx.advance()?;
    }
    lx.expect(
        Tok::RBrace,
        "a quoted player name or '}' closing the player list",
    )?;
    Ok((title, players))
}

/// Reads `.efg` text. Every malformed input gives a [`ParseError`] naming line and column.
pub fn read_efg(text: &str) -> Result<ParsedEfg, ParseError> {
    let mut lx = Lexer::new(text)?;
    let (title, players) = read_header(
        &mut lx,
        "EFG",
        "2",
        "version 2 after \"EFG\" (only EFG version 2 exists)",
    )?;
    let comment = match &lx.tok {
        Tok::Text(c) => {
            let c = c.clone();
            lx.advance()?;
            Some(c)
        }
        _ => None,
    };
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
                r.lx.tok.describe()
            ),
        });
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
        .map(|p| (Pos { line: 1, column: 1 }, format!("player name {p:?}")))
        .collect();
    for (n, node) in game.nodes.iter().enumerate() {
        let pos = node_pos.get(n).copied().unwrap_or_default();
        // Formats only the (rare) bad labels; a set's labels repeat at each of its nodes.
        let mut check = |what: &str, label: &str| {
            if is_gambit_label(label) {
                return;
            }
            let item = format!("{what} {label:?}");
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
    Some(Warning {
        pos,
        message: format!(
            "{first} breaks Gambit 16's label rule (printable ASCII, single spaces, no space at either end){}; bluff reads it, Gambit 16 would refuse the file, and `bluff export` rewrites such labels",
            match bad.len() {
                1 => String::new(),
                n => format!(" ({} more distinct labels do too)", n - 1),
            }
        ),
    })
}

/// Reads `.efg` bytes (which must be UTF-8).
pub fn read_efg_bytes(bytes: &[u8]) -> Result<ParsedEfg, ParseError> {
    read_efg(decode_utf8(bytes)?)
}

impl Reader<'_> {
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
        let letter = match &self.lx.tok {
            Tok::Symbol(s) if s == "c" || s == "p" || s == "t" => s.clone(),
            _ => {
                return Err(self
                    .lx
                    .expected("a node: \"c\" (chance), \"p\" (personal) or \"t\" (terminal)"))
            }
        };
        self.lx.advance()?;
        let name = self
            .lx
            .text("the node's name (a quoted label, may be \"\")")?;
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
        let Tok::Text(_) = &self.lx.tok else {
            return known.ok_or_else(|| ParseError {
                pos: id_pos,
                message: format!(
                    "chance information set {id} is used here before it is described (expected its label and {{ \"outcome\" probability ... }})"
                ),
            });
        };
        let label = self.lx.text("label")?;
        let brace = self.lx.pos;
        self.lx
            .expect(Tok::LBrace, "'{' opening the chance outcomes")?;
        let mut actions = Vec::new();
        let mut probs = Vec::new();
        loop {
            actions.push(self.lx.text("a quoted chance outcome label")?);
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
                        "chance information set {id} is described again differently: {:?} {{ {} }} here, {:?} {{ {} }} before",
                        label,
                        describe_chance(&actions, &probs),
                        set.label,
                        describe_chance(&set.actions, &set.probs)
                    ),
                });
            }
            return Ok(k);
        }
        let sum: Rational = probs.iter().sum();
        if !sum.is_one() {
            self.warnings.push(Warning {
                pos: brace,
                message: if sum.is_zero() {
                    format!("chance information set {id}: probabilities sum to 0")
                } else {
                    format!(
                        "chance information set {id}: probabilities sum to {}, not 1; bluff divides each by {} when it builds the game",
                        format_rational(&sum),
                        format_rational(&sum)
                    )
                },
            });
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
        let Tok::Text(_) = &self.lx.tok else {
            return known.map(|k| (player, k)).ok_or_else(|| ParseError {
                pos: id_pos,
                message: format!(
                    "information set {id} of player {number} is used here before it is described (expected its label and {{ \"action\" ... }})"
                ),
            });
        };
        let label = self.lx.text("label")?;
        self.lx.expect(Tok::LBrace, "'{' opening the action list")?;
        let mut actions = Vec::new();
        loop {
            actions.push(self.lx.text("a quoted action label")?);
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
                        "information set {id} of player {number} is described again differently: {label:?} {actions:?} here, {:?} {:?} before",
                        set.label, set.actions
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
        let Tok::Text(_) = &self.lx.tok else {
            if id == 0 {
                return Ok(None);
            }
            return known.map(Some).ok_or_else(|| ParseError {
                pos: id_pos,
                message: format!(
                    "outcome {id} is used here before it is described (expected its label and {{ payoffs }})"
                ),
            });
        };
        if id == 0 {
            return Err(self
                .lx
                .error("outcome 0 is the null outcome and cannot have a label or payoffs"));
        }
        let label = self.lx.text("label")?;
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
                        "outcome {id} is described again differently: {label:?} {{ {} }} here, {:?} {{ {} }} before",
                        describe_numbers(&payoffs),
                        o.label,
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
        .map(|(a, p)| format!("{a:?} {}", format_rational(p)))
        .collect::<Vec<_>>()
        .join(" ")
}

// ---------------------------------------------------------------------------------------------
// Writer.

/// Whether `label` follows Gambit 16's rule for every label but the title and comment:
/// printable ASCII and single spaces, no space at either end (the empty label is allowed).
/// Gambit 16's reader rejects a file with any other label; bluff and older Gambit read it.
pub fn is_gambit_label(label: &str) -> bool {
    label.bytes().all(|b| (b' '..=b'~').contains(&b))
        && !label.starts_with(' ')
        && !label.ends_with(' ')
        && !label.contains("  ")
}

/// `label` rewritten to follow Gambit 16's label rule ([`is_gambit_label`]): each run of
/// whitespace becomes one space, the ends are trimmed, and any other character outside
/// printable ASCII is written as `<U+XXXX>`. Labels that already follow the rule are unchanged.
pub fn gambit_label(label: &str) -> String {
    if is_gambit_label(label) {
        return label.to_string();
    }
    let mut out = String::with_capacity(label.len());
    let mut pending_space = false;
    for c in label.chars() {
        if c.is_whitespace() {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        if c.is_ascii_graphic() {
            out.push(c);
        } else {
            out.push_str(&format!("<U+{:04X}>", c as u32));
        }
    }
    out
}

/// Quotes a label that Gambit 16 must accept: [`gambit_label`], then [`quote`].
pub(crate) fn quote_label(label: &str) -> Result<String> {
    quote(&gambit_label(label))
}

/// Quotes a label the way Gambit's lexer reads it back. Fails for the two strings that lexer
/// cannot produce: a backslash right before a quote or at the very end.
pub(crate) fn quote(label: &str) -> Result<String> {
    if label.ends_with('\\') || label.contains("\\\"") || label.contains("\\\\") {
        bail!("label {label:?} cannot be written for Gambit: its reader changes a backslash that ends a label or stands before a quote or another backslash");
    }
    Ok(format!("\"{}\"", label.replace('"', "\\\"")))
}

/// Writes an [`EfgGame`] as `.efg` text that Gambit (and [`read_efg`]) read back unchanged,
/// except that labels other than the title and comment pass through [`gambit_label`] so that
/// Gambit 16 accepts them. Every node repeats its information set's label and actions (and its
/// outcome's payoffs): Gambit allows leaving them out after the first node, but OpenSpiel's
/// `efg_game` parser requires them at every node.
pub fn write_efg(game: &EfgGame) -> Result<String> {
    let mut out = String::new();
    out.push_str("EFG 2 R ");
    out.push_str(&quote(&game.title)?);
    out.push_str(" {");
    for p in &game.players {
        out.push(' ');
        out.push_str(&quote_label(p)?);
    }
    out.push_str(" }\n");
    if let Some(c) = &game.comment {
        out.push_str(&quote(c)?);
        out.push('\n');
    }
    out.push('\n');
    if game.nodes.is_empty() {
        bail!("the game has no nodes");
    }
    let mut stack = vec![0usize];
    let mut visited = 0usize;
    while let Some(n) = stack.pop() {
        visited += 1;
        if visited > game.nodes.len() {
            bail!("the node graph is not a tree (a node is reached twice)");
        }
        let node = game
            .nodes
            .get(n)
            .ok_or_else(|| anyhow!("child index {n} is not a node"))?;
        let expected = match &node.kind {
            EfgNodeKind::Chance { infoset } => {
                let set = game
                    .chance_infosets
                    .get(*infoset)
                    .ok_or_else(|| anyhow!("node {n}: no chance information set {infoset}"))?;
                out.push_str(&format!("c {} {}", quote_label(&node.name)?, set.id));
                out.push_str(&format!(" {} {{", quote_label(&set.label)?));
                if set.actions.len() != set.probs.len() {
                    bail!(
                        "chance information set {}: {} outcomes but {} probabilities",
                        set.id,
                        set.actions.len(),
                        set.probs.len()
                    );
                }
                for (a, p) in set.actions.iter().zip(&set.probs) {
                    out.push_str(&format!(" {} {}", quote_label(a)?, format_rational(p)));
                }
                out.push_str(" }");
                set.actions.len()
            }
            EfgNodeKind::Personal { player, infoset } => {
                let set = game
                    .infosets
                    .get(*player)
                    .and_then(|s| s.get(*infoset))
                    .ok_or_else(|| {
                        anyhow!("node {n}: no information set {infoset} of player index {player}")
                    })?;
                out.push_str(&format!(
                    "p {} {} {}",
                    quote_label(&node.name)?,
                    player + 1,
                    set.id
                ));
                out.push_str(&format!(" {} {{", quote_label(&set.label)?));
                for a in &set.actions {
                    out.push(' ');
                    out.push_str(&quote_label(a)?);
                }
                out.push_str(" }");
                set.actions.len()
            }
            EfgNodeKind::Terminal => {
                out.push_str(&format!("t {}", quote_label(&node.name)?));
                0
            }
        };
        if node.children.len() != expected {
            bail!(
                "node {n} has {} children but its information set has {expected} actions",
                node.children.len()
            );
        }
        match node.outcome {
            None => out.push_str(" 0"),
            Some(o) => {
                let oc = game
                    .outcomes
                    .get(o)
                    .ok_or_else(|| anyhow!("node {n}: no outcome {o}"))?;
                out.push_str(&format!(" {}", oc.id));
                if oc.payoffs.len() != game.players.len() {
                    bail!(
                        "outcome {}: {} payoffs for {} players",
                        oc.id,
                        oc.payoffs.len(),
                        game.players.len()
                    );
                }
                let pays: Vec<String> = oc.payoffs.iter().map(format_rational).collect();
                out.push_str(&format!(
                    " {} {{ {} }}",
                    quote_label(&oc.label)?,
                    pays.join(", ")
                ));
            }
        }
        out.push('\n');
        stack.extend(node.children.iter().rev());
    }
    if visited != game.nodes.len() {
        bail!(
            "{} nodes are not reachable from the root",
            game.nodes.len() - visited
        );
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Conversion to and from the solver's model.

/// The general tree of a compiled game: each chance node gets its own chance information set,
/// each terminal its own outcome (payoffs `[payoff0, constant_sum - payoff0]`); node names empty.
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
                        actions: set.actions.clone(),
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
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for s in sets {
        *counts.entry(s.label.as_str()).or_default() += 1;
    }
    let mut used: HashSet<String> = sets
        .iter()
        .filter(|s| !s.label.is_empty() && counts[s.label.as_str()] == 1)
        .map(|s| s.label.clone())
        .collect();
    sets.iter()
        .map(|s| {
            if !s.label.is_empty() && counts[s.label.as_str()] == 1 {
                return s.label.clone();
            }
            let mut c = format!("{}#{}", s.label, s.id);
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

/// Describes a node for messages: its path of action labels, and its name when it has one.
fn node_description(efg: &EfgGame, parents: &[(usize, usize)], n: usize) -> String {
    let mut labels = Vec::new();
    let mut m = n;
    while m != 0 {
        let (p, k) = parents[m];
        let label = match efg.nodes[p].kind {
            EfgNodeKind::Chance { infoset } => efg.chance_infosets[infoset].actions[k].clone(),
            EfgNodeKind::Personal { player, infoset } => {
                efg.infosets[player][infoset].actions[k].clone()
            }
            EfgNodeKind::Terminal => String::new(),
        };
        labels.push(label);
        m = p;
    }
    labels.reverse();
    let path = if labels.is_empty() {
        "the root".to_string()
    } else {
        labels.join(" > ")
    };
    let name = &efg.nodes[n].name;
    if name.is_empty() {
        format!("node {} in file order (path {path})", n + 1)
    } else {
        format!("node {:?} ({} in file order, path {path})", name, n + 1)
    }
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

/// Converts a two-player constant-sum tree into a [`Game`]. Chance probabilities that do not sum
/// to 1 are divided by their sum; labels are made unique (Gambit's rule for actions, `label#id`
/// for information sets). Fails, saying why, for any other number of players, payoffs that are
/// not constant-sum (naming the terminal), imperfect recall, or chance sets summing to 0.
pub fn efg_to_game(efg: &EfgGame) -> Result<Game> {
    if efg.players.len() != 2 {
        bail!(
            "the game has {} player(s); bluff's solvers take two-player zero-sum (or constant-sum) games",
            efg.players.len()
        );
    }
    let mut parents = vec![(usize::MAX, 0usize); efg.nodes.len()];
    for (p, node) in efg.nodes.iter().enumerate() {
        for (k, &c) in node.children.iter().enumerate() {
            parents[c] = (p, k);
        }
    }
    let payoffs = terminal_payoffs(efg);
    if let Some((first_node, first)) = payoffs.first() {
        let sum0 = &first[0] + &first[1];
        for (node, pay) in &payoffs {
            let sum = &pay[0] + &pay[1];
            if sum != sum0 {
                bail!(
                    "the payoffs are not constant-sum, which bluff's solvers need: at {} they sum to {} ({} + {}), at {} to {}",
                    node_description(efg, &parents, *node),
                    format_rational(&sum),
                    format_rational(&pay[0]),
                    format_rational(&pay[1]),
                    node_description(efg, &parents, *first_node),
                    format_rational(&sum0)
                );
            }
        }
    }
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
            bail!(
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
    Ok(b.build()?)
}

/// Reads a `.efg` file into a [`Game`], returning the warnings met. Errors name the file, and the
/// line and column where the text is malformed.
pub fn load_efg_file(path: &std::path::Path) -> Result<(Game, Vec<Warning>)> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let parsed = read_efg_bytes(&bytes).with_context(|| format!("{}", path.display()))?;
    let game = efg_to_game(&parsed.game).with_context(|| {
        format!(
            "{} was read but is outside what bluff's solvers take",
            path.display()
        )
    })?;
    Ok((game, parsed.warnings))
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
        assert_eq!(game.terminals.len(), 6);
        assert_eq!(game.constant_sum, int(0));
    }

    #[test]
    fn quoted_labels_follow_gambits_escapes() {
        let mut lx = Lexer::new(
            r#""a \"b\" c\d" "x
y""#,
        )
        .unwrap();
        assert_eq!(lx.tok, Tok::Text("a \"b\" c\\d".into()));
        // Gambit's quirk: a backslash after a backslash is kept, and escapes the next one too.
        let lx2 = Lexer::new(r#""a\\b""#).unwrap();
        assert_eq!(lx2.tok, Tok::Text("a\\\\\\b".into()));
        lx.advance().unwrap();
        assert_eq!(lx.tok, Tok::Text("x\ny".into()));
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
