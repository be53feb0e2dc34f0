//! Gambit `.nfg` files (strategic form, version 1): read (payoff and outcome versions) and
//! written (payoff version), plus the reduced normal form of an extensive-form [`Game`].
//!
//! ```text
//! NFG 1 R "title" { "P1" "P2" } { { "s1" "s2" } { "t1" "t2" "t3" } } ["comment"]
//! payoffs: one number per player for each profile, player 1's strategy varying fastest
//! ```
//! The outcome version replaces the payoffs with `{ { "name" u1 [,] u2 [,] } ... }` and then one
//! outcome number (1-based, 0 = all zero) per profile.

use super::efg::{normalize_labels, quote, quote_label, read_header, Lexer, ParseError, Tok};
use crate::error::{fail, Error, Result};
use crate::game::{Game, GameBuilder};
use crate::scalar::{format_rational, Rational};
use num_traits::Zero;

/// Largest number of strategy profiles read or written (a table beyond it does not fit in
/// memory usefully).
pub const MAX_PROFILES: u128 = 20_000_000;

/// A game in strategic form: players, their strategies and a payoff table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NfgGame {
    /// The title.
    pub title: String,
    /// The optional comment.
    pub comment: Option<String>,
    /// Player names.
    pub players: Vec<String>,
    /// Each player's strategy labels.
    pub strategies: Vec<Vec<String>>,
    /// One payoff vector (one entry per player) per profile; player 1's strategy varies fastest.
    pub payoffs: Vec<Vec<Rational>>,
}

impl NfgGame {
    /// The index into [`NfgGame::payoffs`] of a profile (one strategy index per player).
    pub fn profile_index(&self, profile: &[usize]) -> usize {
        let mut index = 0;
        for p in (0..self.players.len()).rev() {
            index = index * self.strategies[p].len() + profile[p];
        }
        index
    }
}

/// Reads `.nfg` text (payoff or outcome version).
pub fn read_nfg(text: &str) -> Result<NfgGame, ParseError> {
    read_nfg_from(text.as_bytes())
}

/// Reads `.nfg` text from a buffered stream.
pub fn read_nfg_from<R: std::io::BufRead>(src: R) -> Result<NfgGame, ParseError> {
    let mut lx = Lexer::new(src)?;
    let (title, players) = read_header(&mut lx, "NFG", "1", "version 1 after \"NFG\"")?;
    let n = players.len();
    lx.expect(Tok::LBrace, "'{' opening the strategy list")?;
    let mut strategies = Vec::with_capacity(n);
    if lx.tok == Tok::LBrace {
        for p in 0..n {
            lx.expect(
                Tok::LBrace,
                &format!("'{{' opening player {}'s strategy labels", p + 1),
            )?;
            let mut s = Vec::new();
            while lx.tok == Tok::Text {
                s.push(lx.take_text("a strategy label")?);
            }
            lx.expect(Tok::RBrace, "a quoted strategy label or '}'")?;
            if s.is_empty() {
                return Err(lx.error(format!("player {} has no strategies", p + 1)));
            }
            strategies.push(s);
        }
    } else {
        for p in 0..n {
            let pos = lx.pos;
            let k = lx.integer(&format!("player {}'s number of strategies", p + 1))?;
            if !(1..=1_000_000).contains(&k) {
                return Err(ParseError {
                    pos,
                    message: format!(
                        "player {} has {k} strategies; expected between 1 and 1000000",
                        p + 1
                    ),
                });
            }
            strategies.push((1..=k).map(|i| i.to_string()).collect());
        }
    }
    lx.expect(
        Tok::RBrace,
        &format!("'}}' closing the strategy list ({n} players)"),
    )?;
    let comment = lx.optional_text()?;
    let profiles: u128 = strategies.iter().map(|s| s.len() as u128).product();
    if profiles > MAX_PROFILES {
        return Err(lx.error(format!(
            "the table has {profiles} strategy profiles, more than the {MAX_PROFILES} this reader takes"
        )));
    }
    let profiles = profiles as usize;
    let mut payoffs = Vec::with_capacity(profiles);
    if lx.tok == Tok::LBrace {
        lx.advance()?;
        let mut outcomes: Vec<Vec<Rational>> = Vec::new();
        while lx.tok == Tok::LBrace {
            lx.advance()?;
            lx.take_text("the outcome's name (a quoted label)")?;
            let mut u = Vec::with_capacity(n);
            for p in 0..n {
                u.push(lx.rational(&format!("player {}'s payoff ({n} in all)", p + 1))?);
                if lx.tok == Tok::Comma {
                    lx.advance()?;
                }
            }
            lx.expect(
                Tok::RBrace,
                &format!("'}}' after the outcome's {n} payoffs"),
            )?;
            outcomes.push(u);
        }
        lx.expect(
            Tok::RBrace,
            "'{' opening an outcome or '}' closing the list",
        )?;
        for k in 0..profiles {
            let pos = lx.pos;
            let o = lx.integer(&format!(
                "the outcome number of profile {} of {profiles}",
                k + 1
            ))?;
            if o == 0 {
                payoffs.push(vec![Rational::zero(); n]);
            } else if o >= 1 && (o as u64) <= outcomes.len() as u64 {
                payoffs.push(outcomes[o as usize - 1].clone());
            } else {
                return Err(ParseError {
                    pos,
                    message: format!(
                        "outcome {o} does not exist (the list has {})",
                        outcomes.len()
                    ),
                });
            }
        }
    } else {
        for k in 0..profiles {
            let mut u = Vec::with_capacity(n);
            for p in 0..n {
                u.push(lx.rational(&format!(
                    "player {}'s payoff in profile {} of {profiles}",
                    p + 1,
                    k + 1
                ))?);
            }
            payoffs.push(u);
        }
    }
    if lx.tok != Tok::Eof {
        return Err(lx.expected("the end of the file after the last payoff"));
    }
    Ok(NfgGame {
        title,
        comment,
        players,
        strategies,
        payoffs,
    })
}

/// Reads `.nfg` bytes (which must be UTF-8).
pub fn read_nfg_bytes(bytes: &[u8]) -> Result<NfgGame, ParseError> {
    read_nfg_from(bytes)
}

/// Writes the payoff version of `.nfg`, with strategy labels (player and strategy labels pass
/// through [`crate::format::efg::gambit_label`] so that Gambit 16 reads the file).
pub fn write_nfg(game: &NfgGame) -> Result<String> {
    let n = game.players.len();
    if game.strategies.len() != n {
        fail!(
            Invalid,
            "{} players but {} strategy lists",
            n,
            game.strategies.len()
        );
    }
    let profiles: usize = game.strategies.iter().map(Vec::len).product();
    if game.payoffs.len() != profiles || game.payoffs.iter().any(|u| u.len() != n) {
        fail!(
            Invalid,
            "the payoff table must have {profiles} profiles of {n} payoffs"
        );
    }
    let mut out = format!("NFG 1 R {} {{", quote(&game.title)?);
    for p in &game.players {
        out.push(' ');
        out.push_str(&quote_label(p)?);
    }
    out.push_str(" }\n{ ");
    for s in &game.strategies {
        out.push_str("{ ");
        for l in s {
            out.push_str(&quote_label(l)?);
            out.push(' ');
        }
        out.push_str("}\n  ");
    }
    out.push_str("}\n");
    out.push_str(&quote(game.comment.as_deref().unwrap_or(""))?);
    out.push_str("\n\n");
    for u in &game.payoffs {
        let line: Vec<String> = u.iter().map(format_rational).collect();
        out.push_str(&line.join(" "));
        out.push('\n');
    }
    Ok(out)
}

/// Makes a two-player strategic-form game (constant-sum or general-sum) an extensive-form [`Game`]: player 1
/// picks a row, then player 2 picks a column without seeing it (one information set each).
pub fn nfg_to_game(nfg: &NfgGame) -> Result<Game> {
    if nfg.players.len() != 2 {
        fail!(
            Unsupported,
            "the game has {} player(s); bluff takes two-player games only",
            nfg.players.len()
        );
    }
    let mut players = nfg.players.clone();
    normalize_labels(&mut players);
    let mut rows = nfg.strategies[0].clone();
    let mut cols = nfg.strategies[1].clone();
    normalize_labels(&mut rows);
    normalize_labels(&mut cols);
    let mut b = GameBuilder::new(nfg.title.clone(), players[0].clone(), players[1].clone());
    let root = b.root();
    let row_nodes = b.decision(root, 0, &players[0], &rows)?;
    for (r, &rn) in row_nodes.iter().enumerate() {
        let col_nodes = b.decision(rn, 1, &players[1], &cols)?;
        for (c, &cn) in col_nodes.iter().enumerate() {
            let u = &nfg.payoffs[nfg.profile_index(&[r, c])];
            b.terminal(cn, [u[0].clone(), u[1].clone()])?;
        }
    }
    Ok(b.build()?)
}

/// Reads a `.nfg` file into a [`Game`] (see [`nfg_to_game`]).
pub fn load_nfg_file(path: &std::path::Path) -> Result<Game> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.display().to_string(),
        source,
    })?;
    let nfg = read_nfg_bytes(&bytes).map_err(|error| Error::Parse {
        file: path.display().to_string(),
        error,
    })?;
    nfg_to_game(&nfg).map_err(|e| match e {
        Error::Unsupported(m) => Error::Unsupported(format!(
            "{} was read but is outside what bluff's solvers take: {m}",
            path.display()
        )),
        other => other.context(format!("{}", path.display())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::int;

    #[test]
    fn reads_both_versions_alike() {
        let payoff = "NFG 1 R \"mp\" { \"A\" \"B\" } { 2 2 }\n1 -1 -1 1 -1 1 1 -1\n";
        let outcome = "NFG 1 R \"mp\" { \"A\" \"B\" } { { \"H\" \"T\" } { \"h\" \"t\" } }\n\"\"\n{ { \"win\" 1, -1 } { \"lose\" -1 1 } }\n1 2 2 1\n";
        let a = read_nfg(payoff).unwrap();
        let b = read_nfg(outcome).unwrap();
        assert_eq!(a.payoffs, b.payoffs);
        assert_eq!(a.payoffs[a.profile_index(&[1, 0])], vec![int(-1), int(1)]);
        let e = read_nfg(&payoff.replace(" 1 -1\n", "\n")).unwrap_err();
        assert_eq!(e.pos.line, 3);
        assert!(e.message.contains("profile 4 of 4"), "{e}");
    }
}
