//! lanewise-opencl: Lanewise as an OpenCL 1.2 platform for the CPU
//! (issue 15), loaded by the Khronos ICD loader (Debian's ocl-icd) through
//! an `.icd` file that names `liblanewise_opencl.so`.
//!
//! # State
//! The host API's platform, device, context, in-order command queue,
//! buffer (all host-pointer flags, read/write/copy/fill/map/unmap,
//! sub-buffers, destructor callbacks) and event (user events, callbacks,
//! profiling) functions are implemented. Programs and kernels are not yet:
//! `CL_DEVICE_COMPILER_AVAILABLE` is false and the program functions fail
//! with `CL_INVALID_OPERATION`; the kernel compiler (clang-22 for OpenCL C,
//! Lanewise across the work-items of dimension 0, barriers as in the WFV
//! thesis 8.2) is the next step.
//!
//! # Design
//! - [`abi`]: the C entry points and every `unsafe` of reading and writing
//!   the application's memory; [`raw`]: the other unsafe operations
//!   (handle words, buffer storage, copies, callbacks). Nothing else is
//!   unsafe.
//! - [`dispatch`]: the ICD dispatch table, built by name from
//!   [`cl::DISPATCH_ORDER`] (generated from CL/cl_icd.h).
//! - [`objects`]: handles are keys of a registry of `Arc`ed objects; a
//!   stale or foreign handle is an error code, never a dereference.
//! - [`platform`]: the device's facts, read off the machine.
//! - [`context`], [`memory`], [`queue`], [`event`]: the objects, safe Rust.

pub mod abi;
pub mod cl;
pub mod context;
pub mod dispatch;
pub mod event;
pub mod info;
pub mod memory;
pub mod objects;
pub mod platform;
pub mod queue;
pub mod raw;
