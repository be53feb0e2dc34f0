//! `bluff shrek-donkey`: the card-guessing game of Codeforces 98E.
//!
//! Floats are printed as the DP's `f64` value rounded to the nearest multiple of 1e-12, in the
//! shortest decimal that reads back as that double (so 1/4 prints `0.25`, 1 prints `1`). The DP's
//! own rounding error grows by a few ulps per layer of states (the value of a matrix game is
//! 1-Lipschitz in its entries), below 2e-12 even at m = n = 1000, so the printed value is within
//! 3e-12 of the exact one.

use anyhow::{bail, Context, Result};
use bluff::format::text::quoted;
use bluff::problems::card_guessing::explicit::{certify_dp, MAX_EXPLICIT_CARDS};
use bluff::problems::card_guessing::{CardGuessing, StateStrategy, MAX_HAND};
use bluff::scalar::{format_rational, rational_to_f64, Rational, Scalar};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{json, Value};

/// Largest `m + n` solved in exact rationals (m + n = 26 takes about 3.5 s; the numbers have
/// about 28 000 digits, and every two more cards multiply the time by about six).
pub const MAX_EXACT_CARDS: usize = 26;

/// Arguments of `bluff shrek-donkey`.
#[derive(Args, Debug)]
pub struct ShrekDonkeyArgs {
    /// Shrek's number of cards, 0..=1000 (without --m and --n, `m n` is read from stdin).
    #[arg(long, allow_negative_numbers = true)]
    m: Option<String>,
    /// Donkey's number of cards, 0..=1000.
    #[arg(long, allow_negative_numbers = true)]
    n: Option<String>,
    /// Compute in exact rationals (m + n <= 26).
    #[arg(long)]
    exact: bool,
    /// Also print the equilibrium of every state reachable from the start.
    #[arg(long)]
    strategy: bool,
    /// Print the equilibrium of one state `OWN,OPP` (the mover's and the responder's live cards);
    /// m and n are then optional.
    #[arg(long, value_name = "OWN,OPP", allow_hyphen_values = true)]
    state: Option<String>,
    /// With --strategy, print at most this many states.
    #[arg(long, default_value_t = 40)]
    max_rows: usize,
    /// Build the explicit extensive-form game (m + n <= 5) and certify the DP's strategies in it
    /// with exact best responses; for m + n <= 3 also solve it by the exact sequence-form LP.
    #[arg(long)]
    check: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Parses a hand size, naming `what` in errors.
fn parse_hand(text: &str, what: &str) -> Result<usize> {
    let t = text.trim();
    let v: i64 = t.parse().map_err(|_| {
        anyhow::anyhow!(
            "{what}: expected a whole number in 0..={MAX_HAND}, got {}",
            quoted(t)
        )
    })?;
    if v < 0 || v > MAX_HAND as i64 {
        bail!("{what} = {v} is out of range 0..={MAX_HAND}");
    }
    Ok(v as usize)
}

/// Reads `m n` from text (stdin): exactly two whitespace-separated whole numbers.
pub fn parse_input(text: &str) -> Result<(usize, usize)> {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    match tokens.len() {
        0 => bail!("stdin: expected two whole numbers `m n`, got nothing"),
        1 => bail!(
            "stdin: expected two whole numbers `m n`, got only {}",
            quoted(tokens[0])
        ),
        2 => Ok((
            parse_hand(tokens[0], "m (first value on stdin)")?,
            parse_hand(tokens[1], "n (second value on stdin)")?,
        )),
        k => bail!(
            "stdin: expected exactly two whole numbers `m n`, got {k} values (the third: {})",
            quoted(tokens[2])
        ),
    }
}

fn parse_state(text: &str) -> Result<(usize, usize)> {
    let parts: Vec<&str> = text.split(',').collect();
    if parts.len() != 2 {
        bail!(
            "--state: expected OWN,OPP (two whole numbers separated by a comma), got {}",
            quoted(text)
        );
    }
    Ok((
        parse_hand(parts[0], "--state OWN")?,
        parse_hand(parts[1], "--state OPP")?,
    ))
}

/// Formats a probability as documented in the module: rounded to 1e-12, shortest round trip.
pub fn format_probability(x: f64) -> String {
    let r = (x * 1e12).round() / 1e12;
    // `+ 0.0` turns a negative zero into zero.
    format!("{}", r + 0.0)
}

/// How numbers of one kind are shown.
trait Show: Scalar {
    fn show(&self) -> String;
    fn as_json(&self) -> Value;
}

impl Show for f64 {
    fn show(&self) -> String {
        format_probability(*self)
    }
    fn as_json(&self) -> Value {
        json!(self)
    }
}

impl Show for Rational {
    fn show(&self) -> String {
        format_rational(self)
    }
    fn as_json(&self) -> Value {
        json!({"exact": format_rational(self), "float": rational_to_f64(self)})
    }
}

fn solve<T: Scalar>(m: usize, n: usize, exact: bool) -> CardGuessing<T> {
    if !exact {
        return CardGuessing::solve(m, n);
    }
    let bar = ProgressBar::new((m + n + 1) as u64);
    bar.set_style(
        ProgressStyle::with_template("exact DP {bar:30} layer {pos}/{len} {elapsed}")
            .expect("valid template"),
    );
    let t = CardGuessing::solve_with_progress(m, n, |done, _| bar.set_position(done as u64));
    bar.finish_and_clear();
    t
}

fn state_row<T: Show>(s: &StateStrategy<T>, mover: Option<&str>) -> Vec<String> {
    let mut row = Vec::new();
    if let Some(mover) = mover {
        row.push(mover.to_string());
    }
    row.extend([
        s.own.to_string(),
        s.opp.to_string(),
        s.kind.name().to_string(),
        s.value.show(),
        s.guess.show(),
        s.honest.show(),
        s.bluff.show(),
        s.believe.show(),
    ]);
    row
}

fn state_json<T: Show>(s: &StateStrategy<T>, mover: Option<&str>) -> Value {
    let mut v = json!({
        "own": s.own, "opp": s.opp, "kind": s.kind.name(), "value": s.value.as_json(),
        "guess": s.guess.as_json(), "honest": s.honest.as_json(), "bluff": s.bluff.as_json(),
        "believe": s.believe.as_json(),
    });
    if let Some(mover) = mover {
        v["mover"] = json!(mover);
    }
    v
}

fn print_table(header: &[&str], rows: &[Vec<String>]) {
    let mut width: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for r in rows {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.len());
        }
    }
    let line = |cells: Vec<&str>| {
        let parts: Vec<String> = cells
            .iter()
            .zip(&width)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        println!("{}", parts.join("  ").trim_end());
    };
    line(header.to_vec());
    for r in rows {
        line(r.iter().map(String::as_str).collect());
    }
}

const STATE_HEADER: [&str; 8] = [
    "own", "opp", "kind", "value", "guess", "honest", "bluff", "believe",
];

const LEGEND: &str = "own/opp: live cards of the mover/responder; value: the mover's win \
probability; guess/honest/bluff: the mover guesses, names an unseen card, names an own card \
(each uniformly over its cards); believe: the responder guesses a name it cannot refute";

/// Runs the command.
pub fn run(args: ShrekDonkeyArgs) -> Result<()> {
    let hands = match (&args.m, &args.n) {
        (Some(m), Some(n)) => Some((parse_hand(m, "--m")?, parse_hand(n, "--n")?)),
        (Some(_), None) => bail!("--m was given without --n; give both, or `m n` on stdin"),
        (None, Some(_)) => bail!("--n was given without --m; give both, or `m n` on stdin"),
        (None, None) if args.state.is_some() => None,
        (None, None) => Some(parse_input(&crate::files::read_stdin("`m n`")?)?),
    };
    let state = args.state.as_deref().map(parse_state).transpose()?;
    for (what, (a, b)) in [("m + n", hands), ("--state OWN + OPP", state)]
        .into_iter()
        .filter_map(|(w, h)| h.map(|h| (w, h)))
    {
        if args.exact && a + b > MAX_EXACT_CARDS {
            bail!(
                "--exact: {what} = {} exceeds {MAX_EXACT_CARDS} (the exact fractions grow to \
                 tens of thousands of digits and the time sixfold per two cards); drop --exact \
                 for the f64 answer, accurate to 3e-12",
                a + b
            );
        }
    }
    if args.check {
        match hands {
            Some((m, n)) if m + n <= MAX_EXPLICIT_CARDS => {}
            Some((m, n)) => bail!(
                "--check builds the explicit game only for m + n <= {MAX_EXPLICIT_CARDS} \
                 (got {})",
                m + n
            ),
            None => bail!("--check needs m and n"),
        }
    }
    if args.exact {
        report::<Rational>(&args, hands, state)
    } else {
        report::<f64>(&args, hands, state)
    }
}

fn report<T: Show>(
    args: &ShrekDonkeyArgs,
    hands: Option<(usize, usize)>,
    state: Option<(usize, usize)>,
) -> Result<()> {
    let mut out = serde_json::Map::new();
    if let Some((m, n)) = hands {
        let table = solve::<T>(m, n, args.exact);
        let (shrek, donkey) = table.win_probabilities();
        if args.json {
            out.insert("m".into(), json!(m));
            out.insert("n".into(), json!(n));
            out.insert("shrek".into(), shrek.as_json());
            out.insert("donkey".into(), donkey.as_json());
            if !args.exact {
                out.insert(
                    "printed".into(),
                    json!(format!("{} {}", shrek.show(), donkey.show())),
                );
            }
        } else {
            println!("{} {}", shrek.show(), donkey.show());
        }
        if args.strategy {
            let states = table.reachable_states();
            let shown: Vec<(StateStrategy<T>, &str)> = states
                .iter()
                .take(args.max_rows)
                .map(|&(own, opp, shrek)| {
                    let s = table
                        .strategy(own, opp)
                        .expect("reachable states are solved");
                    (s, if shrek { "Shrek" } else { "Donkey" })
                })
                .collect();
            if args.json {
                let rows: Vec<Value> = shown.iter().map(|(s, w)| state_json(s, Some(w))).collect();
                out.insert("states_reachable".into(), json!(states.len()));
                out.insert("states".into(), json!(rows));
            } else {
                println!();
                println!(
                    "equilibrium of the {} states reachable from ({m}, {n}){}",
                    states.len(),
                    if states.len() > shown.len() {
                        format!(", first {} (raise --max-rows for more)", shown.len())
                    } else {
                        String::new()
                    }
                );
                println!("{LEGEND}");
                let mut header = vec!["mover"];
                header.extend(STATE_HEADER);
                let rows: Vec<Vec<String>> =
                    shown.iter().map(|(s, w)| state_row(s, Some(w))).collect();
                print_table(&header, &rows);
            }
        }
        if args.check {
            check(m, n, args.json, &mut out)?;
        }
    }
    if let Some((own, opp)) = state {
        let s = solve::<T>(own, opp, args.exact)
            .strategy(own, opp)
            .expect("the start state is solved");
        if args.json {
            out.insert("state".into(), state_json(&s, None));
        } else {
            if hands.is_some() {
                println!();
            }
            println!("{LEGEND}");
            print_table(&STATE_HEADER, &[state_row(&s, None)]);
            if let Some(a) = &s.matrix {
                println!(
                    "matrix (rows honest, bluff; columns believe, disbelieve): [[{}, {}], [{}, {}]]",
                    a[0][0].show(),
                    a[0][1].show(),
                    a[1][0].show(),
                    a[1][1].show()
                );
            }
        }
    }
    if args.json {
        crate::print_json(&Value::Object(out));
    }
    Ok(())
}

/// Certifies the DP's strategies in the explicit game (`bluff::problems::card_guessing::
/// explicit::certify_dp`) and presents the certificate; fails unless it holds.
fn check(
    m: usize,
    n: usize,
    json_out: bool,
    out: &mut serde_json::Map<String, Value>,
) -> Result<()> {
    // A spinner: m + n = 5 takes several seconds (hidden when stderr is not a terminal).
    let spinner = ProgressBar::new_spinner();
    spinner.enable_steady_tick(std::time::Duration::from_millis(120));
    let c = certify_dp(m, n, |stage| spinner.set_message(stage.to_string()));
    spinner.finish_and_clear();
    let c = c.context("building the explicit game")?;
    let ok = c.certified();
    let secs = c.seconds;
    if json_out {
        out.insert(
            "check".into(),
            json!({
                "nodes": c.nodes, "infosets": c.infosets,
                "value": format_rational(&c.value), "dp_value": format_rational(&c.dp_value),
                "nash_conv": format_rational(&c.nash_conv), "certified": ok, "seconds": secs,
                "lp_value": c.lp.as_ref().map(|(v, _)| format_rational(v)),
                "lp_seconds": c.lp.as_ref().map(|(_, t)| *t),
            }),
        );
    } else {
        println!();
        println!(
            "explicit game ({}): the DP's strategies have value {} \
             and NashConv {} (exact best responses, {secs:.2} s)",
            crate::plural(c.nodes, "node", "nodes")
                + ", "
                + &crate::plural(c.infosets, "information set", "information sets"),
            format_rational(&c.value),
            format_rational(&c.nash_conv),
        );
        if let Some((v, t)) = &c.lp {
            println!(
                "exact sequence-form LP on the explicit game: value {} ({t:.2} s)",
                format_rational(v)
            );
        }
    }
    if !ok {
        bail!(
            "check failed: explicit-game value {} vs DP {}, NashConv {}{}",
            format_rational(&c.value),
            format_rational(&c.dp_value),
            format_rational(&c.nash_conv),
            c.lp.map_or(String::new(), |(v, _)| format!(
                ", LP value {}",
                format_rational(&v)
            ))
        );
    }
    if !json_out {
        println!("certified: an exact equilibrium of the explicit game with the DP's value");
    }
    Ok(())
}
