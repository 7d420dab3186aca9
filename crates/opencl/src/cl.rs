//! The OpenCL C API's scalar types, its enumerants (generated from the
//! Khronos headers) and the order of the ICD dispatch table.

#![allow(non_camel_case_types)]

mod constants;
mod dispatch_order;

pub use constants::*;
pub use dispatch_order::DISPATCH_ORDER;

pub type cl_int = i32;
pub type cl_uint = u32;
pub type cl_ulong = u64;
pub type cl_bool = u32;
pub type cl_bitfield = u64;

/// `CL_PLATFORM_ICD_SUFFIX_KHR` (CL/cl_ext.h, the cl_khr_icd extension).
pub const CL_PLATFORM_ICD_SUFFIX_KHR: cl_uint = 0x0920;
/// `CL_PLATFORM_NOT_FOUND_KHR` (CL/cl_ext.h).
pub const CL_PLATFORM_NOT_FOUND_KHR: cl_int = -1001;
