//! A CFR run split into shards across processes (`bluff.ray.solve_sharded`), for a game named
//! by its spec: the catalog's rules are looked up here, in the solve layer, and handed to the
//! engine's [`CfrShard`], which never names a game.

use crate::cfr::{rules_result, CfrShard, RegretParams, RulesResult, SolverState};
use crate::error::Result;
use crate::game::Rules;
use crate::games::WithRules;
use crate::strategy::Profile;

/// Shard `index` of `shards` of the built-in game `spec` from its rules (see
/// [`CfrShard::from_rules`]), from the start or from `state`; `None` when the game has
/// no rules (a file, or a game stated only as an arena): build the whole game and use
/// [`CfrShard::new`] then.
pub fn shard_from_spec(
    spec: &str,
    params: RegretParams,
    shards: usize,
    index: usize,
    state: Option<&SolverState>,
) -> Result<Option<CfrShard>> {
    /// The work on the rules, whatever their type.
    struct Make<'a> {
        params: RegretParams,
        shards: usize,
        index: usize,
        state: Option<&'a SolverState>,
    }
    impl WithRules for Make<'_> {
        type Output = Result<CfrShard>;
        fn run<G: Rules>(self, rules: &G) -> Result<CfrShard> {
            match self.state {
                None => CfrShard::from_rules(rules, self.params, self.shards, self.index),
                Some(s) => {
                    CfrShard::restore_from_rules(rules, self.params, s, self.shards, self.index)
                }
            }
        }
    }
    let Some(rules) = crate::games::rules(spec)? else {
        return Ok(None);
    };
    rules
        .with(Make {
            params,
            shards,
            index,
            state,
        })
        .map(Some)
}

/// [`rules_result`] on the built-in game `spec`'s rules; `None` when it has none.
pub fn rules_result_for_spec(
    spec: &str,
    keys: &[Vec<u64>; 2],
    profile: &Profile<f64>,
    action_labels: bool,
    evaluate: bool,
    threads: usize,
) -> Result<Option<RulesResult>> {
    /// The work on the rules, whatever their type.
    struct Work<'a> {
        keys: &'a [Vec<u64>; 2],
        profile: &'a Profile<f64>,
        action_labels: bool,
        evaluate: bool,
        threads: usize,
    }
    impl WithRules for Work<'_> {
        type Output = Result<RulesResult>;
        fn run<G: Rules>(self, rules: &G) -> Result<RulesResult> {
            rules_result(
                rules,
                self.keys,
                self.profile,
                self.action_labels,
                self.evaluate,
                self.threads,
            )
        }
    }
    let Some(rules) = crate::games::rules(spec)? else {
        return Ok(None);
    };
    rules
        .with(Work {
            keys,
            profile,
            action_labels,
            evaluate,
            threads,
        })
        .map(Some)
}
