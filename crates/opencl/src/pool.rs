//! The threads that run kernels: one per core, kept for the life of the
//! process (a launch used to spawn its threads, which cost more than a
//! small kernel's work). A launch runs a job on the calling thread (a
//! queue's worker) and offers it to the pool's helpers, so it uses at most
//! as many threads as the machine has cores; launches from several queues
//! take turns. The caller does not wait for helpers to wake up: a job
//! hands out its work itself and knows when it is done (the executor's
//! `Launch`), so a small launch that the caller finishes alone costs no
//! thread wake-up on its critical path. With helpers that poll for the
//! next job before they sleep, an empty launch went from 10 µs to 3 µs
//! (PoCL: 1.3 µs), and 384 launches of Floyd-Warshall from 33 to 24 ms.
//! `LANEWISE_OPENCL_THREADS=N` runs launches on N threads instead of one
//! per core.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

/// How long a helper that finished a job polls for the next one before it
/// sleeps: back-to-back launches (a host loop of small kernels) then cost
/// no wake-up at all.
const SPIN: Duration = Duration::from_micros(50);

type Job = Arc<dyn Fn() + Send + Sync>;

#[derive(Default)]
struct State {
    /// The current job and its number; a helper runs each number at most
    /// once, and none that a newer job replaced before it woke up.
    job: Option<Job>,
    generation: u64,
    /// Helpers asleep on `changed` (only they need a notification, a
    /// system call).
    sleepers: usize,
}

struct Pool {
    state: Mutex<State>,
    /// Signals the helpers: a new job.
    changed: Condvar,
    /// Serializes launches.
    launch: Mutex<()>,
    /// The helper threads that started.
    helpers: AtomicUsize,
    /// `State::generation`, for helpers polling without the lock.
    generation: AtomicU64,
}

fn lock(mutex: &Mutex<State>) -> MutexGuard<'_, State> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn pool() -> &'static Pool {
    static POOL: OnceLock<&'static Pool> = OnceLock::new();
    POOL.get_or_init(|| {
        let cores = std::env::var("LANEWISE_OPENCL_THREADS")
            .ok()
            .and_then(|value| value.parse::<usize>().ok())
            .filter(|&threads| threads > 0)
            .unwrap_or_else(|| thread::available_parallelism().map_or(1, |n| n.get()));
        let pool: &'static Pool = Box::leak(Box::new(Pool {
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
            launch: Mutex::new(()),
            helpers: AtomicUsize::new(0),
            generation: AtomicU64::new(0),
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
        let polling = Instant::now();
        while pool.generation.load(Ordering::Acquire) == seen && polling.elapsed() < SPIN {
            for _ in 0..64 {
                std::hint::spin_loop();
            }
        }
        let job = {
            let mut state = lock(&pool.state);
            while state.generation == seen {
                state.sleepers += 1;
                state = pool.changed.wait(state).unwrap_or_else(|poisoned| poisoned.into_inner());
                state.sleepers -= 1;
            }
            seen = state.generation;
            state.job.clone()
        };
        if let Some(job) = job {
            job();
        }
    }
}

/// Runs `job` on the calling thread and offers it to the pool's helpers,
/// each of which runs it once if it wakes up while `job` is the current
/// job; returns when the calling thread has run it. `job` must share its
/// work out itself and, for the caller, wait for what helpers took.
/// Launches take turns: `job` stays current until `done` returns.
pub fn offer(job: impl Fn() + Send + Sync + 'static, done: impl FnOnce()) {
    let pool = pool();
    let _turn = pool.launch.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let job: Job = Arc::new(job);
    let wake = {
        let mut state = lock(&pool.state);
        state.job = Some(job.clone());
        state.generation += 1;
        pool.generation.store(state.generation, Ordering::Release);
        state.sleepers > 0
    };
    if wake {
        pool.changed.notify_all();
    }
    job();
    done();
    lock(&pool.state).job = None;
}

/// The number of threads a launch runs on.
pub fn threads() -> usize {
    pool().helpers.load(Ordering::Relaxed) + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_caller_runs_each_job_and_helpers_at_most_once() {
        for _ in 0..100 {
            let count = Arc::new(AtomicUsize::new(0));
            let counted = count.clone();
            let seen = Arc::new(AtomicUsize::new(0));
            let seen_by_done = seen.clone();
            let counted_by_done = count.clone();
            offer(
                move || {
                    counted.fetch_add(1, Ordering::Relaxed);
                },
                move || {
                    seen_by_done.store(counted_by_done.load(Ordering::Relaxed), Ordering::Relaxed)
                },
            );
            let at_done = seen.load(Ordering::Relaxed);
            assert!((1..=threads()).contains(&at_done), "{at_done} runs when done");
            assert!(count.load(Ordering::Relaxed) <= threads());
        }
    }

    #[test]
    fn helpers_run_a_job_no_newer_one_replaced() {
        let count = Arc::new(AtomicUsize::new(0));
        let counted = count.clone();
        // The job stays current while `done` waits for every helper.
        offer(
            move || {
                counted.fetch_add(1, Ordering::Relaxed);
            },
            || {
                while count.load(Ordering::Relaxed) < threads() {
                    thread::yield_now();
                }
            },
        );
    }
}
