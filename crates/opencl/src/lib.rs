//! lanewise-opencl: Lanewise as an OpenCL 1.2 platform for the CPU
//! (issue 15), loaded by the Khronos ICD loader (Debian's ocl-icd) through
//! an `.icd` file that names `liblanewise_opencl.so`.
//!
//! # State
//! The host API's platform, device, context, in-order command queue,
//! buffer (all host-pointer flags, read/write/copy/fill/map/unmap,
//! sub-buffers, destructor callbacks) and event (user events, callbacks,
//! profiling) functions are implemented, and so are programs from source
//! and kernels ([`compiler`]: clang-22 for OpenCL C, Lanewise across the
//! work-items of dimension 0; [`executor`]: work-groups in parallel on all
//! cores, W work-items per call, fibers for barriers), with the
//! work-item, synchronization, math, common, geometric and part of the
//! integer and relational builtins, conversions, vector loads and stores
//! and 32-bit atomics (builtins/). Not yet: the other builtins (rounding
//! modes, `vload_half`, `shuffle`, ...), binaries, separate compilation. A program that calls a missing builtin fails to build and
//! the log names it.
//!
//! # Design
//! - [`abi`]: the C entry points and every `unsafe` of reading and writing
//!   the application's memory; [`raw`]: the other unsafe operations
//!   (buffer storage, copies, callbacks, calls into a program's code). Nothing else is
//!   unsafe.
//! - [`dispatch`]: the ICD dispatch table, built by name from
//!   [`cl::DISPATCH_ORDER`] (generated from CL/cl_icd.h).
//! - [`objects`]: handles are keys of a registry of `Arc`ed objects; a
//!   stale or foreign handle is an error code, never a dereference.
//! - [`platform`]: the device's facts, read off the machine.
//! - [`context`], [`memory`], [`queue`], [`event`], [`program`],
//!   [`kernel`]: the objects, safe Rust.
//! - [`compiler`]: `clBuildProgram`'s pipeline (clang-22, llvm-link-22,
//!   opt-22, Lanewise, trampolines, a shared object); builtins/: the
//!   work-item functions (OpenCL C) and the per-thread work-group record
//!   (C).
//! - [`executor`] runs `clEnqueueNDRangeKernel`.

pub mod abi;
pub mod adaptive;
pub mod cl;
pub mod compiler;
pub mod context;
pub mod continuations;
pub mod dispatch;
pub mod event;
pub mod executor;
pub mod info;
pub mod kernel;
pub mod memory;
pub mod objects;
pub mod platform;
pub mod pool;
pub mod program;
pub mod queue;
pub mod raw;
