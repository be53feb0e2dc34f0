//! The queue of solves: each job is a `bluff::solve::door::Request` run on a thread of its own,
//! at most `--jobs` at once and within `--max-memory` together; its state, curve and result
//! are kept in `DIR/.bluff-serve/jobs/` (a JSON file per job, the door's checkpoint and the
//! strategy), so a reload of the page or a restart of the server loses nothing: a job that was
//! queued or running when the server stopped (or was killed) resumes from its checkpoint.

use super::events::Events;
use anyhow::{bail, Context, Result};
use bluff::game::Game;
use bluff::solve::door::{self, DoorHooks, Request, Solved, Spelling, Value};
use bluff::solve::run::{CurvePoint, Hooks, Progress};
use serde_json::{json, Value as Json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Most jobs waiting in the queue at once.
pub const MAX_QUEUED: usize = 32;
/// Built-in games with more histories than this are not built to be inspected or checked:
/// the sampling solvers play their rules.
pub const BUILD_LIMIT: u64 = 2_000_000;
/// Seconds of solving between a running job's checkpoints.
pub const CHECKPOINT_SECONDS: f64 = 2.0;

/// What the user asked for: the game and the solve's options (a subset of `bluff solve`'s).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JobSpec {
    /// The game as the user gave it: a built-in spec or a path relative to the folder.
    pub game: String,
    /// The algorithm (`None`: the library's default).
    pub algo: Option<String>,
    /// Stop after this many iterations.
    pub iterations: Option<i64>,
    /// Stop at this exploitability.
    pub target: Option<f64>,
    /// Stop after this many seconds.
    pub time: Option<f64>,
    /// Largest gap between measurements.
    pub check_every: Option<i64>,
    /// Worker threads.
    pub threads: Option<i64>,
}

impl JobSpec {
    /// Reads a spec from the page's JSON, naming the field that is wrong.
    pub fn from_json(v: &Json) -> Result<JobSpec> {
        let obj = v.as_object().context("expected a JSON object")?;
        for key in obj.keys() {
            if ![
                "game",
                "algo",
                "iterations",
                "target",
                "time",
                "check_every",
                "threads",
            ]
            .contains(&key.as_str())
            {
                bail!("unknown field {}", bluff::format::text::quoted(key));
            }
        }
        let int = |k: &str| -> Result<Option<i64>> {
            match obj.get(k) {
                None | Some(Json::Null) => Ok(None),
                Some(x) => x
                    .as_i64()
                    .map(Some)
                    .with_context(|| format!("{k}: expected an integer")),
            }
        };
        let num = |k: &str| -> Result<Option<f64>> {
            match obj.get(k) {
                None | Some(Json::Null) => Ok(None),
                Some(x) => x
                    .as_f64()
                    .map(Some)
                    .with_context(|| format!("{k}: expected a number")),
            }
        };
        let game = obj
            .get("game")
            .and_then(Json::as_str)
            .context("game: expected a string")?
            .to_string();
        let algo = match obj.get("algo") {
            None | Some(Json::Null) => None,
            Some(Json::String(s)) if s.is_empty() => None,
            Some(x) => Some(x.as_str().context("algo: expected a string")?.to_string()),
        };
        Ok(JobSpec {
            game,
            algo,
            iterations: int("iterations")?,
            target: num("target")?,
            time: num("time")?,
            check_every: int("check_every")?,
            threads: int("threads")?,
        })
    }

    /// The spec as JSON (the inverse of [`JobSpec::from_json`]).
    pub fn to_json(&self) -> Json {
        json!({
            "game": self.game, "algo": self.algo, "iterations": self.iterations,
            "target": self.target, "time": self.time, "check_every": self.check_every,
            "threads": self.threads,
        })
    }

    /// The door's request, with the job's checkpoint.
    pub fn request(&self, checkpoint: Option<&Path>, resume: bool) -> Request {
        Request {
            algo: self.algo.clone(),
            iterations: self.iterations,
            target: self.target,
            time: self.time,
            check_every: self.check_every,
            threads: self.threads,
            checkpoint: checkpoint.map(Path::to_path_buf),
            checkpoint_every: checkpoint.map(|_| CHECKPOINT_SECONDS),
            resume: if resume {
                checkpoint.map(Path::to_path_buf)
            } else {
                None
            },
            output: true,
            ..Default::default()
        }
    }

    /// The equivalent command line (the game quoted for a POSIX shell).
    pub fn command(&self) -> String {
        let mut words = vec!["bluff".to_string(), "solve".into(), shell_quote(&self.game)];
        let mut opt = |name: &str, v: Option<String>| {
            if let Some(v) = v {
                words.push(format!("--{name}"));
                words.push(shell_quote(&v));
            }
        };
        opt("algo", self.algo.clone());
        opt("iterations", self.iterations.map(|n| n.to_string()));
        opt("target", self.target.map(|x| x.to_string()));
        opt("time", self.time.map(|x| x.to_string()));
        opt("check-every", self.check_every.map(|n| n.to_string()));
        opt("threads", self.threads.map(|n| n.to_string()));
        words.extend(["-o", "strategy.json", "--curve", "curve.csv"].map(String::from));
        words.join(" ")
    }
}

/// `s` quoted for a POSIX shell when it needs it.
pub fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./+=:,".contains(&b));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Where a job stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Waiting its turn.
    Queued,
    /// Solving.
    Running,
    /// Stopped with a checkpoint; resumable.
    Paused,
    /// Reached its stop rule (or solved exactly).
    Done,
    /// Stopped by the user; its strategy so far is kept.
    Stopped,
    /// Removed from the queue before it ran.
    Cancelled,
    /// Refused or failed; see its error.
    Failed,
}

impl State {
    /// The state's name.
    pub fn name(self) -> &'static str {
        match self {
            State::Queued => "queued",
            State::Running => "running",
            State::Paused => "paused",
            State::Done => "done",
            State::Stopped => "stopped",
            State::Cancelled => "cancelled",
            State::Failed => "failed",
        }
    }

    fn parse(s: &str) -> Option<State> {
        [
            State::Queued,
            State::Running,
            State::Paused,
            State::Done,
            State::Stopped,
            State::Cancelled,
            State::Failed,
        ]
        .into_iter()
        .find(|x| x.name() == s)
    }
}

/// A solved job's result, for exploring and exporting.
pub struct Outcome {
    /// The game.
    pub game: Arc<Game>,
    /// The strategy (exact from the LP, floats otherwise).
    pub strategy: bluff::report::Strategy,
    /// The algorithm that ran.
    pub algorithm: String,
    /// The analysis (reach, best response, gains), computed when first explored.
    pub analysis: std::sync::OnceLock<bluff::report::analysis::Analysis>,
}

/// What a running job is asked to do between iterations.
const GO: u8 = 0;
const PAUSE: u8 = 1;
const STOP: u8 = 2;

/// One job.
pub struct Job {
    /// Its number.
    pub id: u64,
    /// What was asked.
    pub spec: JobSpec,
    /// Where it stands.
    pub state: State,
    /// Why it failed.
    pub error: Option<String>,
    /// A remark on a finished job.
    pub note: Option<String>,
    /// Its measurements so far.
    pub curve: Vec<CurvePoint>,
    /// Iterations so far.
    pub iterations: u64,
    /// Its exploitability when finished (exact text for the LP).
    pub exploitability: Option<String>,
    /// Player 1's value when finished.
    pub value: Option<String>,
    /// The algorithm that ran.
    pub algorithm: Option<String>,
    /// Estimated peak memory, bytes.
    pub memory: u64,
    /// The result, loaded.
    pub outcome: Option<Arc<Outcome>>,
    control: Arc<AtomicU8>,
}

impl Job {
    /// The job's summary for the page.
    pub fn summary(&self) -> Json {
        json!({
            "id": self.id,
            "spec": self.spec.to_json(),
            "state": self.state.name(),
            "error": self.error,
            "note": self.note,
            "iterations": self.iterations,
            "exploitability": self.exploitability,
            "value": self.value,
            "algorithm": self.algorithm,
            "memory": self.memory,
            "command": self.spec.command(),
            "curve": self.curve.iter().map(|p| json!([p.iteration, p.exploitability, p.seconds])).collect::<Vec<_>>(),
            "explorable": self.outcome.is_some() || self.strategy_saved(),
        })
    }

    fn strategy_saved(&self) -> bool {
        matches!(self.state, State::Done | State::Stopped | State::Paused) && self.note.is_none()
    }

    fn record(&self) -> Json {
        let mut v = self.summary();
        v["curve"] = json!(self
            .curve
            .iter()
            .map(|p| json!([p.iteration, p.exploitability, p.seconds]))
            .collect::<Vec<_>>());
        v
    }
}

/// The queue and its folder.
pub struct Jobs {
    /// The served folder (canonical).
    pub root: PathBuf,
    dir: PathBuf,
    jobs: Mutex<BTreeMap<u64, Job>>,
    /// Set when the server stops: running jobs checkpoint and stay queued for the next start.
    pub shutdown: AtomicBool,
    running: Mutex<usize>,
    max_running: usize,
    max_memory: u64,
    events: Arc<Events>,
    games: Mutex<Vec<(String, Arc<Game>)>>,
}

impl Jobs {
    /// Opens the queue kept in `root/.bluff-serve/jobs`, reading the jobs a previous server
    /// left; those that were queued or running are queued again.
    pub fn open(
        root: &Path,
        max_running: usize,
        max_memory: u64,
        events: Arc<Events>,
    ) -> Result<Arc<Jobs>> {
        let dir = root.join(".bluff-serve").join("jobs");
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let mut jobs = BTreeMap::new();
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.extension().is_some_and(|x| x == "json")
                    && !p.to_string_lossy().ends_with(".strategy.json")
            })
            .collect();
        entries.sort();
        for path in entries {
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let Ok(v) = serde_json::from_str::<Json>(&text) else {
                continue;
            };
            let (Some(id), Ok(spec), Some(state)) = (
                v["id"].as_u64(),
                JobSpec::from_json(&v["spec"]),
                v["state"].as_str().and_then(State::parse),
            ) else {
                continue;
            };
            let curve = v["curve"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|p| {
                            Some(CurvePoint {
                                iteration: p[0].as_u64()?,
                                exploitability: p[1].as_f64()?,
                                seconds: p[2].as_f64()?,
                            })
                        })
                        .collect()
                })
                .unwrap_or_default();
            let text_of = |k: &str| v[k].as_str().map(str::to_string);
            jobs.insert(
                id,
                Job {
                    id,
                    spec,
                    state: if state == State::Running {
                        State::Queued
                    } else {
                        state
                    },
                    error: text_of("error"),
                    note: text_of("note"),
                    curve,
                    iterations: v["iterations"].as_u64().unwrap_or(0),
                    exploitability: text_of("exploitability"),
                    value: text_of("value"),
                    algorithm: text_of("algorithm"),
                    memory: v["memory"].as_u64().unwrap_or(0),
                    outcome: None,
                    control: Arc::new(AtomicU8::new(GO)),
                },
            );
        }
        let this = Arc::new(Jobs {
            root: root.to_path_buf(),
            dir,
            jobs: Mutex::new(jobs),
            shutdown: AtomicBool::new(false),
            running: Mutex::new(0),
            max_running,
            max_memory,
            events,
            games: Mutex::new(Vec::new()),
        });
        Jobs::schedule(&this);
        Ok(this)
    }

    fn checkpoint_path(&self, id: u64) -> PathBuf {
        self.dir.join(format!("{id}.ckpt"))
    }

    fn strategy_path(&self, id: u64) -> PathBuf {
        self.dir.join(format!("{id}.strategy.json"))
    }

    /// The door's game spec of a user's game: a built-in spec as it is, a file confined to the
    /// folder (absolute, canonical).
    pub fn resolve_game(&self, game: &str) -> Result<String> {
        if bluff::games::is_file_spec(game) {
            let path = super::guard::confine(&self.root, game.trim_end())?;
            Ok(path.display().to_string())
        } else {
            Ok(game.to_string())
        }
    }

    /// Loads a game by the user's spec (kept for the next request: the last few are cached).
    pub fn game(&self, game: &str) -> Result<Arc<Game>> {
        let spec = self.resolve_game(game)?;
        if let Some((_, g)) = self.games.lock().unwrap().iter().find(|(s, _)| *s == spec) {
            return Ok(g.clone());
        }
        let loaded = bluff::games::load(&spec)?;
        let g = Arc::new(loaded.game);
        let mut cache = self.games.lock().unwrap();
        cache.push((spec, g.clone()));
        if cache.len() > 4 {
            cache.remove(0);
        }
        Ok(g)
    }

    /// The number of histories of a built-in game stated by rules when it is more than this
    /// server builds to inspect or check a solve ([`BUILD_LIMIT`]); `None` otherwise.
    pub fn too_big_to_build(game: &str) -> Result<Option<u64>> {
        if bluff::games::is_file_spec(game) {
            return Ok(None);
        }
        Ok(bluff::games::rules(game)?
            .and_then(|r| r.num_nodes())
            .filter(|&n| n > BUILD_LIMIT))
    }

    /// Estimated peak bytes of solving `game` by `algo`.
    pub fn estimate(game: &Game, algo: Option<&str>) -> u64 {
        let lp = algo == Some("lp");
        let bytes = if lp {
            bluff::exact::sequence_form::memory_estimate(game, bluff::lp::Method::FloatThenExact, 0)
                .2
        } else {
            // The arena itself, regrets and average strategy per action, per-node buffers.
            let actions = (game.num_actions[0] + game.num_actions[1]) as u128;
            2 * game.heap_bytes() as u128 + 48 * actions + 16 * game.nodes.len() as u128
        };
        bytes.min(u64::MAX as u128) as u64
    }

    /// Adds a job after checking it as the command line would (the game, then the door's
    /// check of the request); returns its summary.
    pub fn submit(self: &Arc<Self>, spec: JobSpec) -> Result<Json> {
        let memory = match Jobs::too_big_to_build(&spec.game)? {
            Some(histories) => {
                let sampling = door::check(&spec.request(None, false), Spelling::Cli)?.kind
                    == door::Kind::Sampling;
                if !sampling {
                    bail!(
                        "{} has {histories} histories, too many to build here: choose es-mccfr \
                         or os-mccfr, which play its rules",
                        spec.game
                    );
                }
                0
            }
            None => {
                let game = self.game(&spec.game)?;
                if !game.is_constant_sum() && spec.algo.as_deref() != Some("lcp") {
                    game.require_constant_sum(spec.algo.as_deref().unwrap_or("the solver"))?;
                }
                door::check(&spec.request(None, false), Spelling::Cli)?;
                Jobs::estimate(&game, spec.algo.as_deref())
            }
        };
        if memory > self.max_memory {
            bail!(
                "this solve needs about {}, more than --max-memory {}",
                bluff::lp::memory::format_bytes(memory as u128),
                bluff::lp::memory::format_bytes(self.max_memory as u128)
            );
        }
        let summary = {
            let mut jobs = self.jobs.lock().unwrap();
            let waiting = jobs.values().filter(|j| j.state == State::Queued).count();
            if waiting >= MAX_QUEUED {
                bail!("the queue is full ({MAX_QUEUED} solves waiting); cancel one first");
            }
            let id = jobs.keys().next_back().map_or(1, |k| k + 1);
            let job = Job {
                id,
                spec,
                state: State::Queued,
                error: None,
                note: None,
                curve: Vec::new(),
                iterations: 0,
                exploitability: None,
                value: None,
                algorithm: None,
                memory,
                outcome: None,
                control: Arc::new(AtomicU8::new(GO)),
            };
            self.save(&job);
            let s = job.summary();
            jobs.insert(id, job);
            s
        };
        self.events.publish(&json!({"type": "job", "job": summary}));
        Jobs::schedule(self);
        Ok(summary)
    }

    /// Every job's summary.
    pub fn list(&self) -> Json {
        let jobs = self.jobs.lock().unwrap();
        json!(jobs.values().map(Job::summary).collect::<Vec<_>>())
    }

    /// One job's summary.
    pub fn get(&self, id: u64) -> Option<Json> {
        self.jobs.lock().unwrap().get(&id).map(Job::summary)
    }

    /// Pause, resume, stop or cancel a job.
    pub fn control(self: &Arc<Self>, id: u64, action: &str) -> Result<Json> {
        {
            let mut jobs = self.jobs.lock().unwrap();
            let job = jobs.get_mut(&id).context("no such job")?;
            let lp = matches!(job.spec.algo.as_deref(), Some("lp") | Some("lcp"));
            match (action, job.state) {
                ("pause", State::Running) if lp => {
                    bail!("the exact LP runs in one piece: it cannot pause (stop it instead)")
                }
                ("pause", State::Running) => job.control.store(PAUSE, Ordering::SeqCst),
                ("pause", State::Queued) => job.state = State::Paused,
                ("resume", State::Paused) => {
                    job.state = State::Queued;
                    job.control.store(GO, Ordering::SeqCst);
                }
                ("stop", State::Running) => job.control.store(STOP, Ordering::SeqCst),
                ("stop" | "cancel", State::Queued | State::Paused) => {
                    job.state = if job.curve.is_empty() && job.state == State::Queued {
                        State::Cancelled
                    } else {
                        State::Stopped
                    }
                }
                (a, s) => bail!("cannot {a} a job that is {}", s.name()),
            }
            self.save(job);
            self.events
                .publish(&json!({"type": "job", "job": job.summary()}));
        }
        Jobs::schedule(self);
        self.get(id).context("no such job")
    }

    /// The result of a job, loading it from its strategy file after a restart.
    pub fn outcome(&self, id: u64) -> Result<Arc<Outcome>> {
        let (spec, algorithm) = {
            let jobs = self.jobs.lock().unwrap();
            let job = jobs.get(&id).context("no such job")?;
            if let Some(o) = &job.outcome {
                return Ok(o.clone());
            }
            if !job.strategy_saved() {
                bail!("job {id} has no strategy yet ({})", job.state.name());
            }
            (job.spec.clone(), job.algorithm.clone().unwrap_or_default())
        };
        let game = self.game(&spec.game)?;
        let path = self.strategy_path(id);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("job {id}: reading {}", path.display()))?;
        let (profile, _) = bluff::format::strategy_json::profile_from_json(&game, &text)
            .with_context(|| format!("job {id}: {}", path.display()))?;
        let exact = algorithm == "lp" || algorithm == "lcp";
        let outcome = Arc::new(Outcome {
            game,
            strategy: if exact {
                bluff::report::Strategy::Exact(profile)
            } else {
                bluff::report::Strategy::Float(profile.to_f64())
            },
            algorithm,
            analysis: std::sync::OnceLock::new(),
        });
        if let Some(job) = self.jobs.lock().unwrap().get_mut(&id) {
            job.outcome = Some(outcome.clone());
        }
        Ok(outcome)
    }

    /// Writes a job's record (atomically, by the library's one write path).
    fn save(&self, job: &Job) {
        let path = self.dir.join(format!("{}.json", job.id));
        let text = serde_json::to_string(&job.record()).expect("JSON values serialise");
        // A record that cannot be written is shown as the job's error on the next start.
        let _ = bluff::format::output::write_file(&path, text.as_bytes());
    }

    /// Starts queued jobs while there is room (`--jobs`, `--max-memory`).
    pub fn schedule(this: &Arc<Self>) {
        if this.shutdown.load(Ordering::SeqCst) {
            return;
        }
        let mut running = this.running.lock().unwrap();
        let mut jobs = this.jobs.lock().unwrap();
        let mut used: u64 = jobs
            .values()
            .filter(|j| j.state == State::Running)
            .map(|j| j.memory)
            .sum();
        let ids: Vec<u64> = jobs
            .values()
            .filter(|j| j.state == State::Queued)
            .map(|j| j.id)
            .collect();
        for id in ids {
            if *running >= this.max_running {
                break;
            }
            let job = jobs.get_mut(&id).expect("listed");
            if *running > 0 && used.saturating_add(job.memory) > this.max_memory {
                break;
            }
            used = used.saturating_add(job.memory);
            *running += 1;
            job.state = State::Running;
            job.control.store(GO, Ordering::SeqCst);
            this.save(job);
            this.events
                .publish(&json!({"type": "job", "job": job.summary()}));
            let resume = this.checkpoint_path(id).exists();
            let spec = job.spec.clone();
            let control = job.control.clone();
            let me = this.clone();
            std::thread::spawn(move || me.run(id, spec, control, resume));
        }
    }

    /// Number of jobs running now.
    pub fn running(&self) -> usize {
        *self.running.lock().unwrap()
    }

    fn run(self: Arc<Self>, id: u64, spec: JobSpec, control: Arc<AtomicU8>, resume: bool) {
        let checkpoint = self.checkpoint_path(id);
        let iterative = !matches!(spec.algo.as_deref(), Some("lp") | Some("lcp"));
        let result = self.resolve_game(&spec.game).and_then(|game| {
            let request = spec.request(iterative.then_some(checkpoint.as_path()), resume);
            let mut hooks = JobHooks {
                jobs: &self,
                id,
                control: &control,
                last_progress: Instant::now(),
                last_save: Instant::now(),
            };
            Ok(door::solve(
                door::Source::Spec(Some(&game)),
                &request,
                Spelling::Cli,
                &mut hooks,
            )?)
        });
        let asked = control.load(Ordering::SeqCst);
        let shutdown = self.shutdown.load(Ordering::SeqCst);
        let summary = {
            let mut jobs = self.jobs.lock().unwrap();
            let job = jobs.get_mut(&id).expect("a running job is listed");
            match result {
                Err(e) => {
                    job.state = State::Failed;
                    job.error = Some(format!(
                        "job {id} ({}): {}",
                        spec.game,
                        crate::chain_message(&e)
                    ));
                }
                Ok(solved) => {
                    let interrupted = solved.interrupted();
                    if let Err(e) = self.finish(job, solved) {
                        job.state = State::Failed;
                        job.error = Some(format!("job {id}: {e:#}"));
                    } else {
                        job.state = match (interrupted, shutdown, asked) {
                            (true, true, _) => State::Queued,
                            (true, _, PAUSE) => State::Paused,
                            (true, _, _) => State::Stopped,
                            (false, _, STOP) if !iterative => State::Stopped,
                            _ => State::Done,
                        };
                    }
                }
            }
            self.save(job);
            job.summary()
        };
        self.events.publish(&json!({"type": "job", "job": summary}));
        *self.running.lock().unwrap() -= 1;
        Jobs::schedule(&self);
    }

    /// Records a finished (or interrupted) solve: its figures, its strategy file, its result.
    fn finish(&self, job: &mut Job, solved: Solved) -> Result<()> {
        if solved.curve.len() >= job.curve.len() {
            job.curve = solved.curve.clone();
        }
        job.iterations = solved.iterations;
        job.algorithm = Some(solved.algorithm.name.to_string());
        let text = |v: &Value| match v {
            Value::Exact(r) => bluff::scalar::format_rational(r),
            Value::Float(x) => format!("{x:e}"),
        };
        job.exploitability = solved.exploitability.as_ref().map(text);
        job.value = solved.values.as_ref().map(|v| text(&v[0]));
        let tree = matches!(
            solved.strategy,
            door::Strategy::Exact(_) | door::Strategy::Float { .. }
        );
        let game = match solved.game {
            Some(g) if tree => Arc::new(g),
            _ => {
                job.note = Some("played on the game's rules: there is no tree to explore".into());
                return Ok(());
            }
        };
        let (strategy, json) = match solved.strategy {
            door::Strategy::Exact(p) => {
                let j = bluff::format::strategy_json::profile_to_json(&game, &job.spec.game, &p);
                (bluff::report::Strategy::Exact(p), j)
            }
            door::Strategy::Float { average, .. } => {
                let j =
                    bluff::format::strategy_json::profile_to_json(&game, &job.spec.game, &average);
                (bluff::report::Strategy::Float(average), j)
            }
            _ => bail!("this run has no strategy over the game's tree"),
        };
        let body = serde_json::to_string_pretty(&json).expect("JSON values serialise");
        bluff::format::output::write_file(&self.strategy_path(job.id), body.as_bytes())?;
        job.outcome = Some(Arc::new(Outcome {
            game,
            strategy,
            algorithm: solved.algorithm.name.to_string(),
            analysis: std::sync::OnceLock::new(),
        }));
        Ok(())
    }

    /// Asks every running job to checkpoint and stop; waits for them up to `limit`.
    pub fn stop_all(&self, limit: Duration) {
        self.shutdown.store(true, Ordering::SeqCst);
        let start = Instant::now();
        while self.running() > 0 && start.elapsed() < limit {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// A running job's hooks: progress to the job and the event stream, stop on request.
struct JobHooks<'a> {
    jobs: &'a Jobs,
    id: u64,
    control: &'a AtomicU8,
    last_progress: Instant,
    last_save: Instant,
}

impl Hooks for JobHooks<'_> {
    fn progress(&mut self, progress: Progress<'_>) {
        let mut jobs = self.jobs.jobs.lock().unwrap();
        let Some(job) = jobs.get_mut(&self.id) else {
            return;
        };
        job.iterations = progress.iteration;
        if let Some(p) = progress.point {
            // A run resumed from a checkpoint older than the job's record measures again
            // from the checkpoint's iteration: the later points of the record give way.
            while job.curve.last().is_some_and(|q| q.iteration >= p.iteration) {
                job.curve.pop();
            }
            job.curve.push(*p);
            self.jobs.events.publish(&json!({
                "type": "point", "id": self.id,
                "point": [p.iteration, p.exploitability, p.seconds],
            }));
        } else if self.last_progress.elapsed() > Duration::from_millis(250) {
            self.last_progress = Instant::now();
            self.jobs.events.publish(&json!({
                "type": "progress", "id": self.id, "iterations": progress.iteration,
            }));
        }
        if self.last_save.elapsed() > Duration::from_secs(2) {
            self.last_save = Instant::now();
            self.jobs.save(job);
        }
    }
    fn interrupted(&mut self) -> bool {
        self.control.load(Ordering::SeqCst) != GO || self.jobs.shutdown.load(Ordering::SeqCst)
    }
}

impl DoorHooks for JobHooks<'_> {}
