//! Heads-up no-limit hold'em spots: cards, the hand evaluator, ranges, the spot file and the
//! public action tree.
//!
//! This module stands on its own: the rest of the library does not depend on it. See
//! `docs/holdem.md` for what exists and what does not yet.

pub mod cards;
pub mod checkpoint;
pub mod eval;
pub mod iso;
pub mod range;
pub mod reference;
pub mod report;
pub mod river_lp;
pub mod showdown;
pub mod solver;
pub mod spot;
pub mod strategy_file;
pub mod tree;

/// Why a card, board, deck, range, spot or node path was refused; each message names the
/// offending key or token.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HoldemError {
    /// A card that is not two characters like `Qs`.
    #[error("card `{0}`: not a card (a rank in 23456789TJQKA and a suit in cdhs, e.g. Qs)")]
    Card(String),
    /// The same card twice where cards must be distinct.
    #[error("card {0} appears twice")]
    RepeatedCard(String),
    /// A deck that is not `RANKS/SUITS`.
    #[error("deck `{0}`: expected ranks/suits such as 9TJQKA/sh, each rank and suit once")]
    Deck(String),
    /// A board that is not 3 to 5 distinct cards of the deck.
    #[error("board `{board}`: {reason}")]
    Board {
        /// The board as written.
        board: String,
        /// What is wrong.
        reason: String,
    },
    /// A range token that was refused.
    #[error("range token `{token}`: {reason}")]
    Range {
        /// The token as written.
        token: String,
        /// What is wrong.
        reason: String,
    },
    /// A range with no combo left once the board's cards are removed.
    #[error("range `{0}` is empty once the combos that use a board card are removed")]
    EmptyRange(String),
    /// A key of a spot file that was refused.
    #[error("spot key `{key}`: {reason}")]
    Spot {
        /// The key.
        key: String,
        /// What is wrong, naming the token.
        reason: String,
    },
    /// A spot file that is not TOML.
    #[error("spot file: {0}")]
    Toml(String),
    /// A tree larger than the limit, refused before it is built.
    #[error("the action tree has more than {limit} nodes")]
    TreeTooBig {
        /// The limit on nodes.
        limit: usize,
    },
    /// A node path that does not name a node of the tree.
    #[error("node path `{path}`: {reason}")]
    Path {
        /// The path as written.
        path: String,
        /// What is wrong.
        reason: String,
    },
}
