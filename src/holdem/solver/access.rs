//! What a walk asks of the stored state at a decision node, whatever the storage: the current
//! strategy, the average strategy and the set update. [`Shared`] answers from `f32` or `f64`
//! arrays, [`super::compressed::CShared`] from 16-bit entries with per-node scales; the walk is
//! the same code for both.

use super::columns::{average_columns, Real};
use super::{slice, strategy_of, update_node, NodeAt, Shared};
use crate::cfr::tree::Factors;

/// A storage's view of the decision nodes' entries, as the walks read and update them. `g` is
/// the node's index in [`super::Game::nodes`], `a` its actor, `off` the offset of its entries
/// in the actor's arrays, `k` its actions; strategies are written action-major (action `c` of
/// hand `h` at `c * n + h`, `n = out.len() / k`); `tot` (at least `n` long) is scratch.
pub(super) trait Access: Copy + Send + Sync {
    /// The current strategy of the node into `out`; `own`: the node's set update follows
    /// (a storage may fetch what it will read).
    #[allow(clippy::too_many_arguments)]
    fn current(
        self,
        g: usize,
        a: usize,
        off: usize,
        k: usize,
        own: bool,
        out: &mut [f64],
        tot: &mut [f64],
    );

    /// The average strategy of the node into `out`.
    fn average(self, g: usize, a: usize, off: usize, k: usize, out: &mut [f64], tot: &mut [f64]);

    /// The set update of every hand at the traverser's node (see [`update_node`]).
    #[allow(clippy::too_many_arguments)]
    fn update<const KIND: u8>(
        self,
        g: usize,
        a: usize,
        at: NodeAt,
        v: &[f64],
        r: &[f64],
        own: &[f64],
        st: &[f64],
        f: Factors,
    );
}

impl<S: Real> Access for Shared<S> {
    #[inline(always)]
    fn current(
        self,
        _g: usize,
        a: usize,
        off: usize,
        k: usize,
        own: bool,
        out: &mut [f64],
        tot: &mut [f64],
    ) {
        strategy_of(self, a, off, k, own, out, tot)
    }

    #[inline(always)]
    fn average(self, _g: usize, a: usize, off: usize, k: usize, out: &mut [f64], tot: &mut [f64]) {
        // SAFETY: the node's entries; no walk writes them while this one reads.
        let sum = unsafe { slice(self.sum[a], off, out.len()) };
        average_columns(sum, k, out, tot)
    }

    #[inline(always)]
    fn update<const KIND: u8>(
        self,
        _g: usize,
        a: usize,
        at: NodeAt,
        v: &[f64],
        r: &[f64],
        own: &[f64],
        st: &[f64],
        f: Factors,
    ) {
        update_node::<S, KIND>(self, a, at, v, r, own, st, f)
    }
}
