//! Full-traversal CFR with the tree split across processes (shards), bit-identical to
//! [`CfrSolver`] for every number of shards.
//!
//! Why this shape: a shard of a distributed run (a Ray actor in `bluff.ray.solve_sharded`)
//! must compute only part of each iteration's traversal, and the run must still give the
//! single process's bits. The tree is cut at one level into runs of whole subtrees, one per
//! shard (`tree::shard`); each shard traverses only the small top and its own subtrees. A
//! shard built from the game's rules ([`CfrShard::from_rules`], `solve::shards::shard_from_spec`)
//! also holds only those (`tree::partial`: memory about `1 / N` of the tree, plus the
//! information-set tables, which every shard holds whole); a shard of a game with no rules
//! (read from a file) builds the whole game ([`CfrShard::new`]). An iteration is one phase
//! per update (two with alternating updates, one with simultaneous), and a phase is three
//! steps:
//!
//! 1. [`CfrShard::evaluate`] on every shard at once: reaches and values of its subtrees;
//!    returns the values of its nodes on the cut level.
//! 2. [`CfrShard::fold`], shard after shard (a chain): shard 0 takes every shard's cut
//!    values, finishes the top's values and starts the running sums of the instantaneous
//!    regrets (one per action of the updating players) with the top's nodes and its own; each
//!    next shard adds its nodes. The sums are the single process's, term for term in its
//!    order (a set's regret is a sequential sum over its nodes, so independently added
//!    partial sums would round differently).
//! 3. [`CfrShard::apply`] on every shard with the finished sums: the set update of
//!    [`CfrSolver`] (regrets, averages, next strategy), so every shard holds the whole state.
//!
//! Bytes exchanged per phase: the cut level's values (8 per node) once, the running sums
//! (8 per action of the updating players) once per shard along the chain, and again to each
//! shard. A whole state fits [`SolverState`], so each shard's checkpoint is bluff's.

use super::tree::{compile_partial, Applier, Partial, Pass, ShardCut};
use super::tree::{Sets, Tree};
use super::{CfrSolver, Engine, Factors, RegretParams, SolverState};
use crate::error::{fail, Result};
use crate::game::{Game, Rules};
use crate::strategy::{LabelledSet, LabelledStrategy, Profile};

/// One shard of a sharded CFR run (see the module docs).
pub struct CfrShard {
    solver: CfrSolver,
    cut: ShardCut,
    appliers: [Applier; 2],
    shards: usize,
    index: usize,
    /// Nodes of the whole game.
    game_nodes: u64,
    /// A shard compiled from rules: each set's key, per player, by set number.
    keys: Option<[Vec<u64>; 2]>,
    /// A shard compiled from rules: its game's identity in checkpoints
    /// ([`crate::cfr::checkpoint::rules_fingerprint`]).
    fingerprint: Option<u64>,
}

impl CfrShard {
    /// Shard `index` of `shards` of a run of `params` on `game`, from the start.
    pub fn new(game: &Game, params: RegretParams, shards: usize, index: usize) -> Result<Self> {
        game.require_constant_sum("a sharded CFR run")?;
        Self::from_solver(CfrSolver::new(game, params), shards, index)
    }

    /// Shard `index` of `shards`, continuing from `state` (a [`CfrSolver`]'s or any shard's
    /// state: every shard holds the whole state).
    pub fn restore(
        game: &Game,
        params: RegretParams,
        state: &SolverState,
        shards: usize,
        index: usize,
    ) -> Result<Self> {
        game.require_constant_sum("a sharded CFR run")?;
        Self::from_solver(CfrSolver::restore(game, params, state)?, shards, index)
    }

    /// Shard `index` of `shards` of a run of `params` on the game `rules` state, from the
    /// start, holding only its part of the tree (`tree::partial`: the top, the cut level and
    /// its own subtrees, compiled from the rules without the whole game); its results are the
    /// whole-tree shard's bit for bit. Fails on a game whose information sets have nodes on
    /// several levels below the cut.
    pub fn from_rules<R: Rules + ?Sized>(
        rules: &R,
        params: RegretParams,
        shards: usize,
        index: usize,
    ) -> Result<Self> {
        if rules.general_sum() {
            return Err(crate::game::GameError::GeneralSum {
                algo: "a sharded CFR run".into(),
            }
            .into());
        }
        let Partial {
            tree,
            sets,
            cut,
            game_nodes,
            keys,
        } = compile_partial(rules, shards, index, !params.alternating)?;
        let appliers = [Applier::new(&sets[0]), Applier::new(&sets[1])];
        let fingerprint = crate::cfr::checkpoint::rules_fingerprint(
            &rules.name(),
            game_nodes,
            &keys,
            [&sets[0].action_start, &sets[1].action_start],
        );
        Ok(CfrShard {
            solver: CfrSolver::from_tree(tree, sets, params),
            cut,
            appliers,
            shards,
            index,
            game_nodes,
            keys: Some(keys),
            fingerprint: Some(fingerprint),
        })
    }

    /// [`CfrShard::from_rules`] continuing from `state` (any shard's or a [`CfrSolver`]'s).
    pub fn restore_from_rules<R: Rules + ?Sized>(
        rules: &R,
        params: RegretParams,
        state: &SolverState,
        shards: usize,
        index: usize,
    ) -> Result<Self> {
        let mut shard = Self::from_rules(rules, params, shards, index)?;
        shard.load(state)?;
        Ok(shard)
    }

    /// Continues from `state` (any shard's or a [`CfrSolver`]'s of the same game).
    pub fn load(&mut self, state: &SolverState) -> Result<()> {
        self.solver
            .load(state, |p, a| format!("of player {} at action {a}", p + 1))
    }

    /// A shard compiled from rules: each set's key in the rules, per player, in the order of
    /// [`CfrShard::average_profile`]'s sets (the arena's numbering); `None` for a shard of an
    /// arena.
    pub fn set_keys(&self) -> Option<&[Vec<u64>; 2]> {
        self.keys.as_ref()
    }

    /// A shard compiled from rules: the identity of its game in checkpoints (the rules' name,
    /// node count and sets: [`crate::cfr::checkpoint::rules_fingerprint`]), which every
    /// shard of the game computes alike without the whole tree; `None` for a shard of an
    /// arena (its game has [`crate::cfr::checkpoint::game_fingerprint`]).
    pub fn rules_fingerprint(&self) -> Option<u64> {
        self.fingerprint
    }

    fn from_solver(solver: CfrSolver, shards: usize, index: usize) -> Result<Self> {
        let Engine::Tree(ts) = &solver.engine else {
            fail!(Unsupported, "sharded CFR runs the tree kernel only");
        };
        let (tree, sets) = &**ts;
        let cut = ShardCut::new(tree, sets, shards, index)?;
        let appliers = [Applier::new(&sets[0]), Applier::new(&sets[1])];
        let game_nodes = tree.len() as u64;
        Ok(CfrShard {
            solver,
            cut,
            appliers,
            shards,
            index,
            game_nodes,
            keys: None,
            fingerprint: None,
        })
    }

    /// Phases per iteration: 2 with alternating updates, 1 with simultaneous ones.
    pub fn phases(&self) -> usize {
        if self.solver.params.alternating {
            2
        } else {
            1
        }
    }

    /// The pass and the updating players of `phase`.
    fn pass(&self, phase: usize) -> Result<(Pass, std::ops::Range<usize>)> {
        if phase >= self.phases() {
            fail!(
                Invalid,
                "phase {phase}: an iteration has {} phases",
                self.phases()
            );
        }
        Ok(if self.solver.params.alternating {
            (Pass::Learner(phase), phase..phase + 1)
        } else {
            (Pass::Both, 0..2)
        })
    }

    /// Length of the running sums of `phase` (the updating players' actions).
    pub fn sums_len(&self, phase: usize) -> Result<usize> {
        let (_, players) = self.pass(phase)?;
        Ok(players.map(|p| self.solver.regret[p].len()).sum())
    }

    /// Nodes of the cut level (the values [`CfrShard::fold`] takes on shard 0).
    pub fn cut_len(&self) -> usize {
        self.cut.cut_level().len()
    }

    /// Nodes this shard computes below the cut.
    pub fn own_nodes(&self) -> usize {
        self.cut.own_nodes()
    }

    /// Nodes of the tree this shard holds: the whole game's, or (built from rules) the top,
    /// the cut level and its own subtrees.
    pub fn held_nodes(&self) -> usize {
        match &self.solver.engine {
            Engine::Tree(ts) => ts.0.len(),
            Engine::Sequence(_) => 0,
        }
    }

    /// Nodes of the whole game's tree.
    pub fn game_nodes(&self) -> u64 {
        self.game_nodes
    }

    /// The cut level, and this shard's nodes on it (node ids, the same in a whole tree and in
    /// a part: the top and the cut level are whole in both).
    pub fn cut(&self) -> (usize, std::ops::Range<usize>) {
        (self.cut.level(), self.cut.cut_range(self.index))
    }

    /// Step 1 of `phase` (phase 0 starts the next iteration): this shard's reaches and values;
    /// returns its cut-level values, which shard 0 takes (all shards' in shard order).
    pub fn evaluate(&mut self, phase: usize) -> Result<Vec<f64>> {
        let (pass, _) = self.pass(phase)?;
        if phase == 0 {
            self.solver.iterations += 1;
        }
        let (tree, _) = tree_of(&mut self.solver.engine);
        self.cut.evaluate(tree, pass);
        Ok(tree.value[self.cut.cut_range(self.index)].to_vec())
    }

    /// Step 2 of `phase`: adds this shard's terms to the running sums `sums` (shard 0 starts
    /// them from zeros and first finishes the top from `cut`, every shard's cut values in shard
    /// order; the other shards ignore `cut`).
    pub fn fold(&mut self, phase: usize, cut: &[f64], sums: &mut [f64]) -> Result<()> {
        let (pass, players) = self.pass(phase)?;
        if sums.len() != self.sums_len(phase)? {
            fail!(
                Invalid,
                "running sums of {} values; phase {phase} has {}",
                sums.len(),
                self.sums_len(phase)?
            );
        }
        let s = &mut self.solver;
        let (tree, sets) = tree_of(&mut s.engine);
        if self.index == 0 {
            if cut.len() != self.cut.cut_level().len() {
                fail!(
                    Invalid,
                    "{} cut-level values; the cut level has {} nodes",
                    cut.len(),
                    self.cut.cut_level().len()
                );
            }
            self.cut.finish_top(tree, cut);
        }
        let mut at = 0;
        for p in players {
            let len = s.regret[p].len();
            let reach = if pass == Pass::Both && p == 1 {
                &tree.reach2
            } else {
                &tree.reach
            };
            self.cut
                .fold(tree, &sets[p], p, reach, &mut sums[at..at + len]);
            at += len;
        }
        Ok(())
    }

    /// Step 3 of `phase`: the set update of its players from the finished sums.
    pub fn apply(&mut self, phase: usize, sums: &[f64]) -> Result<()> {
        let (pass, players) = self.pass(phase)?;
        if sums.len() != self.sums_len(phase)? {
            fail!(
                Invalid,
                "{} regret sums; phase {phase} has {}",
                sums.len(),
                self.sums_len(phase)?
            );
        }
        let s = &mut self.solver;
        let t = s.iterations;
        let f0 = s.params.factors(t, 0);
        let f = [
            f0,
            Factors {
                sign: -1.0,
                reach2: pass == Pass::Both,
                ..f0
            },
        ];
        // Own reaches from the strategies this phase played (both before either update).
        let (tree, sets) = tree_of(&mut s.engine);
        for p in players.clone() {
            sets[p].own_reach(&tree.probs);
        }
        let mut at = 0;
        for p in players {
            let len = s.regret[p].len();
            self.appliers[p].apply(
                tree,
                &sets[p],
                &sums[at..at + len],
                &mut s.regret[p],
                &mut s.strategy_sum[p],
                &mut s.last_regret[p],
                f[p],
            );
            at += len;
        }
        Ok(())
    }

    /// Iterations done (counting the one under way).
    pub fn iterations(&self) -> u64 {
        self.solver.iterations
    }

    /// The whole solver state (every shard holds the same).
    pub fn state(&self) -> SolverState {
        self.solver.state()
    }

    /// The weighted average strategy.
    pub fn average_profile(&self) -> Profile<f64> {
        self.solver.average_profile()
    }

    /// The strategy the next iteration plays.
    pub fn current_profile(&self) -> Profile<f64> {
        self.solver.current_profile()
    }

    /// The parameters in use.
    pub fn params(&self) -> RegretParams {
        self.solver.params
    }

    /// Runs `iterations` iterations of `shards`, all in this process, the way a distributed
    /// driver does (evaluate on all, fold along the chain, apply on all); for tests and as the
    /// reference driver. Returns the bytes exchanged per iteration.
    pub fn run_in_process(shards: &mut [CfrShard], iterations: u64) -> Result<u64> {
        let Some(first) = shards.first() else {
            fail!(Invalid, "no shard");
        };
        let phases = first.phases();
        let mut bytes = 0u64;
        for _ in 0..iterations {
            bytes = 0;
            for phase in 0..phases {
                let mut cut = Vec::new();
                for s in shards.iter_mut() {
                    let v = s.evaluate(phase)?;
                    bytes += 8 * v.len() as u64;
                    cut.extend(v);
                }
                let mut sums = vec![0.0; shards[0].sums_len(phase)?];
                for s in shards.iter_mut() {
                    s.fold(phase, &cut, &mut sums)?;
                    bytes += 8 * sums.len() as u64;
                }
                for s in shards.iter_mut() {
                    s.apply(phase, &sums)?;
                    bytes += 8 * sums.len() as u64;
                }
            }
        }
        Ok(bytes)
    }

    /// Which shard this is, of how many.
    pub fn position(&self) -> (usize, usize) {
        (self.index, self.shards)
    }
}

/// The tree and sets of a shard's solver, which [`CfrShard::from_solver`] checked runs the tree
/// kernel.
fn tree_of(engine: &mut Engine) -> (&mut Tree, &mut [Sets; 2]) {
    match engine {
        Engine::Tree(ts) => {
            let (tree, sets) = &mut **ts;
            (tree, sets)
        }
        Engine::Sequence(_) => unreachable!("a shard's solver runs the tree kernel"),
    }
}

/// A profile in the arena's numbering as a strategy of the rules it was compiled from: each
/// set found by its key (a set absent from the profile plays uniformly).
struct KeyedProfile<'a> {
    /// Per player, key to (first action, number of actions).
    index: [crate::fxhash::FxMap<u64, (usize, usize)>; 2],
    probs: &'a [Vec<f64>; 2],
}

impl crate::streaming::Strategy<f64> for KeyedProfile<'_> {
    fn probs(&self, player: usize, key: u64, n: usize, out: &mut [f64]) {
        match self.index[player].get(&key) {
            Some(&(start, len)) if len == n => {
                out.copy_from_slice(&self.probs[player][start..start + n]);
            }
            _ => out.iter_mut().for_each(|x| *x = 1.0 / n as f64),
        }
    }
}

/// What [`rules_result`] gives: the labelled strategy and, when asked, its exploitability.
pub struct RulesResult {
    /// Every set's average strategy, labelled through [`Rules::key_state`], in key order
    /// (without action labels unless asked).
    pub labelled: LabelledStrategy,
    /// Its exploitability by the streaming best response, when asked.
    pub exploitability: Option<f64>,
    /// Wall time of that best response, seconds.
    pub best_response_seconds: f64,
}

/// A sharded run's average strategy on the game `rules` state, from shard 0's
/// [`CfrShard::set_keys`] and [`CfrShard::average_profile`], with no whole tree: every set
/// labelled through [`Rules::key_state`] (its actions too when `action_labels`: a caller that
/// keys probabilities by action order saves their memory, some 30 bytes per action) and, with
/// `evaluate`, the strategy's exploitability
/// by the streaming best response ([`crate::streaming::best_responses`] on `threads`
/// threads), which equals the arena's best response to rounding (exactly in rationals; see
/// [`crate::streaming`]) and has the same bits on any number of threads.
pub fn rules_result<R: Rules>(
    rules: &R,
    keys: &[Vec<u64>; 2],
    profile: &Profile<f64>,
    action_labels: bool,
    evaluate: bool,
    threads: usize,
) -> Result<RulesResult> {
    let mut index: [crate::fxhash::FxMap<u64, (usize, usize)>; 2] = Default::default();
    let mut sets = [Vec::new(), Vec::new()];
    for p in 0..2 {
        let probs = &profile.probs[p];
        let mut at = 0usize;
        index[p].reserve(keys[p].len());
        let mut out = Vec::with_capacity(keys[p].len());
        for &key in &keys[p] {
            let set = LabelledSet::from_key(rules, p, key, action_labels, |n| {
                if at + n > probs.len() {
                    fail!(
                        Invalid,
                        "player {}'s profile has {} probabilities, fewer than the {} sets of \
                         the rules of {} need",
                        p + 1,
                        probs.len(),
                        keys[p].len(),
                        rules.name()
                    );
                }
                Ok(probs[at..at + n].to_vec())
            })?;
            index[p].insert(key, (at, set.probs.len()));
            at += set.probs.len();
            out.push(set);
        }
        if at != probs.len() {
            fail!(
                Invalid,
                "player {}'s profile has {} probabilities; the {} sets of the rules of {} have \
                 {at} actions",
                p + 1,
                probs.len(),
                keys[p].len(),
                rules.name()
            );
        }
        out.sort_unstable_by_key(|s| s.key);
        sets[p] = out;
    }
    let (exploitability, best_response_seconds) = if evaluate {
        let strategy = KeyedProfile {
            index,
            probs: &profile.probs,
        };
        let br = crate::streaming::best_responses::<_, f64, _>(rules, &strategy, threads)?;
        (Some(br.exploitability), br.seconds)
    } else {
        (None, 0.0)
    };
    Ok(RulesResult {
        labelled: LabelledStrategy {
            player_names: rules.player_names(),
            sets,
        },
        exploitability,
        best_response_seconds,
    })
}
