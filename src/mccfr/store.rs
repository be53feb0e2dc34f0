//! Where the traversals' updates go: straight into the tables (one thread), into a log that
//! is applied later in a fixed order (threads), or into a record of counterfactual values that
//! leaves the tables alone (checking that the estimates are unbiased).

use super::table::Table;
use super::walk::Store;
use crate::fxhash::FxMap;

/// How updates change an entry.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Update {
    /// Clamp regrets at 0 after every update (regret matching+).
    pub floor: bool,
    /// Rate of the baselines' exponential average.
    pub baseline_rate: f64,
}

/// Adds `r[b]` to the regrets of the entry at `off` (then floors them with `floor`).
#[inline]
fn apply_regret(t: &mut Table, off: usize, r: impl Iterator<Item = f64>, n: usize, floor: bool) {
    let regrets = &mut t.at_mut(off, n)[..n];
    for (x, d) in regrets.iter_mut().zip(r) {
        *x += d;
        if floor && *x < 0.0 {
            *x = 0.0;
        }
    }
}

#[inline]
fn apply_average(t: &mut Table, off: usize, sigma: &[f64], weight: f64) {
    let n = sigma.len();
    let sums = &mut t.at_mut(off, n)[n..2 * n];
    for (s, &x) in sums.iter_mut().zip(sigma) {
        *s += weight * x;
    }
}

#[inline]
fn apply_baseline(t: &mut Table, off: usize, n: usize, a: usize, value: f64, rate: f64) {
    let b = &mut t.at_mut(off, n)[2 * n + a];
    *b += rate * (value - *b);
}

/// Updates applied at once, entries made on first visit (one thread).
pub(crate) struct Direct<'a> {
    pub tables: &'a mut [Table; 2],
    pub how: Update,
}

impl Store for Direct<'_> {
    #[inline]
    fn table(&self, p: usize) -> &Table {
        &self.tables[p]
    }
    #[inline]
    fn entry(&mut self, p: usize, key: u64, n: usize) -> Option<usize> {
        Some(self.tables[p].find_or_insert(key, n))
    }
    #[inline]
    fn add_regret(&mut self, p: usize, _: u64, off: Option<usize>, cfv: &[f64], value: f64) {
        let off = off.expect("direct stores make every entry");
        let r = cfv.iter().map(|&c| c - value);
        apply_regret(&mut self.tables[p], off, r, cfv.len(), self.how.floor);
    }
    #[inline]
    fn add_average(&mut self, p: usize, _: u64, off: Option<usize>, sigma: &[f64], weight: f64) {
        let off = off.expect("direct stores make every entry");
        apply_average(&mut self.tables[p], off, sigma, weight);
    }
    #[inline]
    fn learn_baseline(&mut self, p: usize, _: u64, off: Option<usize>, n: usize, a: usize, v: f64) {
        let off = off.expect("direct stores make every entry");
        apply_baseline(&mut self.tables[p], off, n, a, v, self.how.baseline_rate);
    }
}

/// What a logged update does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Regret,
    Average,
    Baseline { action: u32 },
}

/// One logged update: its values are the next `n` (or 1 for a baseline) of the log's.
#[derive(Clone, Copy, Debug)]
struct Head {
    op: Op,
    player: u8,
    n: u32,
    key: u64,
    /// The entry's offset when it existed at the start of the round.
    off: Option<usize>,
}

/// Updates of one thread's share of a round, against tables frozen for the round.
#[derive(Default)]
pub(crate) struct Log {
    heads: Vec<Head>,
    values: Vec<f64>,
}

impl Log {
    /// Empties the log (keeping its memory).
    pub fn clear(&mut self) {
        self.heads.clear();
        self.values.clear();
    }

    /// Applies the updates in order, making the entries first seen in this round.
    pub fn apply(&self, tables: &mut [Table; 2], how: Update) {
        let mut at = 0;
        for h in &self.heads {
            let n = h.n as usize;
            let t = &mut tables[h.player as usize];
            let off = match h.off {
                Some(o) => o,
                None => t.find_or_insert(h.key, n),
            };
            match h.op {
                Op::Regret => {
                    apply_regret(
                        t,
                        off,
                        self.values[at..at + n].iter().copied(),
                        n,
                        how.floor,
                    );
                    at += n;
                }
                Op::Average => {
                    apply_average(t, off, &self.values[at..at + n], 1.0);
                    at += n;
                }
                Op::Baseline { action } => {
                    apply_baseline(
                        t,
                        off,
                        n,
                        action as usize,
                        self.values[at],
                        how.baseline_rate,
                    );
                    at += 1;
                }
            }
        }
    }

    /// Bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.heads.capacity() * std::mem::size_of::<Head>() + self.values.capacity() * 8
    }
}

/// Reads frozen tables and writes a [`Log`] (a thread's share of a round).
pub(crate) struct Logging<'a> {
    pub tables: &'a [Table; 2],
    pub log: &'a mut Log,
}

impl Store for Logging<'_> {
    #[inline]
    fn table(&self, p: usize) -> &Table {
        &self.tables[p]
    }
    #[inline]
    fn entry(&mut self, p: usize, key: u64, _: usize) -> Option<usize> {
        self.tables[p].find(key)
    }
    fn add_regret(&mut self, p: usize, key: u64, off: Option<usize>, cfv: &[f64], value: f64) {
        self.log.heads.push(Head {
            op: Op::Regret,
            player: p as u8,
            n: cfv.len() as u32,
            key,
            off,
        });
        self.log.values.extend(cfv.iter().map(|&c| c - value));
    }
    fn add_average(&mut self, p: usize, key: u64, off: Option<usize>, sigma: &[f64], weight: f64) {
        self.log.heads.push(Head {
            op: Op::Average,
            player: p as u8,
            n: sigma.len() as u32,
            key,
            off,
        });
        self.log.values.extend(sigma.iter().map(|&x| weight * x));
    }
    fn learn_baseline(
        &mut self,
        p: usize,
        key: u64,
        off: Option<usize>,
        n: usize,
        a: usize,
        v: f64,
    ) {
        self.log.heads.push(Head {
            op: Op::Baseline { action: a as u32 },
            player: p as u8,
            n: n as u32,
            key,
            off,
        });
        self.log.values.push(v);
    }
}

/// Reads frozen tables and records the traverser's sampled counterfactual values per set.
pub(crate) struct Recording<'a> {
    pub tables: &'a [Table; 2],
    /// Per key of the traverser, the sum of the sampled counterfactual values of its actions.
    pub values: FxMap<u64, Vec<f64>>,
}

impl Store for Recording<'_> {
    fn table(&self, p: usize) -> &Table {
        &self.tables[p]
    }
    fn entry(&mut self, p: usize, key: u64, _: usize) -> Option<usize> {
        self.tables[p].find(key)
    }
    fn add_regret(&mut self, _: usize, key: u64, _: Option<usize>, cfv: &[f64], _: f64) {
        let sums = self
            .values
            .entry(key)
            .or_insert_with(|| vec![0.0; cfv.len()]);
        for (s, &c) in sums.iter_mut().zip(cfv) {
            *s += c;
        }
    }
    fn add_average(&mut self, _: usize, _: u64, _: Option<usize>, _: &[f64], _: f64) {}
    fn learn_baseline(&mut self, _: usize, _: u64, _: Option<usize>, _: usize, _: usize, _: f64) {}
}
