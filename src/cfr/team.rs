//! A fixed team of threads for the parallel CFR passes. An iteration of a game of a few
//! hundred thousand nodes takes about a millisecond and synchronises twice, so handing a
//! phase to a sleeping thread (tens of microseconds for the kernel to wake it, more on a
//! virtual machine whose idle CPU halted) costs much of it, and a thread pool that wakes a
//! worker per parallel section lost the second thread for most of each iteration. Here the
//! calling thread works as one member of the team, and the helpers spin on the phase word
//! for [`SPIN`] after each phase before they sleep, so a phase reaches them in about a
//! microsecond while iterations run and they cost nothing once the solver is idle.
//!
//! A phase runs tasks `0..n` of one job, each exactly once: the calling thread claims tasks
//! from the front, the helpers from the back (so a task tends to stay on the same thread from
//! one iteration to the next, with its data in that core's cache), and the call returns when
//! every task is done. Which thread runs a task never changes what it computes.

use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::AtomicU64;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Most tasks of one phase (the phase word holds two 16-bit task counters).
pub const MAX_TASKS: usize = u16::MAX as usize;
/// How long an idle helper spins for the next phase before it sleeps: far longer than the
/// serial steps between the phases of an iteration, far shorter than anything a user sees.
const SPIN: Duration = Duration::from_micros(300);
/// Spins of a waiting calling thread before it yields its core at every check (a helper
/// that another process pushed off its core then gets it back sooner).
const LEADER_SPINS: u32 = 1 << 14;

/// The job of a phase: runs one task.
type Job<'a> = &'a (dyn Fn(usize) + Sync);

/// What the team's threads share.
struct State {
    /// The phase number (high 32 bits), the next task from the front (16 bits) and one past
    /// the next task from the back (low 16 bits): a task is claimed by moving one end.
    word: AtomicU64,
    /// Tasks of the current phase finished (or panicked).
    done: AtomicUsize,
    /// The current phase's job (a `Job` on the calling thread's stack, alive until every
    /// claimed task of the phase is counted done).
    job: AtomicPtr<Job<'static>>,
    /// Helpers asleep or about to sleep.
    sleepers: AtomicUsize,
    lock: Mutex<()>,
    wake: Condvar,
    shutdown: AtomicBool,
    /// A task panicked on a helper in the current phase.
    panicked: AtomicBool,
}

fn pack(phase: u32, front: usize, back: usize) -> u64 {
    (phase as u64) << 32 | (front as u64) << 16 | back as u64
}

fn phase_of(word: u64) -> u32 {
    (word >> 32) as u32
}

impl State {
    /// Claims a task of phase `phase` from the front or the back; `None` once all are claimed
    /// or the phase is over.
    fn claim(&self, phase: u32, front: bool) -> Option<usize> {
        let mut w = self.word.load(Ordering::Acquire);
        loop {
            let (f, b) = ((w >> 16) & 0xffff, w & 0xffff);
            if phase_of(w) != phase || f >= b {
                return None;
            }
            let (next, task) = if front {
                (w + (1 << 16), f)
            } else {
                (w - 1, b - 1)
            };
            match self
                .word
                .compare_exchange_weak(w, next, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return Some(task as usize),
                Err(now) => w = now,
            }
        }
    }

    /// Runs task `i` of the current job, which the caller has claimed (the caller then counts
    /// it done). A panic is caught and returned.
    fn execute(&self, i: usize) -> Result<(), Box<dyn Any + Send>> {
        // SAFETY: the job was stored before the phase word that the claim read from (release
        // / acquire), and it stays alive until this task is counted done, which the caller
        // does after this returns.
        let job: Job = unsafe { *self.job.load(Ordering::Acquire) };
        catch_unwind(AssertUnwindSafe(|| job(i)))
    }

    /// Wakes the sleeping helpers (after a new phase word or the shutdown flag was stored).
    fn wake_sleepers(&self) {
        if self.sleepers.load(Ordering::SeqCst) > 0 {
            drop(self.lock.lock().unwrap_or_else(|e| e.into_inner()));
            self.wake.notify_all();
        }
    }
}

/// A team of threads: the calling thread and `threads - 1` helpers (see the module docs).
pub struct Team {
    state: Arc<State>,
    helpers: Vec<JoinHandle<()>>,
    /// The last phase started.
    phase: u32,
}

impl Team {
    /// A team of `threads` threads (the caller and `threads - 1` helpers it spawns).
    pub fn new(threads: usize) -> std::io::Result<Team> {
        let state = Arc::new(State {
            word: AtomicU64::new(0),
            done: AtomicUsize::new(0),
            job: AtomicPtr::new(std::ptr::null_mut()),
            sleepers: AtomicUsize::new(0),
            lock: Mutex::new(()),
            wake: Condvar::new(),
            shutdown: AtomicBool::new(false),
            panicked: AtomicBool::new(false),
        });
        let mut team = Team {
            state,
            helpers: Vec::new(),
            phase: 0,
        };
        for k in 1..threads.max(1) {
            let state = Arc::clone(&team.state);
            let helper = std::thread::Builder::new()
                .name(format!("bluff-cfr-{k}"))
                .spawn(move || helper(&state))?;
            team.helpers.push(helper);
        }
        Ok(team)
    }

    /// Runs `job(i)` for every `i` in `0..tasks`, each exactly once, on the team's threads;
    /// returns when all are done. A panic in a task is raised here once all are done.
    pub fn run(&mut self, tasks: usize, job: &(dyn Fn(usize) + Sync)) {
        assert!(tasks <= MAX_TASKS, "{tasks} tasks in one phase");
        if self.helpers.is_empty() || tasks <= 1 {
            (0..tasks).for_each(job);
            return;
        }
        let s = &*self.state;
        // SAFETY: only the lifetime is erased; the helpers call the job only for tasks they
        // claimed in this phase, and this function returns (or unwinds) only after every
        // task of the phase is counted done.
        let erased: Job<'static> = unsafe { std::mem::transmute::<Job<'_>, Job<'static>>(job) };
        s.job.store(
            &erased as *const Job<'static> as *mut Job<'static>,
            Ordering::Relaxed,
        );
        s.done.store(0, Ordering::Relaxed);
        self.phase = self.phase.wrapping_add(1);
        s.word.store(pack(self.phase, 0, tasks), Ordering::SeqCst);
        s.wake_sleepers();
        let mut payload = None;
        while let Some(i) = s.claim(self.phase, true) {
            if let Err(e) = catch_unwind(AssertUnwindSafe(|| job(i))) {
                payload = Some(e);
            }
            s.done.fetch_add(1, Ordering::Release);
        }
        let mut spins = 0u32;
        while s.done.load(Ordering::Acquire) < tasks {
            if spins < LEADER_SPINS {
                spins += 1;
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        if let Some(e) = payload {
            resume_unwind(e);
        }
        if s.panicked.swap(false, Ordering::Relaxed) {
            panic!("a task of a CFR thread panicked");
        }
    }
}

impl Drop for Team {
    fn drop(&mut self) {
        self.state.shutdown.store(true, Ordering::SeqCst);
        self.state.wake_sleepers();
        for h in self.helpers.drain(..) {
            // A helper's panics are caught per task, so joining only fails on an abort.
            let _ = h.join();
        }
    }
}

/// A helper's loop: wait for a phase, claim its tasks from the back, repeat.
fn helper(s: &State) {
    let mut seen = 0u32;
    loop {
        let Some(phase) = next_phase(s, seen) else {
            return;
        };
        seen = phase;
        while let Some(i) = s.claim(phase, false) {
            if s.execute(i).is_err() {
                s.panicked.store(true, Ordering::Relaxed);
            }
            s.done.fetch_add(1, Ordering::Release);
        }
    }
}

/// Waits for a phase after `seen`: spins for [`SPIN`], then sleeps. `None` at shutdown.
fn next_phase(s: &State, seen: u32) -> Option<u32> {
    let start = Instant::now();
    let mut spins = 0u32;
    loop {
        if s.shutdown.load(Ordering::Acquire) {
            return None;
        }
        let phase = phase_of(s.word.load(Ordering::Acquire));
        if phase != seen {
            return Some(phase);
        }
        spins = spins.wrapping_add(1);
        if spins.is_multiple_of(64) && start.elapsed() > SPIN {
            break;
        }
        std::hint::spin_loop();
    }
    s.sleepers.fetch_add(1, Ordering::SeqCst);
    let mut guard = s.lock.lock().unwrap_or_else(|e| e.into_inner());
    // The phase word and the flag are read after the sleeper count is raised (both
    // sequentially consistent), so a phase started before this check is seen here and one
    // started after it finds the count raised and notifies under the lock.
    while phase_of(s.word.load(Ordering::SeqCst)) == seen && !s.shutdown.load(Ordering::SeqCst) {
        guard = s.wake.wait(guard).unwrap_or_else(|e| e.into_inner());
    }
    drop(guard);
    s.sleepers.fetch_sub(1, Ordering::SeqCst);
    if s.shutdown.load(Ordering::Acquire) {
        return None;
    }
    Some(phase_of(s.word.load(Ordering::Acquire)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;

    /// Every task of every phase runs exactly once, whatever the team size and the number of
    /// tasks (counted per task), and phases after idle gaps long enough for the helpers to
    /// sleep still run.
    #[test]
    fn every_task_runs_once() {
        for threads in [1, 2, 3, 5] {
            let mut team = Team::new(threads).unwrap();
            assert_eq!(team.helpers.len(), threads - 1);
            for (round, tasks) in [0, 1, 2, 3, 7, 64, 1000, MAX_TASKS].into_iter().enumerate() {
                let counts: Vec<AtomicU32> = (0..tasks).map(|_| AtomicU32::new(0)).collect();
                for _ in 0..5 {
                    team.run(tasks, &|i| {
                        counts[i].fetch_add(1, Ordering::Relaxed);
                    });
                }
                assert!(counts.iter().all(|c| c.load(Ordering::Relaxed) == 5));
                if round % 3 == 0 {
                    std::thread::sleep(SPIN * 4);
                }
            }
        }
    }

    /// A panic in a task reaches the caller (on whichever thread it ran), after which the
    /// team still runs phases.
    #[test]
    fn a_panicking_task_panics_the_caller_and_leaves_the_team_usable() {
        let mut team = Team::new(2).unwrap();
        for bad in [0, 63] {
            let ran = AtomicU32::new(0);
            let r = catch_unwind(AssertUnwindSafe(|| {
                team.run(64, &|i| {
                    ran.fetch_add(1, Ordering::Relaxed);
                    assert_ne!(i, bad, "task {i}");
                })
            }));
            assert!(r.is_err());
            assert_eq!(ran.load(Ordering::Relaxed), 64);
        }
        let sum = AtomicU32::new(0);
        team.run(10, &|i| {
            sum.fetch_add(i as u32, Ordering::Relaxed);
        });
        assert_eq!(sum.load(Ordering::Relaxed), 45);
    }
}
