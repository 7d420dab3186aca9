//! The threads that run kernels: one per core, kept for the life of the
//! process (a launch used to spawn its threads, which cost more than a
//! small kernel's work). A launch runs a job on every pool thread and on
//! the calling thread (a queue's worker), so a launch uses exactly as many
//! threads as the machine has cores; launches from several queues take
//! turns.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::thread;

type Job = Arc<dyn Fn() + Send + Sync>;

#[derive(Default)]
struct State {
    /// The current job and its number; helpers run each number once.
    job: Option<Job>,
    generation: u64,
    /// Helpers still running the current job.
    running: usize,
}

struct Pool {
    state: Mutex<State>,
    /// Signals the helpers (a new job) and the caller (a helper finished).
    changed: Condvar,
    /// Serializes launches.
    launch: Mutex<()>,
    /// The helper threads that started.
    helpers: AtomicUsize,
}

fn lock(mutex: &Mutex<State>) -> MutexGuard<'_, State> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn pool() -> &'static Pool {
    static POOL: OnceLock<&'static Pool> = OnceLock::new();
    POOL.get_or_init(|| {
        let cores = thread::available_parallelism().map_or(1, |n| n.get());
        let pool: &'static Pool = Box::leak(Box::new(Pool {
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
            launch: Mutex::new(()),
            helpers: AtomicUsize::new(0),
        }));
        for _ in 1..cores {
            let spawned = thread::Builder::new()
                .name("lanewise-opencl-pool".into())
                .spawn(move || helper(pool));
            // A helper that cannot start: launches run on fewer threads.
            if spawned.is_err() {
                break;
            }
            pool.helpers.fetch_add(1, Ordering::Relaxed);
        }
        pool
    })
}

fn helper(pool: &'static Pool) {
    let mut seen = 0;
    loop {
        let job = {
            let mut state = lock(&pool.state);
            while state.generation == seen {
                state = pool.changed.wait(state).unwrap_or_else(|poisoned| poisoned.into_inner());
            }
            seen = state.generation;
            state.job.clone()
        };
        if let Some(job) = job {
            job();
        }
        let mut state = lock(&pool.state);
        state.running -= 1;
        if state.running == 0 {
            pool.changed.notify_all();
        }
    }
}

/// Runs `job` on every thread of the pool and on the calling thread, and
/// returns when all have finished it.
pub fn run_on_all_threads(job: impl Fn() + Send + Sync + 'static) {
    let pool = pool();
    let _turn = pool.launch.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let job: Job = Arc::new(job);
    {
        let mut state = lock(&pool.state);
        state.job = Some(job.clone());
        state.generation += 1;
        state.running = pool.helpers.load(Ordering::Relaxed);
    }
    pool.changed.notify_all();
    job();
    let mut state = lock(&pool.state);
    while state.running > 0 {
        state = pool.changed.wait(state).unwrap_or_else(|poisoned| poisoned.into_inner());
    }
    state.job = None;
}

/// The number of threads a launch runs on.
pub fn threads() -> usize {
    pool().helpers.load(Ordering::Relaxed) + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_thread_runs_each_job_once() {
        for _ in 0..100 {
            let count = Arc::new(AtomicUsize::new(0));
            let counted = count.clone();
            run_on_all_threads(move || {
                counted.fetch_add(1, Ordering::Relaxed);
            });
            assert_eq!(count.load(Ordering::Relaxed), threads());
        }
    }
}
