//! The run-time choice between a kernel's vector variant and its scalar
//! form (issue 16's safety net, for OpenCL kernels): a kernel whose lanes
//! diverge a lot (spmv: rows of 0 to 63 entries, three gathers per step)
//! can run slower vectorized than work-item by work-item. Its first
//! work-groups are run alternately both ways, adjacent groups being about
//! as costly as each other in the data kernels usually see, and once both
//! ways have enough samples the faster one is used for the rest of this
//! launch and for every later launch of the kernel. Vectorization keeps the
//! benefit of the doubt: scalar wins only when it is clearly faster.
//! Both ways compute the same results, so the choice changes only time.
//! `LANEWISE_OPENCL_ADAPTIVE=off` always uses the vector variant.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Samples each way needs before a decision.
const SAMPLES: u32 = 8;
/// And the sampled time each way needs (short groups are noisy).
const MIN_SAMPLED: Duration = Duration::from_micros(100);
/// Scalar wins when its time per work-item is below this share of the
/// vector variant's.
const SCALAR_MARGIN: f64 = 0.8;

const UNDECIDED: u8 = 0;
const VECTOR: u8 = 1;
const SCALAR: u8 = 2;

/// How a kernel runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Still sampling: run the next group the way `sample_vector` says.
    Sample,
    Vector,
    Scalar,
}

#[derive(Default)]
struct Samples {
    vector: (u32, Duration, u64),
    scalar: (u32, Duration, u64),
}

/// One kernel's choice, shared by all its launches.
#[derive(Default)]
pub struct KernelChoice {
    decided: AtomicU8,
    samples: Mutex<Samples>,
}

pub fn enabled() -> bool {
    std::env::var("LANEWISE_OPENCL_ADAPTIVE").map_or(true, |value| value != "off")
}

impl KernelChoice {
    pub fn choice(&self) -> Choice {
        match self.decided.load(Ordering::Relaxed) {
            VECTOR => Choice::Vector,
            SCALAR => Choice::Scalar,
            _ => Choice::Sample,
        }
    }

    /// Whether the next sample should run the vector variant (the way with
    /// fewer samples so far).
    pub fn sample_vector(&self) -> bool {
        let samples = self.samples.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        samples.vector.0 <= samples.scalar.0
    }

    /// Records a group of `items` work-items that took `time`, and decides
    /// once both ways have enough samples.
    pub fn record(&self, vector: bool, time: Duration, items: u64) {
        if self.decided.load(Ordering::Relaxed) != UNDECIDED {
            return;
        }
        let mut samples = self.samples.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let way = if vector { &mut samples.vector } else { &mut samples.scalar };
        way.0 += 1;
        way.1 += time;
        way.2 += items;
        let enough = |way: &(u32, Duration, u64)| way.0 >= SAMPLES && way.1 >= MIN_SAMPLED;
        if enough(&samples.vector) && enough(&samples.scalar) {
            let per_item = |way: &(u32, Duration, u64)| way.1.as_secs_f64() / way.2.max(1) as f64;
            let scalar_faster =
                per_item(&samples.scalar) < SCALAR_MARGIN * per_item(&samples.vector);
            self.decided.store(if scalar_faster { SCALAR } else { VECTOR }, Ordering::Relaxed);
        }
    }

    /// Decides for the vector variant without sampling (kernels that cannot
    /// switch, or adaptivity off).
    pub fn always_vector(&self) {
        self.decided.store(VECTOR, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clearly_faster_way_wins_and_vector_keeps_the_benefit_of_the_doubt() {
        let slow_vector = KernelChoice::default();
        for _ in 0..SAMPLES {
            assert_eq!(slow_vector.choice(), Choice::Sample);
            slow_vector.record(true, Duration::from_micros(200), 100);
            slow_vector.record(false, Duration::from_micros(100), 100);
        }
        assert_eq!(slow_vector.choice(), Choice::Scalar);

        let close = KernelChoice::default();
        for _ in 0..SAMPLES {
            close.record(true, Duration::from_micros(100), 100);
            close.record(false, Duration::from_micros(90), 100);
        }
        assert_eq!(close.choice(), Choice::Vector);
    }

    #[test]
    fn short_samples_do_not_decide() {
        let choice = KernelChoice::default();
        for _ in 0..SAMPLES * 4 {
            choice.record(true, Duration::from_nanos(100), 100);
            choice.record(false, Duration::from_nanos(10), 100);
        }
        assert_eq!(choice.choice(), Choice::Sample, "a few microseconds in all are noise");
    }
}
