//! The one-card poker contest formats (`docs/problems.md`): the input line `N A B`, and the
//! 4N-line strategy file `<card> <situation>: <action> [<probability>]` listing, for cards 1..N
//! in order, the situations open, check, bet, check-bet.
//!
//! Probabilities are read exactly (decimals as written, and `p/q` fractions as an extension).

use crate::format::text::{quoted, shortened};
use crate::problems::one_card_poker::{OcpParams, OcpStrategy};
use crate::scalar::{format_rational, is_probability, parse_rational, too_many_digits, Rational};
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, Zero};
use std::fmt;

/// The situations in file order.
pub const SITUATIONS: [&str; 4] = ["open", "check", "bet", "check-bet"];

/// The (passive, aggressive) action names of each situation.
pub const ACTIONS: [[&str; 2]; 4] = [
    ["check", "bet"],
    ["check", "bet"],
    ["fold", "call"],
    ["fold", "call"],
];

/// The task's input ranges: 2 <= N <= 50, 1 <= A, B <= 20.
pub const N_RANGE: (usize, usize) = (2, 50);
/// The task's range for A and B.
pub const CHIP_RANGE: (i64, i64) = (1, 20);

/// One problem found in a file, with its 1-based line number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineError {
    /// 1-based line number (one past the last line for "missing" errors).
    pub line: usize,
    /// What is wrong and what was expected.
    pub detail: String,
}

/// Problems found in a file (never empty): the first [`MAX_KEPT_ERRORS`] and the total count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileErrors(pub Vec<LineError>, pub usize);

/// Most digits in one probability of a strategy file: the 1000 decimal places that
/// `bluff one-card-poker --digits` prints at most, with room to spare. Exact scoring of longer
/// numbers grows faster than the file.
pub const MAX_PROBABILITY_DIGITS: usize = 1024;

/// Problems shown in a report (the rest are counted).
pub const MAX_REPORTED_ERRORS: usize = 20;
/// Problems kept in memory (a file of millions of bad lines is counted, not stored).
pub const MAX_KEPT_ERRORS: usize = 1000;

impl fmt::Display for FileErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = MAX_REPORTED_ERRORS.min(self.0.len());
        for (i, e) in self.0.iter().take(shown).enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "line {}: {}", e.line, e.detail)?;
        }
        if self.1 > shown {
            write!(f, "\n... and {} more problems", self.1 - shown)?;
        }
        Ok(())
    }
}

impl std::error::Error for FileErrors {}

fn one_error(line: usize, detail: impl Into<String>) -> FileErrors {
    FileErrors(
        vec![LineError {
            line,
            detail: detail.into(),
        }],
        1,
    )
}

/// Reads the input line `N A B`, checking the task's ranges.
pub fn parse_input(text: &str) -> Result<OcpParams, FileErrors> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((index, line)) = lines.next() else {
        return Err(one_error(1, "empty input; expected one line `N A B`"));
    };
    if let Some((extra, _)) = lines.next() {
        return Err(one_error(
            extra + 1,
            "unexpected extra line; the input is one line `N A B`",
        ));
    }
    let tokens: Vec<&str> = line.split_whitespace().collect();
    if tokens.len() != 3 {
        return Err(one_error(
            index + 1,
            format!(
                "expected three integers `N A B`, found {} fields",
                tokens.len()
            ),
        ));
    }
    let num = |k: usize, name: &str, lo: i64, hi: i64| -> Result<i64, FileErrors> {
        let v: i64 = tokens[k].parse().map_err(|_| {
            let t = tokens[k];
            let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
            let detail = if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                format!(
                    "{name} = {} is outside the task's range {lo}..={hi}",
                    shortened(t)
                )
            } else {
                format!("{name} = {} is not an integer", quoted(t))
            };
            one_error(index + 1, detail)
        })?;
        if v < lo || v > hi {
            return Err(one_error(
                index + 1,
                format!("{name} = {v} is outside the task's range {lo}..={hi}"),
            ));
        }
        Ok(v)
    };
    let n = num(0, "N", N_RANGE.0 as i64, N_RANGE.1 as i64)?;
    let ante = num(1, "A", CHIP_RANGE.0, CHIP_RANGE.1)?;
    let bet = num(2, "B", CHIP_RANGE.0, CHIP_RANGE.1)?;
    Ok(OcpParams {
        n: n as usize,
        ante,
        bet,
    })
}

/// Reads and checks a 4N-line strategy file for `n` cards: every line's order, card number,
/// situation, action name and probability; missing, duplicate and extra lines. Returns each
/// situation's probability of the aggressive action, exactly.
pub fn parse_strategy(text: &str, n: usize) -> Result<OcpStrategy<Rational>, FileErrors> {
    let slot_name = |slot: usize| format!("{} {}", slot / 4 + 1, SITUATIONS[slot % 4]);
    let mut errors = Vec::new();
    let mut total_errors = 0usize;
    let mut err = |line: usize, detail: String| {
        total_errors += 1;
        if errors.len() < MAX_KEPT_ERRORS {
            errors.push(LineError { line, detail });
        }
    };
    let mut probs: Vec<Option<Rational>> = vec![None; 4 * n];
    let mut first_line: Vec<usize> = vec![0; 4 * n];
    let lines: Vec<&str> = text.lines().collect();
    let last_content = lines.iter().rposition(|l| !l.trim().is_empty());
    let mut expected = 0usize;
    for (index, raw) in lines.iter().enumerate() {
        let line_no = index + 1;
        let line = raw.trim();
        if line.is_empty() {
            if Some(index) < last_content {
                err(line_no, "empty line".into());
            }
            continue;
        }
        let Some((head, tail)) = line.split_once(':') else {
            err(
                line_no,
                format!(
                    "expected `<card> <situation>: <action> [<probability>]`, found {}",
                    quoted(line)
                ),
            );
            continue;
        };
        let head: Vec<&str> = head.split_whitespace().collect();
        if head.len() != 2 {
            err(
                line_no,
                format!(
                    "before ':' expected `<card> <situation>`, found {}",
                    quoted(&head.join(" "))
                ),
            );
            continue;
        }
        let card = match head[0].parse::<usize>() {
            Ok(c) if (1..=n).contains(&c) => c,
            Ok(c) => {
                err(line_no, format!("card {c} is outside 1..={n}"));
                continue;
            }
            Err(_) if head[0].bytes().all(|b| b.is_ascii_digit()) => {
                err(
                    line_no,
                    format!("card {} is outside 1..={n}", shortened(head[0])),
                );
                continue;
            }
            Err(_) => {
                err(
                    line_no,
                    format!("card {} is not a whole number", quoted(head[0])),
                );
                continue;
            }
        };
        let Some(sit) = SITUATIONS.iter().position(|&s| s == head[1]) else {
            err(
                line_no,
                format!(
                    "unknown situation {}; expected one of open, check, bet, check-bet",
                    quoted(head[1])
                ),
            );
            continue;
        };
        let slot = (card - 1) * 4 + sit;
        if probs[slot].is_some() || first_line[slot] != 0 {
            err(
                line_no,
                format!(
                    "duplicate line for `{}` (first given on line {})",
                    slot_name(slot),
                    first_line[slot]
                ),
            );
            continue;
        }
        first_line[slot] = line_no;
        if slot != expected {
            let detail = if expected < 4 * n {
                format!(
                    "out of order: expected `{}` here, found `{}`",
                    slot_name(expected),
                    slot_name(slot)
                )
            } else {
                format!("out of order: `{}` after the last line", slot_name(slot))
            };
            err(line_no, detail);
        }
        expected = slot + 1;
        let tail: Vec<&str> = tail.split_whitespace().collect();
        let [passive, aggressive] = ACTIONS[sit];
        let (action, prob_text) = match tail.as_slice() {
            [a] => (*a, None),
            [a, p] => (*a, Some(*p)),
            [] => {
                err(
                    line_no,
                    format!("missing action after ':'; expected {passive} or {aggressive}"),
                );
                continue;
            }
            _ => {
                err(
                    line_no,
                    format!(
                        "expected `<action> [<probability>]` after ':', found {}",
                        quoted(&tail.join(" "))
                    ),
                );
                continue;
            }
        };
        let named_aggressive = if action == aggressive {
            true
        } else if action == passive {
            false
        } else {
            err(
                line_no,
                format!(
                    "action {} is not legal at `{}`; expected {passive} or {aggressive}",
                    quoted(action),
                    SITUATIONS[sit]
                ),
            );
            continue;
        };
        let p = match prob_text {
            None => Rational::one(),
            Some(t) if too_many_digits(t, MAX_PROBABILITY_DIGITS).is_some() => {
                err(
                    line_no,
                    format!(
                        "probability: {}",
                        too_many_digits(t, MAX_PROBABILITY_DIGITS).expect("checked")
                    ),
                );
                continue;
            }
            Some(t) => match parse_rational(t) {
                Some(p) if is_probability(&p) => p,
                Some(_) => {
                    err(
                        line_no,
                        format!("probability {} is outside [0, 1]", shortened(t)),
                    );
                    continue;
                }
                None => {
                    err(
                        line_no,
                        format!("probability {} is not a number (expected a decimal like 0.25 or a fraction like 1/4)", quoted(t)),
                    );
                    continue;
                }
            },
        };
        probs[slot] = Some(if named_aggressive {
            p
        } else {
            Rational::one() - p
        });
    }
    let end_line = lines.len() + 1;
    let missing: Vec<usize> = (0..4 * n).filter(|&s| first_line[s] == 0).collect();
    if !missing.is_empty() {
        let names: Vec<String> = missing.iter().take(8).map(|&s| slot_name(s)).collect();
        err(
            end_line,
            format!(
                "end of file: {} of the {} lines are missing: {}{}",
                missing.len(),
                4 * n,
                names.join(", "),
                if missing.len() > 8 { ", ..." } else { "" }
            ),
        );
    }
    if !errors.is_empty() {
        return Err(FileErrors(errors, total_errors));
    }
    let mut strategy = OcpStrategy::<Rational>::uniform(n);
    for (slot, p) in probs.into_iter().enumerate() {
        strategy.parts_mut()[slot % 4][slot / 4] = p.expect("no line is missing");
    }
    Ok(strategy)
}

/// How [`write_strategy`] prints probabilities.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    /// Decimals rounded to this many places (the task's format).
    Decimal(usize),
    /// Exact fractions `p/q` (an extension the task's own checker may not read).
    Exact,
}

/// `r` rounded to `places` decimal places (half away from zero), trailing zeros dropped.
pub fn format_decimal(r: &Rational, places: usize) -> String {
    let scale = num_traits::pow(BigInt::from(10), places);
    let scaled = r.abs() * Rational::from_integer(scale.clone());
    let rounded = (scaled + Rational::new(BigInt::one(), BigInt::from(2))).floor();
    let digits = rounded.to_integer();
    let (int_part, frac_part) = digits.div_rem(&scale);
    let mut frac = format!("{:0>width$}", frac_part.to_string(), width = places);
    while frac.ends_with('0') {
        frac.pop();
    }
    let sign = if r.is_negative() && !digits.is_zero() {
        "-"
    } else {
        ""
    };
    if frac.is_empty() {
        format!("{sign}{int_part}")
    } else {
        format!("{sign}{int_part}.{frac}")
    }
}

/// The 4N lines of a strategy: each line names the aggressive action with its probability,
/// or just the action when play is pure at the printed precision.
pub fn write_strategy(s: &OcpStrategy<Rational>, precision: Precision) -> String {
    let mut out = String::new();
    for c in 0..s.num_cards() {
        for (sit, part) in s.parts().iter().enumerate() {
            let p = &part[c];
            let text = match precision {
                Precision::Decimal(places) => format_decimal(p, places),
                Precision::Exact => format_rational(p),
            };
            let [passive, aggressive] = ACTIONS[sit];
            let tail = match text.as_str() {
                "1" => aggressive.to_string(),
                "0" => passive.to_string(),
                _ => format!("{aggressive} {text}"),
            };
            out.push_str(&format!("{} {}: {}\n", c + 1, SITUATIONS[sit], tail));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::rat;

    const OFFICIAL: &str = "1 open: check\n1 check: bet 0.5\n1 bet: fold\n1 check-bet: fold 0.9\n2 open: bet 0.8\n2 check: bet\n2 bet: call\n2 check-bet: call 0.8\n";

    #[test]
    fn reads_the_official_example() {
        let s = parse_strategy(OFFICIAL, 2).unwrap();
        assert_eq!(s.open, vec![rat(0, 1), rat(4, 5)]);
        assert_eq!(s.check, vec![rat(1, 2), rat(1, 1)]);
        assert_eq!(s.bet, vec![rat(0, 1), rat(1, 1)]);
        assert_eq!(s.check_bet, vec![rat(1, 10), rat(4, 5)]);
    }

    #[test]
    fn round_trips_exactly_and_in_decimals() {
        let s = parse_strategy(OFFICIAL, 2).unwrap();
        assert_eq!(
            parse_strategy(&write_strategy(&s, Precision::Exact), 2).unwrap(),
            s
        );
        assert_eq!(
            parse_strategy(&write_strategy(&s, Precision::Decimal(6)), 2).unwrap(),
            s
        );
    }

    #[test]
    fn rounds_decimals_half_up() {
        assert_eq!(format_decimal(&rat(2, 3), 4), "0.6667");
        assert_eq!(format_decimal(&rat(1, 8), 2), "0.13");
        assert_eq!(format_decimal(&rat(1, 2), 3), "0.5");
        assert_eq!(format_decimal(&rat(999_999, 1_000_000), 3), "1");
    }

    fn errors(text: &str, n: usize) -> Vec<(usize, String)> {
        parse_strategy(text, n)
            .unwrap_err()
            .0
            .into_iter()
            .map(|e| (e.line, e.detail))
            .collect()
    }

    #[test]
    fn names_each_bad_line() {
        let bad = OFFICIAL.replace("1 bet: fold", "1 bet: check");
        let e = errors(&bad, 2);
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].0, 3);
        assert!(e[0].1.contains("not legal"), "{}", e[0].1);

        let e = errors(&OFFICIAL.replace("bet 0.5", "bet 1.5"), 2);
        assert_eq!((e[0].0, e.len()), (2, 1));
        assert!(e[0].1.contains("outside [0, 1]"));

        let e = errors(&OFFICIAL.replace("1 check-bet: fold 0.9\n", ""), 2);
        assert_eq!(e[0].0, 4);
        assert!(e[0].1.contains("expected `1 check-bet`"), "{}", e[0].1);
        assert!(e.last().unwrap().1.contains("missing: 1 check-bet"));

        let dup = format!("{OFFICIAL}2 check-bet: call\n");
        let e = errors(&dup, 2);
        assert_eq!(
            e,
            vec![(
                9,
                "duplicate line for `2 check-bet` (first given on line 8)".to_string()
            )]
        );

        let e = errors(&OFFICIAL.replace("2 open", "3 open"), 2);
        assert_eq!(e[0].0, 5);
        assert!(e[0].1.contains("card 3 is outside 1..=2"));
    }

    #[test]
    fn reads_input_lines() {
        assert_eq!(
            parse_input("2 2 1\n").unwrap(),
            OcpParams {
                n: 2,
                ante: 2,
                bet: 1
            }
        );
        assert!(parse_input("51 2 1")
            .unwrap_err()
            .to_string()
            .contains("N = 51"));
        assert!(parse_input("2 x 1")
            .unwrap_err()
            .to_string()
            .contains("A = \"x\""));
        assert!(parse_input("").is_err());
        assert!(parse_input("2 2").is_err());
    }
}
