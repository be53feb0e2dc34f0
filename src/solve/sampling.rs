//! The sampling solvers' door (`es-mccfr`, `os-mccfr`): one request, run on a built-in game's
//! rules or on an arena, with checkpoints, measurements and a summary, for every front end.
//!
//! Why apart from [`crate::solve::run`]: a sampling run is decided by a seed and a thread count
//! (the CFR family's results depend on neither), its state is a table per player keyed by
//! information set rather than flat arrays over the arena, its checkpoints are streamed (they
//! reach gigabytes on games that never fit the arena), and it may play a game's rules with no
//! arena at all, measuring exploitability by the streaming best response
//! ([`crate::streaming`]). The decisions the front ends must not make live here: which engine
//! plays (the faster one by the game's shape and the solver: the arena up to 2 000 000
//! histories for external sampling and 500 000 for outcome sampling, the rules above or when
//! asked), when exploitability is measured (at iterations growing by half on an
//! arena; on rules only at the end, or on the way when a target needs it), the default seed (0)
//! and thread count (1: results depend on it), what a resumed run must match.

use crate::error::{fail, Error, Result, ResultExt};
use crate::game::{Game, Rules};
use crate::games::{self, WithRules};
use crate::lock::Lock;
use crate::mccfr::checkpoint::{self, Header, RunInfo};
use crate::mccfr::{MccfrParams, MccfrSolver, MccfrState, Point, RunLimits, Stop};
use crate::solve::registry::{self, Algorithm, Family, SamplingKind, SamplingOptions};
use crate::strategy::{LabelledSet, LabelledStrategy, Profile};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Per player, the average strategy of every information set reached, by key, in key order.
pub type AverageByKey = [Vec<(u64, Vec<f64>)>; 2];

/// The magic bytes that open a sampling checkpoint.
const MAGIC: &[u8; 8] = b"BLUFFMCC";

/// Whether the file at `path` is a sampling checkpoint (so a front end resuming it hands it
/// here rather than to [`crate::solve::run`]). Only a regular file is looked at: peeking into a
/// pipe would eat the bytes a CFR checkpoint arriving on it needs (a sampling checkpoint, read
/// header first and then streamed, must be a regular file).
pub fn is_sampling_checkpoint(path: &Path) -> bool {
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let mut magic = [0u8; 8];
    std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic))
        .is_ok()
        && &magic == MAGIC
}

/// Which engine plays the game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Engine {
    /// The faster engine by the game's shape and the solver: the arena for a built-in game of
    /// at most 2 000 000 histories under external sampling and 500 000 under outcome sampling,
    /// its rules above (`docs/mccfr.md`); the arena for any other game.
    #[default]
    Auto,
    /// The built-in game's rules, even where its arena could be built.
    Rules,
}

/// A sampling run, as a front end asks for it.
#[derive(Clone, Debug, Default)]
pub struct SamplingRequest {
    /// The algorithm (`es-mccfr` or `os-mccfr`); `None` with `resume`: the checkpoint's.
    pub algorithm: Option<&'static Algorithm>,
    /// The options set by the user.
    pub options: SamplingOptions,
    /// The seed (default 0; the checkpoint's when resuming).
    pub seed: Option<u64>,
    /// Threads (default 1; the checkpoint's when resuming: results depend on the count).
    pub threads: Option<usize>,
    /// Stop once the solver has this many iterations in all.
    pub iterations: Option<u64>,
    /// Stop after this much solving time in this session.
    pub time: Option<Duration>,
    /// Stop once a measured exploitability is at most this.
    pub target: Option<f64>,
    /// Which engine plays.
    pub engine: Engine,
    /// Measure the final strategy's exploitability (a whole best response) at the end.
    pub evaluate: bool,
    /// Save the solver here every `checkpoint_every` of solving time and at the end.
    pub checkpoint: Option<PathBuf>,
    /// Solving time between saves (default 60 s).
    pub checkpoint_every: Option<Duration>,
    /// Continue the run saved here.
    pub resume: Option<PathBuf>,
    /// On rules, return the average strategy labelled ([`SamplingOutcome::labelled`]; the
    /// rules must state [`Rules::key_state`], as every built-in game's do).
    pub labels: bool,
}

/// What a sampling run reports as it goes, and how a front end stops it.
pub trait SamplingHooks {
    /// Called after every batch of iterations (`exploitability` with each measurement).
    fn progress(&mut self, _iterations: u64, _seconds: f64, _exploitability: Option<f64>) {}
    /// Whether to stop now (a signal, Ctrl-C); the run saves its checkpoint and returns.
    fn interrupted(&mut self) -> bool {
        false
    }
}

/// Hooks that report nothing and never interrupt.
pub struct NoHooks;

impl SamplingHooks for NoHooks {}

/// A finished (or interrupted) sampling run.
#[derive(Clone, Debug)]
pub struct SamplingOutcome {
    /// The game spec.
    pub spec: String,
    /// The algorithm that ran.
    pub algorithm: &'static Algorithm,
    /// `true` on the arena, `false` on the game's rules.
    pub on_arena: bool,
    /// The parameters.
    pub params: MccfrParams,
    /// The seed.
    pub seed: u64,
    /// The thread count.
    pub threads: usize,
    /// Iterations in all (one traversal per player each).
    pub iterations: u64,
    /// Iterations the run had when this session started (0 unless resumed).
    pub first_iteration: u64,
    /// Solving time over all sessions, seconds (measurements and saves excluded).
    pub solve_seconds: f64,
    /// Solving time of this session, seconds.
    pub session_seconds: f64,
    /// The final average strategy's exploitability, when measured.
    pub exploitability: Option<f64>,
    /// Time of that measurement (a whole best response), seconds.
    pub best_response_seconds: Option<f64>,
    /// Information sets reached, per player.
    pub infosets: [usize; 2],
    /// Bytes of the solver's tables.
    pub solver_bytes: usize,
    /// Bytes of the tables per information set reached.
    pub bytes_per_infoset: f64,
    /// Peak resident memory of the process (Linux), bytes.
    pub peak_rss_bytes: Option<u64>,
    /// `(iteration, exploitability, seconds)` of every measurement over all sessions.
    pub curve: Vec<(u64, f64, f64)>,
    /// Stopped by [`SamplingHooks::interrupted`].
    pub interrupted: bool,
    /// The average and the current strategies, on the arena only.
    pub profiles: Option<(Profile<f64>, Profile<f64>)>,
    /// The arena [`solve_spec`] built and played (`None` on rules, and from the other doors).
    pub game: Option<Game>,
    /// From [`solve_rules`]: per player, the average strategy of every information set
    /// reached, by the rules' key, in key order.
    pub average_by_key: Option<AverageByKey>,
    /// With [`SamplingRequest::labels`], on rules: the average strategy labelled.
    pub labelled: Option<LabelledStrategy>,
}

impl SamplingOutcome {
    /// Iterations per second of solving in this session.
    pub fn rate(&self) -> f64 {
        (self.iterations - self.first_iteration) as f64 / self.session_seconds.max(1e-9)
    }
}

/// What the run needs besides the game.
struct Plan<'a, H> {
    request: &'a SamplingRequest,
    spec: String,
    algorithm: &'static Algorithm,
    params: MccfrParams,
    seed: u64,
    threads: usize,
    header: Option<Header>,
    hooks: &'a mut H,
    /// Return the average strategy by key ([`SamplingOutcome::average_by_key`]).
    by_key: bool,
    /// The lock the game was made with ([`Lock::canonical`], "" for none), for checkpoints.
    lock: String,
    /// A warm start: the state to begin from instead of the checkpoint's (see
    /// [`solve_locked`]).
    warm: Option<MccfrState>,
}

/// Checks `request` alone (no game): a sampling algorithm or a checkpoint, a stop rule,
/// numbers in range; returns the checkpoint's header when resuming.
fn check_request(request: &SamplingRequest) -> Result<Option<Header>> {
    if request.iterations.is_none() && request.target.is_none() && request.time.is_none() {
        fail!(Invalid, "give a stop rule: iterations, a target or a time");
    }
    if request.iterations == Some(0) {
        fail!(Invalid, "0 iterations: expected at least 1");
    }
    if let Some(t) = request.target.filter(|t| !(t.is_finite() && *t > 0.0)) {
        fail!(Invalid, "target {t:?}: expected a positive number");
    }
    if request.threads == Some(0) || request.threads.is_some_and(crate::solve::too_many_threads) {
        fail!(
            Invalid,
            "{} threads: expected 1..={}",
            request.threads.unwrap_or(0),
            crate::solve::max_threads()
        );
    }
    if let Some(a) = request.algorithm {
        if !matches!(a.family, Family::Sampling(_)) {
            fail!(
                Invalid,
                "{} is not a sampling solver (es-mccfr, os-mccfr)",
                a.name
            );
        }
    }
    match &request.resume {
        Some(path) => Ok(Some(
            checkpoint::read_header_of(path)
                .context_with(|| format!("checkpoint {}", path.display()))?,
        )),
        None => Ok(None),
    }
}

/// The algorithm, parameters, seed and threads of a run: the request's, or the checkpoint's
/// (checked against what the request sets).
fn settle(
    request: &SamplingRequest,
    header: Option<&Header>,
) -> Result<(&'static Algorithm, MccfrParams, u64, usize)> {
    let algorithm = match (request.algorithm, header) {
        (Some(a), _) => a,
        (None, Some(h)) => registry::algorithm(&h.info.algo)
            .map_err(|e| Error::Invalid(e.to_string()))
            .context_with(|| "the checkpoint's algorithm".to_string())?,
        (None, None) => fail!(Invalid, "give a sampling algorithm: es-mccfr or os-mccfr"),
    };
    let asked = algorithm
        .sampling_params(&request.options)
        .map_err(|e| Error::Invalid(e.to_string()))?;
    let Some(h) = header else {
        return Ok((
            algorithm,
            asked,
            request.seed.unwrap_or(0),
            request.threads.unwrap_or(1),
        ));
    };
    if h.info.algo != algorithm.name {
        fail!(
            Invalid,
            "the checkpoint is a {} run; it cannot continue as {}",
            h.info.algo,
            algorithm.name
        );
    }
    if request.options.any() && asked != h.params {
        fail!(
            Invalid,
            "the checkpoint was run with {:?}; the options ask for {asked:?}",
            h.params
        );
    }
    if request.seed.is_some_and(|s| s != h.seed) {
        fail!(Invalid, "the checkpoint was run with seed {}", h.seed);
    }
    if request.threads.is_some_and(|t| t != h.threads) {
        fail!(
            Invalid,
            "the checkpoint was run on {} threads; resume with the same (a sampling run's \
             rounds, and so its results, depend on the thread count)",
            h.threads
        );
    }
    if let Some(n) = request.iterations.filter(|&n| n < h.iterations) {
        fail!(
            Invalid,
            "{n} iterations: the checkpoint already has {} (the iteration limit is the total)",
            h.iterations
        );
    }
    Ok((algorithm, h.params, h.seed, h.threads))
}

impl<'a, H: SamplingHooks> Plan<'a, H> {
    /// The plan of `request` (resuming the checkpoint of `header`, if any) on the game `spec`.
    fn new(
        request: &'a SamplingRequest,
        header: Option<Header>,
        spec: String,
        hooks: &'a mut H,
        by_key: bool,
    ) -> Result<Self> {
        let (algorithm, params, seed, threads) = settle(request, header.as_ref())?;
        Ok(Plan {
            request,
            spec,
            algorithm,
            params,
            seed,
            threads,
            header,
            hooks,
            by_key,
            lock: String::new(),
            warm: None,
        })
    }
}

/// Runs a sampling solver on the game `spec` names (a built-in game or a file; `None` with a
/// checkpoint to resume: the checkpoint's game).
pub fn solve_spec(
    spec: Option<&str>,
    request: &SamplingRequest,
    hooks: &mut impl SamplingHooks,
) -> Result<SamplingOutcome> {
    let header = check_request(request)?;
    let spec = match (spec, &header) {
        (Some(g), _) => g.to_string(),
        (None, Some(h)) => h.info.game_spec.clone(),
        (None, None) => fail!(Invalid, "give a game"),
    };
    let mut plan = Plan::new(request, header, spec.clone(), hooks, false)?;
    let rules = games::rules(&spec)?;
    let on_rules = rules
        .as_ref()
        .is_some_and(|r| plays_rules(r, request.engine, request.algorithm, plan.header.as_ref()));
    match rules {
        Some(r) if on_rules => r.with(OnRules(&mut plan)),
        _ if request.engine == Engine::Rules => fail!(
            Invalid,
            "{spec} has no rules stated in bluff; play its arena (the default engine)"
        ),
        _ => {
            let game = games::load(&spec)?.game;
            let mut outcome = solve(&mut plan, &game, Some(&game))?;
            outcome.game = Some(game);
            Ok(outcome)
        }
    }
}

/// Whether a run of the built-in game `rules` plays them rather than their arena: with
/// [`Engine::Rules`]; when resuming, on the engine the checkpoint was written on; otherwise by
/// the game's shape and the solver, never by timing: the rules when the game has more
/// histories than the solver's threshold, the arena otherwise (measured on every built-in game
/// in `docs/mccfr.md`). The arena reads some 125 bytes a history and, past a few hundred
/// thousand histories, misses the cache at most steps, while the rules keep only the path's
/// state; external sampling walks every action of the traverser, so it comes back to the
/// nodes it read and the arena pays off up to a larger tree than for outcome sampling, which
/// follows one path.
fn plays_rules(
    rules: &games::BuiltinRules,
    engine: Engine,
    algorithm: Option<&Algorithm>,
    resumed: Option<&Header>,
) -> bool {
    const ES_RULES_ABOVE: u64 = 2_000_000;
    const OS_RULES_ABOVE: u64 = 500_000;
    let above = match algorithm.map(|a| a.family) {
        Some(Family::Sampling(SamplingKind::External)) => ES_RULES_ABOVE,
        _ => OS_RULES_ABOVE,
    };
    match (engine, resumed) {
        (Engine::Rules, _) => true,
        (Engine::Auto, Some(h)) => h.info.game_id.starts_with("rules:"),
        (Engine::Auto, None) => rules.num_nodes().is_none_or(|n| n > above),
    }
}

/// Runs a sampling solver on an arena (`name` identifies it in checkpoints and summaries).
pub fn solve_game(
    game: &Game,
    name: &str,
    request: &SamplingRequest,
    hooks: &mut impl SamplingHooks,
) -> Result<SamplingOutcome> {
    let header = check_request(request)?;
    if request.engine == Engine::Rules {
        fail!(Invalid, "an arena game has no other rules than its tree");
    }
    let mut plan = Plan::new(request, header, name.to_string(), hooks, false)?;
    solve(&mut plan, game, Some(game))
}

/// Runs a sampling solver on the arena `game` with `lock`'s sets played as chance nodes
/// ([`Lock::to_chance`]); the profiles are read back on `game` ([`Lock::from_chance`]). The
/// checkpoint keeps the lock. Resuming under the checkpoint's own lock continues the same
/// bits; under another lock (or none, `lock` empty) it is a warm start: the regrets of the
/// sets unlocked in both carry over, the average restarts, iterations and discounting go on.
pub fn solve_locked(
    game: &Game,
    lock: &Lock,
    name: &str,
    request: &SamplingRequest,
    hooks: &mut impl SamplingHooks,
) -> Result<SamplingOutcome> {
    let header = check_request(request)?;
    if request.engine == Engine::Rules {
        fail!(
            Invalid,
            "a locked sampling run plays the game's arena (its locked sets as chance nodes), \
             not its rules"
        );
    }
    let text = lock.canonical(game);
    let mut plan = Plan::new(request, header, name.to_string(), hooks, false)?;
    plan.lock = text.clone();
    if let (Some(path), Some(h)) = (&request.resume, &plan.header) {
        if h.info.lock != text {
            plan.warm = Some(
                warm_state(game, lock, &h.info.lock, path)
                    .context_with(|| format!("checkpoint {}", path.display()))?,
            );
        }
    }
    let locked = lock.to_chance(game);
    let mut outcome = solve(&mut plan, &locked, Some(&locked))?;
    outcome.profiles = outcome
        .profiles
        .take()
        .map(|(a, c)| (lock.from_chance(game, &a), lock.from_chance(game, &c)));
    Ok(outcome)
}

/// The lock a sampling checkpoint was saved under ([`Lock::canonical`]'s text, "" for none);
/// `None` when its header does not read (the run itself then says why).
pub fn read_checkpoint_lock(path: &Path) -> Option<String> {
    Some(checkpoint::read_header_of(path).ok()?.info.lock)
}

/// The state a warm start under `lock` begins from: the checkpoint at `path` (saved under the
/// lock whose canonical text is `saved`) loaded on its own locked game, its entries moved to
/// the set ids of `lock`'s game, the sets locked now dropped and every average sum zeroed.
fn warm_state(game: &Game, lock: &Lock, saved: &str, path: &Path) -> Result<MccfrState> {
    let before = Lock::from_canonical(game, saved).map_err(Error::Invalid)?;
    let before_game = before.to_chance(game);
    let (solver, _) = checkpoint::load(path, &before_game)?;
    let mut state = solver.state();
    let (old_ids, new_ids) = (before.kept_ids(game), lock.kept_ids(game));
    for p in 0..2 {
        // The original set of each of the checkpoint's ids.
        let original: Vec<usize> = (0..old_ids[p].len())
            .filter(|&id| old_ids[p][id].is_some())
            .collect();
        let width = solver.tables()[p].width();
        state.entries[p] = std::mem::take(&mut state.entries[p])
            .into_iter()
            .filter_map(|(key, mut numbers)| {
                let set = *original.get(key as usize)?;
                let new_key = new_ids[p][set]?;
                let n = numbers.len() / width;
                numbers[n..2 * n].fill(0.0);
                Some((new_key, numbers))
            })
            .collect();
    }
    Ok(state)
}

/// Runs a sampling solver on any rules (no arena: exploitability by the streaming best
/// response), returning the average strategy by information-set key too.
pub fn solve_rules<G: Rules>(
    rules: &G,
    request: &SamplingRequest,
    hooks: &mut impl SamplingHooks,
) -> Result<SamplingOutcome> {
    let header = check_request(request)?;
    let mut plan = Plan::new(request, header, rules.name(), hooks, true)?;
    solve(&mut plan, rules, None)
}

/// Runs [`solve`] on built-in rules.
struct OnRules<'p, 'a, H>(&'p mut Plan<'a, H>);

impl<H: SamplingHooks> WithRules for OnRules<'_, '_, H> {
    type Output = Result<SamplingOutcome>;
    fn run<G: Rules>(self, rules: &G) -> Result<SamplingOutcome> {
        solve(self.0, rules, None)
    }
}

/// The game's identity in checkpoints: the rules' name, or the arena's fingerprint.
fn game_id<G: Rules>(rules: &G, arena: Option<&Game>) -> String {
    match arena {
        Some(g) => format!("arena:{:016x}", crate::cfr::checkpoint::game_fingerprint(g)),
        None => format!("rules:{}", rules.name()),
    }
}

/// The exploitability of the solver's average strategy: the arena's best response when the
/// rules are that arena, the streaming one otherwise.
fn measure<G: Rules>(
    s: &MccfrSolver<G>,
    rules: &G,
    arena: Option<&Game>,
    threads: usize,
) -> Result<f64> {
    match arena {
        Some(game) => {
            Ok(crate::eval::exploitability(game, &s.average_profile(game)).exploitability)
        }
        None => {
            Ok(crate::streaming::best_responses::<_, f64, _>(rules, s, threads)?.exploitability)
        }
    }
}

/// Peak resident memory of this process (Linux `VmHWM`), bytes.
pub fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The current strategy of every information set of `game`.
fn current_profile<G: Rules>(s: &MccfrSolver<G>, game: &Game) -> Profile<f64> {
    let mut current = s.average_profile(game);
    for p in 0..2 {
        for (id, set) in game.infosets[p].iter().enumerate() {
            let r = set.action_range();
            s.current_strategy(p, id as u64, r.len(), &mut current.probs[p][r]);
        }
    }
    current
}

/// The run itself, on `rules` (which are `arena` when that is given).
fn solve<G: Rules, H: SamplingHooks>(
    plan: &mut Plan<'_, H>,
    rules: &G,
    arena: Option<&Game>,
) -> Result<SamplingOutcome> {
    let request = plan.request;
    let id = game_id(rules, arena);
    let (mut solver, mut info) = match (plan.warm.take(), &request.resume, &plan.header) {
        (Some(state), _, h) => (
            MccfrSolver::restore(rules, &state)?,
            RunInfo {
                game_spec: plan.spec.clone(),
                game_id: id,
                algo: plan.algorithm.name.to_string(),
                lock: plan.lock.clone(),
                solve_seconds: h.as_ref().map_or(0.0, |h| h.info.solve_seconds),
                points: Vec::new(),
            },
        ),
        (None, Some(path), Some(h)) => {
            if h.info.game_id != id {
                fail!(
                    Invalid,
                    "checkpoint {} was written for {} and this run plays {id} (the arena and \
                     the rules of a game number information sets differently: resume on the \
                     engine the run started on)",
                    path.display(),
                    h.info.game_id
                );
            }
            let (s, h) = checkpoint::load(path, rules)
                .context_with(|| format!("checkpoint {}", path.display()))?;
            (s, h.info)
        }
        _ => (
            MccfrSolver::new(rules, plan.params, plan.seed)?.with_threads(plan.threads)?,
            RunInfo {
                game_spec: plan.spec.clone(),
                game_id: id,
                algo: plan.algorithm.name.to_string(),
                lock: plan.lock.clone(),
                solve_seconds: 0.0,
                points: Vec::new(),
            },
        ),
    };
    let first_iteration = solver.iterations();
    let earlier_seconds = info.solve_seconds;
    let br_threads = crate::solve::available_cores();
    // Measuring costs a whole best response: on an arena at iterations growing by half; on
    // rules only at the end, unless a target needs it on the way.
    let measuring = arena.is_some() || request.target.is_some();
    let limits = RunLimits {
        max_iterations: request.iterations,
        time: request.time,
        target: request.target,
        measure_growth: if measuring { 1.5 } else { 0.0 },
        measure_every: None,
        save_every: request
            .checkpoint
            .as_ref()
            .map(|_| request.checkpoint_every.unwrap_or(Duration::from_secs(60))),
    };
    let mut measure_error: Option<Error> = None;
    let mut measured = |s: &MccfrSolver<G>| match measure(s, rules, arena, br_threads) {
        Ok(e) => e,
        Err(e) => {
            measure_error.get_or_insert(e);
            f64::NAN
        }
    };
    let save_path = request.checkpoint.clone();
    let mut save_error: Option<Error> = None;
    let base_info = info.clone();
    let started = Instant::now();
    let mut save = |s: &MccfrSolver<G>| {
        if let Some(path) = &save_path {
            let mut i = base_info.clone();
            i.solve_seconds = earlier_seconds + started.elapsed().as_secs_f64();
            if let Err(e) = checkpoint::save(path, s, &i) {
                save_error.get_or_insert(e.into());
            }
        }
    };
    let hooks = &mut *plan.hooks;
    let (stop, points) = solver.run(
        &limits,
        if measuring { Some(&mut measured) } else { None },
        Some(&mut save),
        |p| {
            hooks.progress(p.iterations, p.seconds, p.point.map(|pt| pt.exploitability));
            if hooks.interrupted() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        },
    );
    if let Some(e) = save_error.take().or(measure_error.take()) {
        return Err(e);
    }
    let session = points.last().map_or(0.0, |p| p.seconds).max(
        // Without measurements the session time is the wall time less nothing excluded.
        if measuring {
            0.0
        } else {
            started.elapsed().as_secs_f64()
        },
    );
    info.solve_seconds = earlier_seconds + session;
    info.points.extend(
        points
            .iter()
            .map(|p: &Point| (p.iteration, p.exploitability, earlier_seconds + p.seconds)),
    );
    let interrupted = stop == Stop::Interrupted;
    // The final figure: the last measurement when it is of the final strategy, else one now.
    let (exploitability, best_response_seconds) = match points.last() {
        Some(p) if p.iteration == solver.iterations() => {
            (Some(p.exploitability), Some(p.measure_seconds))
        }
        _ if !request.evaluate || interrupted => (None, None),
        _ => {
            let t0 = Instant::now();
            let e = measure(&solver, rules, arena, br_threads)?;
            info.points
                .push((solver.iterations(), e, info.solve_seconds));
            (Some(e), Some(t0.elapsed().as_secs_f64()))
        }
    };
    if let Some(path) = &request.checkpoint {
        checkpoint::save(path, &solver, &info)?;
    }
    Ok(SamplingOutcome {
        spec: plan.spec.clone(),
        algorithm: plan.algorithm,
        on_arena: arena.is_some(),
        params: solver.params(),
        seed: solver.seed(),
        threads: solver.threads(),
        iterations: solver.iterations(),
        first_iteration,
        solve_seconds: info.solve_seconds,
        session_seconds: session,
        exploitability,
        best_response_seconds,
        infosets: solver.num_infosets(),
        solver_bytes: solver.memory_bytes(),
        bytes_per_infoset: solver.bytes_per_infoset(),
        peak_rss_bytes: peak_rss(),
        curve: info.points,
        interrupted,
        profiles: arena.map(|g| (solver.average_profile(g), current_profile(&solver, g))),
        game: None,
        average_by_key: plan.by_key.then(|| average_by_key(&solver)),
        labelled: match arena {
            None if request.labels => Some(labelled(&solver, rules)?),
            _ => None,
        },
    })
}

/// The average strategy of every set the solver reached, labelled through
/// [`Rules::key_state`].
fn labelled<G: Rules>(s: &MccfrSolver<G>, rules: &G) -> Result<LabelledStrategy> {
    let mut sets = [Vec::new(), Vec::new()];
    for (p, out) in sets.iter_mut().enumerate() {
        let mut keys: Vec<u64> = s.tables()[p].entries().map(|(key, _)| key).collect();
        keys.sort_unstable();
        out.reserve_exact(keys.len());
        for key in keys {
            out.push(LabelledSet::from_key(rules, p, key, true, |n| {
                let mut probs = vec![0.0; n];
                s.average_strategy(p, key, n, &mut probs);
                Ok(probs)
            })?);
        }
    }
    Ok(LabelledStrategy {
        player_names: rules.player_names(),
        sets,
    })
}

/// The average strategy of every information set the solver reached, by key.
fn average_by_key<G: Rules>(s: &MccfrSolver<G>) -> AverageByKey {
    [0, 1].map(|p| {
        let table = &s.tables()[p];
        let mut out: Vec<(u64, Vec<f64>)> = table
            .entries()
            .map(|(key, numbers)| {
                let mut probs = vec![0.0; numbers.len() / table.width()];
                s.average_strategy(p, key, probs.len(), &mut probs);
                (key, probs)
            })
            .collect();
        out.sort_unstable_by_key(|e| e.0);
        out
    })
}
