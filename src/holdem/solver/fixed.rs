//! A solver that holds a fixed strategy instead of running CFR: what strategy files are
//! evaluated with ([`Solver::values`] on the strategy given by [`Solver::set_average_at`]),
//! so a file's exploitability comes from the same walks as the solver's own measurements.

use super::columns::to_columns;
use super::{GameKind, Precision, Solver, State, Stored};
use crate::cfr::RegretParams;
use std::sync::Mutex;

impl Solver {
    /// An evaluator of `game` on `threads` threads: only the average-strategy array is
    /// allocated (uniform until [`Solver::set_average_at`] sets a node); it is not for
    /// [`Solver::iterate`].
    pub fn evaluator(game: super::Game, threads: usize) -> Solver {
        let none = || [Vec::new(), Vec::new()];
        let state = State::<f64> {
            regret: none(),
            sum: [0, 1].map(|p| vec![0.0; game.state_len[p]]),
            last: none(),
            sigma: none(),
            play: none(),
        };
        let pool = (threads > 1).then(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a thread pool")
        });
        let params = RegretParams::vanilla();
        let f = params.factors(1, 0);
        Solver {
            state: Stored::F64(state),
            factors: [f, f],
            game,
            params,
            precision: Precision::F64,
            iterations: 0,
            pool,
            scratch: Mutex::new(Vec::new()),
            zero_reach: true,
            batch: true,
        }
    }

    /// Sets the average strategy at decision node `g` (hand-major, `k` probabilities per
    /// hand, as [`Solver::average_at`] gives them); other nodes are left as they are.
    pub fn set_average_at(&mut self, g: usize, probs: &[f64]) {
        let node = self.game.nodes[g];
        let GameKind::Decision(a) = node.kind else {
            return;
        };
        let a = a as usize;
        let k = node.num_children as usize;
        let len = k * self.game.hands[a].len();
        let at = node.aux as usize;
        // The stored entries are action-major, in the node's order of hands.
        let rows = self.game.rows_from_hands(g, a, k, &probs[..len]);
        let mut cols = vec![0.0; len];
        to_columns(&rows, k, &mut cols);
        match &mut self.state {
            Stored::F64(s) => s.sum[a][at..at + len].copy_from_slice(&cols),
            Stored::F32(s) => {
                for (x, &p) in s.sum[a][at..at + len].iter_mut().zip(&cols) {
                    *x = p as f32;
                }
            }
            Stored::Compressed(c) => c.set_average(g, a, at, k, &cols),
        }
    }
}
