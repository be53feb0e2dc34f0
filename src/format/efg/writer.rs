//! The `.efg` writer: an [`EfgGame`] as text Gambit reads back.

use super::{EfgGame, EfgNodeKind};
use crate::error::{fail, Error, Result};
use crate::scalar::format_rational;

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
        fail!(Invalid, "label {label:?} cannot be written for Gambit: its reader changes a backslash that ends a label or stands before a quote or another backslash");
    }
    Ok(format!("\"{}\"", label.replace('"', "\\\"")))
}

/// Writes an [`EfgGame`] as `.efg` text that Gambit (and [`read_efg`](super::read_efg)) read back unchanged,
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
        fail!(Invalid, "the game has no nodes");
    }
    let mut stack = vec![0usize];
    let mut visited = 0usize;
    while let Some(n) = stack.pop() {
        visited += 1;
        if visited > game.nodes.len() {
            fail!(
                Invalid,
                "the node graph is not a tree (a node is reached twice)"
            );
        }
        let node = game
            .nodes
            .get(n)
            .ok_or_else(|| Error::Invalid(format!("child index {n} is not a node")))?;
        let expected = match &node.kind {
            EfgNodeKind::Chance { infoset } => {
                let set = game.chance_infosets.get(*infoset).ok_or_else(|| {
                    Error::Invalid(format!("node {n}: no chance information set {infoset}"))
                })?;
                out.push_str(&format!("c {} {}", quote_label(&node.name)?, set.id));
                out.push_str(&format!(" {} {{", quote_label(&set.label)?));
                if set.actions.len() != set.probs.len() {
                    fail!(
                        Invalid,
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
                        Error::Invalid(format!(
                            "node {n}: no information set {infoset} of player index {player}"
                        ))
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
            fail!(
                Invalid,
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
                    .ok_or_else(|| Error::Invalid(format!("node {n}: no outcome {o}")))?;
                out.push_str(&format!(" {}", oc.id));
                if oc.payoffs.len() != game.players.len() {
                    fail!(
                        Invalid,
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
        fail!(
            Invalid,
            "{} nodes are not reachable from the root",
            game.nodes.len() - visited
        );
    }
    Ok(out)
}
