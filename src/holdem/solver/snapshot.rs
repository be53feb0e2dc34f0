//! The solver's state as a checkpoint keeps it ([`crate::holdem::checkpoint`]): its arrays by
//! name, read and written in place, and the iteration count, from which every other part of
//! the state (each player's last factors) follows.

use super::{Solver, State, Stored};

/// A state array in its stored precision.
pub enum ArrayRef<'a> {
    /// 4-byte entries.
    F32(&'a [f32]),
    /// 8-byte entries.
    F64(&'a [f64]),
    /// Compressed regrets: 2-byte signed steps.
    I16(&'a [i16]),
    /// Compressed sums: 2-byte unsigned steps.
    U16(&'a [u16]),
}

/// A state array in its stored precision, to be overwritten.
pub enum ArrayMut<'a> {
    /// 4-byte entries.
    F32(&'a mut [f32]),
    /// 8-byte entries.
    F64(&'a mut [f64]),
    /// Compressed regrets: 2-byte signed steps.
    I16(&'a mut [i16]),
    /// Compressed sums: 2-byte unsigned steps.
    U16(&'a mut [u16]),
}

impl ArrayRef<'_> {
    /// Its entries.
    pub fn len(&self) -> usize {
        match self {
            ArrayRef::F32(x) => x.len(),
            ArrayRef::F64(x) => x.len(),
            ArrayRef::I16(x) => x.len(),
            ArrayRef::U16(x) => x.len(),
        }
    }

    /// Bytes per entry.
    pub fn width(&self) -> u64 {
        match self {
            ArrayRef::F32(_) => 4,
            ArrayRef::F64(_) => 8,
            ArrayRef::I16(_) | ArrayRef::U16(_) => 2,
        }
    }

    /// Whether it has no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl ArrayMut<'_> {
    /// Its entries.
    pub fn len(&self) -> usize {
        match self {
            ArrayMut::F32(x) => x.len(),
            ArrayMut::F64(x) => x.len(),
            ArrayMut::I16(x) => x.len(),
            ArrayMut::U16(x) => x.len(),
        }
    }

    /// Bytes per entry.
    pub fn width(&self) -> u64 {
        match self {
            ArrayMut::F32(_) => 4,
            ArrayMut::F64(_) => 8,
            ArrayMut::I16(_) | ArrayMut::U16(_) => 2,
        }
    }

    /// Whether it has no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The names of the kept arrays, in file order (each followed by the player, `regret0`).
const KEPT: [&str; 4] = ["regret", "sum", "last", "sigma"];

/// The arrays a run continues from, by name: regrets, average sums, the last instantaneous
/// regrets (predictive rules, VAD-CFR) and VAD-CFR's stored strategy, per player; empty ones
/// (a rule that keeps none) left out. The simultaneous updates' `play` copy is refilled at
/// the start of every iteration, so it is not kept.
fn named<S>(s: &State<S>) -> Vec<(String, &Vec<S>)> {
    let mut out = Vec::new();
    for (name, arrays) in KEPT.into_iter().zip([&s.regret, &s.sum, &s.last, &s.sigma]) {
        for (p, a) in arrays.iter().enumerate() {
            if !a.is_empty() {
                out.push((format!("{name}{p}"), a));
            }
        }
    }
    out
}

impl Solver {
    /// The state arrays a checkpoint keeps, in order, by name.
    pub fn state_arrays(&self) -> Vec<(String, ArrayRef<'_>)> {
        match &self.state {
            Stored::F32(s) => named(s)
                .into_iter()
                .map(|(n, a)| (n, ArrayRef::F32(a)))
                .collect(),
            Stored::F64(s) => named(s)
                .into_iter()
                .map(|(n, a)| (n, ArrayRef::F64(a)))
                .collect(),
            Stored::Compressed(c) => c.arrays(),
        }
    }

    /// The state arrays of [`Solver::state_arrays`], in the same order, to be overwritten.
    pub fn state_arrays_mut(&mut self) -> Vec<(String, ArrayMut<'_>)> {
        fn split<'a, S>(
            s: &'a mut State<S>,
            wrap: impl Fn(&'a mut [S]) -> ArrayMut<'a>,
        ) -> Vec<(String, ArrayMut<'a>)> {
            let mut out = Vec::new();
            let arrays = [&mut s.regret, &mut s.sum, &mut s.last, &mut s.sigma];
            for (name, arrays) in KEPT.into_iter().zip(arrays) {
                for (p, a) in arrays.iter_mut().enumerate() {
                    if !a.is_empty() {
                        out.push((format!("{name}{p}"), wrap(a)));
                    }
                }
            }
            out
        }
        match &mut self.state {
            Stored::F32(s) => split(s, ArrayMut::F32),
            Stored::F64(s) => split(s, ArrayMut::F64),
            Stored::Compressed(c) => c.arrays_mut(),
        }
    }

    /// Sets the iterations done (a run restored from a checkpoint), and with them each
    /// player's last factors, as [`Solver::iterate`] leaves them after iteration `t`.
    pub fn set_iterations(&mut self, t: u64) {
        self.iterations = t;
        let f = self.params.factors(t.max(1), 0);
        self.factors = [f, f];
    }
}
