//! `clEnqueueNDRangeKernel`: runs a kernel over an NDRange.
//!
//! Work-groups run in parallel on the pool's threads, one per core
//! ([`crate::pool`]), taken in chunks. Within a work-group, one thread runs
//! the work-items row by row in dimension 0, W at a time through the
//! kernel's vector variant, and the last `local_size[0] % W` in one call of
//! its masked variant (in a kernel run as fibers, one at a time through the
//! scalar kernel): the runtime's `__lw_run_work_groups`
//! (builtins/runtime.c), which keeps the thread's `lw_work_group` up to date
//! for each call. A kernel with barriers runs region by region (its
//! continuation form, [`crate::continuations`]) or, where that form cannot
//! express it, each call as a fiber that a barrier suspends until all have
//! reached it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::adaptive::{self, Choice};
use crate::cl::*;
use crate::compiler::Barriers;
use crate::kernel::{ArgValue, Kernel};
use crate::platform::BUFFER_ALIGN_BYTES;
use crate::pool;
use crate::raw::{self, Allocation};

/// `lw_work_group` of builtins/runtime.c.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct WorkGroup {
    pub dims: u32,
    pub global_offset: [usize; 3],
    pub global_size: [usize; 3],
    pub local_size: [usize; 3],
    pub group_id: [usize; 3],
    pub num_groups: [usize; 3],
    pub local_id: [usize; 3],
    /// The continuation form's state (compiler::Barriers::Continuations):
    /// the region to run, the regions reached, the spill area.
    pub resume: u64,
    pub reached: u64,
    pub spill: usize,
}

/// The index space of one enqueue, with unused dimensions of size 1.
#[derive(Clone, Copy, Debug)]
pub struct NdRange {
    pub dims: u32,
    pub offset: [usize; 3],
    pub global: [usize; 3],
    pub local: [usize; 3],
}

/// A work-group size for dimension 0 when the application gives none: the
/// largest divisor of the global size up to 256, preferring multiples of
/// the SIMD width.
pub fn choose_local_size(global: usize, width: usize) -> usize {
    let limit = global.min(256);
    let divisors = (1..=limit).rev().filter(|size| global.is_multiple_of(*size));
    divisors.clone().find(|size| size.is_multiple_of(width)).or(divisors.max()).unwrap_or(1)
}

/// A kernel's entry points in its program's shared object (0: none).
#[derive(Clone, Copy)]
pub struct Trampolines {
    pub vector: usize,
    pub masked: usize,
    pub scalar: usize,
}

/// One launch: what every thread of the pool needs to take chunks of
/// work-groups and run them.
struct Launch {
    kernel: Arc<Kernel>,
    args: Vec<ArgValue>,
    runner: usize,
    trampolines: Trampolines,
    width: u32,
    barriers: BarrierMode,
    range: WorkGroup,
    total: usize,
    chunk: usize,
    next: AtomicUsize,
    /// Threads between taking a chunk and finishing it: the launch is done
    /// when every chunk is taken and this is 0 (`pool::offer`).
    active: AtomicUsize,
    status: Mutex<cl_int>,
}

impl Launch {
    /// Records a failure and stops handing out work-groups (a thread that
    /// stops early must not leave groups for helpers to run after the
    /// caller returned).
    fn fail(&self, status: cl_int) {
        self.next.store(self.total, Ordering::SeqCst);
        let mut current = self.status.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        *current = (*current).min(status);
    }

    /// One thread's part: chunks of work-groups until none is left.
    fn work(&self) {
        let _alive = &self.kernel;
        let Some(storage) = ArgStorage::new(&self.args) else {
            return self.fail(CL_OUT_OF_RESOURCES);
        };
        let pointers = storage.pointers();
        let choice = &self.kernel.executable.choices[self.kernel.index];
        let items_per_group = self.range.local_size.iter().product::<usize>() as u64;
        loop {
            let mode = choice.choice();
            // While sampling, one group at a time.
            let chunk = if mode == Choice::Sample { 1 } else { self.chunk };
            // Counted as active before taking (both sequentially
            // consistent), so a thread that finds no chunk left also sees
            // every thread still running one (`wait_for_helpers`).
            self.active.fetch_add(1, Ordering::SeqCst);
            let first = self.next.fetch_add(chunk, Ordering::SeqCst);
            if first >= self.total {
                self.active.fetch_sub(1, Ordering::Release);
                return;
            }
            let count = chunk.min(self.total - first);
            let use_vector = match mode {
                Choice::Sample => choice.sample_vector(),
                Choice::Vector => true,
                Choice::Scalar => false,
            };
            let start = Instant::now();
            let status = raw::run_work_groups(
                self.runner,
                &self.range,
                first,
                count,
                if use_vector {
                    self.trampolines
                } else {
                    Trampolines { vector: 0, masked: 0, ..self.trampolines }
                },
                self.width,
                &pointers,
                self.barriers,
            );
            if mode == Choice::Sample {
                choice.record(use_vector, start.elapsed(), items_per_group * count as u64);
            }
            if status != 0 {
                // A barrier that some work-items of a group never reached
                // (undefined in OpenCL) fails the command with
                // CL_INVALID_OPERATION; no memory for fibers, with
                // CL_OUT_OF_RESOURCES.
                self.fail(if status == -2 { CL_INVALID_OPERATION } else { CL_OUT_OF_RESOURCES });
                self.active.fetch_sub(1, Ordering::Release);
                return;
            }
            self.active.fetch_sub(1, Ordering::Release);
        }
    }

    /// After the caller's own `work`: every chunk is taken; waits until
    /// the helpers that took one have finished it.
    fn wait_for_helpers(&self) {
        while self.active.load(Ordering::SeqCst) != 0 {
            std::thread::yield_now();
        }
    }
}

/// How the runtime passes a work-group's barriers (its `barriers` argument,
/// builtins/runtime.c).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarrierMode {
    None,
    Fibers,
    /// Continuation form, every region through the vector variant.
    RegionsVector {
        spill_bytes: u64,
    },
    /// Continuation form, each region the way its first work-groups showed
    /// faster (with `LANEWISE_OPENCL_ADAPTIVE` on, the default).
    RegionsChosen {
        spill_bytes: u64,
    },
    /// Continuation form, odd regions work-item by work-item
    /// (`LANEWISE_OPENCL_REGIONS=alternate`, for tests of the mixed ways).
    RegionsAlternate {
        spill_bytes: u64,
    },
}

impl BarrierMode {
    fn of(barriers: Barriers) -> BarrierMode {
        match barriers {
            Barriers::None => BarrierMode::None,
            Barriers::Fibers => BarrierMode::Fibers,
            Barriers::Continuations { spill_bytes } => {
                if std::env::var("LANEWISE_OPENCL_REGIONS").is_ok_and(|value| value == "alternate")
                {
                    BarrierMode::RegionsAlternate { spill_bytes }
                } else if adaptive::enabled() {
                    BarrierMode::RegionsChosen { spill_bytes }
                } else {
                    BarrierMode::RegionsVector { spill_bytes }
                }
            }
        }
    }

    /// The runtime's `barriers` and `spill_bytes` arguments.
    pub fn arguments(self) -> (i32, usize) {
        match self {
            BarrierMode::None => (0, 0),
            BarrierMode::Fibers => (1, 0),
            BarrierMode::RegionsVector { spill_bytes } => (2, spill_bytes as usize),
            BarrierMode::RegionsChosen { spill_bytes } => (3, spill_bytes as usize),
            BarrierMode::RegionsAlternate { spill_bytes } => (4, spill_bytes as usize),
        }
    }
}

/// Runs `kernel` with `args` over `range` on the pool's threads;
/// `CL_COMPLETE` or an error code.
pub fn run(kernel: Arc<Kernel>, args: Vec<ArgValue>, range: NdRange) -> cl_int {
    let library = &kernel.executable.library;
    let name = &kernel.info_of().name;
    let (Some(runner), Some(scalar)) = (
        library.function("__lw_run_work_groups"),
        library.function(&format!("__lw_scalar_{name}")),
    ) else {
        return CL_INVALID_PROGRAM_EXECUTABLE;
    };
    // The widest vector variant no wider than a work-group row (an 8-wide
    // tile on an AVX-512 machine runs through the 8-lane variant).
    let width =
        kernel.info_of().widths.iter().copied().find(|&width| width as usize <= range.local[0]);
    let vector = width
        .and_then(|width| library.function(&format!("__lw_vector{width}_{name}")))
        .unwrap_or(0);
    let masked = width
        .filter(|width| kernel.info_of().masked_widths.contains(width))
        .and_then(|width| library.function(&format!("__lw_masked{width}_{name}")))
        .unwrap_or(0);
    let barriers = BarrierMode::of(kernel.info_of().barriers);
    // Only a kernel with a vector variant and no barriers chooses as a
    // whole at run time (see `adaptive`); one in continuation form chooses
    // per region (`BarrierMode::RegionsChosen`), one run as fibers not at
    // all (a fiber per work-item would make the scalar samples slow for
    // nothing).
    if vector == 0 || barriers != BarrierMode::None || !adaptive::enabled() {
        kernel.executable.choices[kernel.index].always_vector();
    }
    let groups: [usize; 3] = std::array::from_fn(|d| range.global[d] / range.local[d]);
    let total = groups.iter().product::<usize>();
    // Groups are handed out in chunks (one runtime call each), about 16 per
    // thread: small groups cost a call each otherwise, and 16 chunks per
    // thread still balance uneven groups.
    let chunk = (total / (pool::threads() * 16)).max(1);
    let launch = Arc::new(Launch {
        kernel: kernel.clone(),
        args,
        runner,
        trampolines: Trampolines { vector, masked, scalar },
        width: width.unwrap_or(1),
        barriers,
        range: WorkGroup {
            dims: range.dims,
            global_offset: range.offset,
            global_size: range.global,
            local_size: range.local,
            group_id: [0; 3],
            num_groups: groups,
            local_id: [0; 3],
            ..WorkGroup::default()
        },
        total,
        chunk,
        next: AtomicUsize::new(0),
        active: AtomicUsize::new(0),
        status: Mutex::new(CL_COMPLETE),
    });
    let job = launch.clone();
    pool::offer(move || job.work(), || launch.wait_for_helpers());
    let status = *launch.status.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    status
}

/// One thread's argument values: by-value bytes, buffer addresses, and
/// its own `__local` memory. Each value is kept in 16-byte words, so a
/// struct passed by value is as aligned as its type asks (`byval` promises
/// the kernel its alignment).
struct ArgStorage {
    values: Vec<Vec<u128>>,
    _local: Vec<Allocation>,
}

/// `bytes` in native-endian 16-byte words (the same bytes in memory).
fn aligned_words(bytes: &[u8]) -> Vec<u128> {
    bytes
        .chunks(16)
        .map(|chunk| {
            let mut word = [0u8; 16];
            word[..chunk.len()].copy_from_slice(chunk);
            u128::from_ne_bytes(word)
        })
        .collect()
}

impl ArgStorage {
    fn new(args: &[ArgValue]) -> Option<ArgStorage> {
        let mut values = Vec::new();
        let mut local = Vec::new();
        for arg in args {
            let bytes = match arg {
                ArgValue::Bytes(bytes) => bytes.clone(),
                ArgValue::Buffer(buffer) => {
                    buffer.as_ref().map_or(0, |buffer| buffer.address(0)).to_ne_bytes().to_vec()
                }
                ArgValue::Local(size) => {
                    let allocation = Allocation::new(*size, BUFFER_ALIGN_BYTES)?;
                    let address = allocation.address();
                    local.push(allocation);
                    address.to_ne_bytes().to_vec()
                }
            };
            values.push(aligned_words(&bytes));
        }
        Some(ArgStorage { values, _local: local })
    }

    /// The address of each value, for the trampoline's `void **args`.
    fn pointers(&self) -> Vec<usize> {
        self.values.iter().map(|value| value.as_ptr() as usize).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chosen_local_sizes_divide_the_global_size() {
        assert_eq!(choose_local_size(1024, 8), 256);
        assert_eq!(choose_local_size(1000, 8), 200);
        assert_eq!(choose_local_size(7, 8), 7);
        assert_eq!(choose_local_size(1, 16), 1);
        assert_eq!(choose_local_size(999, 8), 111);
    }

    #[test]
    fn the_work_group_has_the_runtimes_layout() {
        // unsigned, padding, six arrays of three size_t, the continuation
        // state at the offsets `continuations` reads.
        assert_eq!(std::mem::size_of::<WorkGroup>(), 8 + 6 * 3 * 8 + 3 * 8);
        assert_eq!(std::mem::offset_of!(WorkGroup, resume), 152);
        assert_eq!(std::mem::offset_of!(WorkGroup, reached), 160);
        assert_eq!(std::mem::offset_of!(WorkGroup, spill), 168);
    }
}
