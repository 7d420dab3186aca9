//! The platform and its one device: the machine's CPU.
//!
//! Every `CL_DEVICE_*` value is read off the machine (the CPU's name and
//! vendor from /proc/cpuinfo, cores from the scheduler's affinity, memory
//! from /proc/meminfo, caches from sysfs, vector widths from the CPU's
//! features) or is a limit of this implementation, documented where it is
//! set. The platform and the device are static objects: their handles are
//! never released and `clRetainDevice`/`clReleaseDevice` do nothing, as the
//! specification says for root devices.

use std::fs;
use std::sync::OnceLock;

use crate::cl::*;
use crate::info::{self, InfoResult};
use crate::objects;

pub const PLATFORM_NAME: &str = "Lanewise";
pub const PLATFORM_VENDOR: &str = "Lanewise";
pub const ICD_SUFFIX: &str = "LW";
const VERSION: &str = concat!("OpenCL 1.2 Lanewise ", env!("CARGO_PKG_VERSION"));
const PLATFORM_EXTENSIONS: &str = "cl_khr_icd";
/// Extensions of the device: what builtins/*.cl implements (the `atom_`
/// names of the 32-bit atomics, byte stores, doubles).
const DEVICE_EXTENSIONS: &str = "cl_khr_icd cl_khr_fp64 cl_khr_byte_addressable_store \
     cl_khr_global_int32_base_atomics cl_khr_global_int32_extended_atomics \
     cl_khr_local_int32_base_atomics cl_khr_local_int32_extended_atomics";
/// Work-group limits of this implementation (work-items of a group run as
/// SIMD groups on one thread, so the limit is a memory bound, not a
/// hardware one).
pub const MAX_WORK_GROUP_SIZE: usize = 4096;
/// `CL_DEVICE_MEM_BASE_ADDR_ALIGN` in bits: buffers are aligned to 128
/// bytes, enough for any vector type and for 64-byte cache lines.
pub const BUFFER_ALIGN_BYTES: usize = 128;

pub fn platform_handle() -> usize {
    static HANDLE: OnceLock<usize> = OnceLock::new();
    *HANDLE.get_or_init(objects::new_handle_word)
}

pub fn device_handle() -> usize {
    static HANDLE: OnceLock<usize> = OnceLock::new();
    *HANDLE.get_or_init(objects::new_handle_word)
}

/// What the device reports, read once.
pub struct Machine {
    pub cpu_name: String,
    pub cpu_vendor: String,
    pub compute_units: u32,
    pub clock_mhz: u32,
    pub global_memory: u64,
    pub cache_line: u32,
    pub last_level_cache: u64,
    pub l2_cache: u64,
    /// Bytes of the widest vector registers (16 SSE, 32 AVX2, 64 AVX-512).
    pub vector_bytes: u32,
}

pub fn machine() -> &'static Machine {
    static MACHINE: OnceLock<Machine> = OnceLock::new();
    MACHINE.get_or_init(read_machine)
}

fn cpuinfo_field(cpuinfo: &str, field: &str) -> Option<String> {
    cpuinfo.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        (key.trim() == field).then(|| value.trim().to_owned())
    })
}

/// A sysfs cache size such as `32K` or `1024K`, in bytes.
fn parse_cache_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let (digits, unit) = match text.strip_suffix('K') {
        Some(digits) => (digits, 1024),
        None => match text.strip_suffix('M') {
            Some(digits) => (digits, 1024 * 1024),
            None => (text, 1),
        },
    };
    digits.parse::<u64>().ok().map(|value| value * unit)
}

fn cache_size(level: u32) -> Option<u64> {
    (0..8).find_map(|index| {
        let dir = format!("/sys/devices/system/cpu/cpu0/cache/index{index}");
        let found = fs::read_to_string(format!("{dir}/level")).ok()?;
        let kind = fs::read_to_string(format!("{dir}/type")).ok()?;
        if found.trim().parse::<u32>().ok()? != level || kind.trim() == "Instruction" {
            return None;
        }
        parse_cache_size(&fs::read_to_string(format!("{dir}/size")).ok()?)
    })
}

fn read_machine() -> Machine {
    let cpuinfo = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let meminfo = fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let global_memory = meminfo
        .lines()
        .find_map(|line| line.strip_prefix("MemTotal:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(1 << 30, |kib| kib * 1024);
    let max_khz = fs::read_to_string("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")
        .ok()
        .and_then(|text| text.trim().parse::<u64>().ok());
    let clock_mhz = match max_khz {
        Some(khz) => (khz / 1000) as u32,
        None => cpuinfo_field(&cpuinfo, "cpu MHz")
            .and_then(|mhz| mhz.parse::<f64>().ok())
            .map_or(0, |mhz| mhz.round() as u32),
    };
    let cache_line =
        fs::read_to_string("/sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size")
            .ok()
            .and_then(|text| text.trim().parse().ok())
            .unwrap_or(64);
    Machine {
        cpu_name: cpuinfo_field(&cpuinfo, "model name").unwrap_or_else(|| "x86-64 CPU".into()),
        cpu_vendor: cpuinfo_field(&cpuinfo, "vendor_id").unwrap_or_else(|| "unknown".into()),
        compute_units: std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
        clock_mhz,
        global_memory,
        cache_line,
        last_level_cache: cache_size(3).or_else(|| cache_size(2)).unwrap_or(1 << 20),
        l2_cache: cache_size(2).unwrap_or(256 << 10),
        vector_bytes: vector_bytes(),
    }
}

#[cfg(target_arch = "x86_64")]
fn vector_bytes() -> u32 {
    if std::arch::is_x86_feature_detected!("avx512f") {
        64
    } else if std::arch::is_x86_feature_detected!("avx2") {
        32
    } else {
        16
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn vector_bytes() -> u32 {
    16
}

pub fn platform_info(param: cl_uint) -> InfoResult {
    match param {
        CL_PLATFORM_PROFILE => info::string("FULL_PROFILE"),
        CL_PLATFORM_VERSION => info::string(VERSION),
        CL_PLATFORM_NAME => info::string(PLATFORM_NAME),
        CL_PLATFORM_VENDOR => info::string(PLATFORM_VENDOR),
        CL_PLATFORM_EXTENSIONS => info::string(PLATFORM_EXTENSIONS),
        CL_PLATFORM_ICD_SUFFIX_KHR => info::string(ICD_SUFFIX),
        _ => Err(CL_INVALID_VALUE),
    }
}

/// Single and double precision: IEEE 754 with denormals, every rounding
/// mode, fused multiply-add (the x86-64 hardware's, or software's in the
/// math library), and correctly rounded division and square root.
const FP_CONFIG: u64 = CL_FP_DENORM
    | CL_FP_INF_NAN
    | CL_FP_ROUND_TO_NEAREST
    | CL_FP_ROUND_TO_ZERO
    | CL_FP_ROUND_TO_INF
    | CL_FP_FMA;

pub fn device_info(param: cl_uint) -> InfoResult {
    let machine = machine();
    let lanes = |element_bytes: u32| info::uint(machine.vector_bytes / element_bytes);
    // The largest allocation: a quarter of memory, as the spec's minimum.
    let max_alloc = (machine.global_memory / 4).max(128 << 20);
    match param {
        CL_DEVICE_TYPE => info::ulong(CL_DEVICE_TYPE_CPU),
        CL_DEVICE_VENDOR_ID => info::uint(0),
        CL_DEVICE_MAX_COMPUTE_UNITS => info::uint(machine.compute_units),
        CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS => info::uint(3),
        CL_DEVICE_MAX_WORK_ITEM_SIZES => info::sizes(&[MAX_WORK_GROUP_SIZE; 3]),
        CL_DEVICE_MAX_WORK_GROUP_SIZE => info::size(MAX_WORK_GROUP_SIZE),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR | CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR => lanes(1),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT | CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT => lanes(2),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT | CL_DEVICE_NATIVE_VECTOR_WIDTH_INT => lanes(4),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG | CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG => lanes(8),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT | CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT => lanes(4),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE | CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE => lanes(8),
        // No `half` arithmetic (cl_khr_fp16 is not offered).
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF | CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF => info::uint(0),
        CL_DEVICE_MAX_CLOCK_FREQUENCY => info::uint(machine.clock_mhz),
        CL_DEVICE_ADDRESS_BITS => info::uint(64),
        CL_DEVICE_MAX_MEM_ALLOC_SIZE => info::ulong(max_alloc),
        CL_DEVICE_IMAGE_SUPPORT => info::boolean(false),
        CL_DEVICE_MAX_READ_IMAGE_ARGS | CL_DEVICE_MAX_WRITE_IMAGE_ARGS | CL_DEVICE_MAX_SAMPLERS => {
            info::uint(0)
        }
        CL_DEVICE_IMAGE2D_MAX_WIDTH
        | CL_DEVICE_IMAGE2D_MAX_HEIGHT
        | CL_DEVICE_IMAGE3D_MAX_WIDTH
        | CL_DEVICE_IMAGE3D_MAX_HEIGHT
        | CL_DEVICE_IMAGE3D_MAX_DEPTH
        | CL_DEVICE_IMAGE_MAX_BUFFER_SIZE
        | CL_DEVICE_IMAGE_MAX_ARRAY_SIZE => info::size(0),
        CL_DEVICE_MAX_PARAMETER_SIZE => info::size(1024),
        CL_DEVICE_MEM_BASE_ADDR_ALIGN => info::uint((BUFFER_ALIGN_BYTES * 8) as u32),
        CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE => info::uint(BUFFER_ALIGN_BYTES as u32),
        CL_DEVICE_SINGLE_FP_CONFIG => info::ulong(FP_CONFIG | CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT),
        CL_DEVICE_DOUBLE_FP_CONFIG => info::ulong(FP_CONFIG),
        CL_DEVICE_GLOBAL_MEM_CACHE_TYPE => info::uint(CL_READ_WRITE_CACHE),
        CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE => info::uint(machine.cache_line),
        CL_DEVICE_GLOBAL_MEM_CACHE_SIZE => info::ulong(machine.last_level_cache),
        CL_DEVICE_GLOBAL_MEM_SIZE => info::ulong(machine.global_memory),
        CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE => info::ulong(64 << 10),
        CL_DEVICE_MAX_CONSTANT_ARGS => info::uint(8),
        // `__local` memory is ordinary memory of the thread running the
        // work-group; it is fastest while it fits the L2 cache.
        CL_DEVICE_LOCAL_MEM_TYPE => info::uint(CL_GLOBAL),
        CL_DEVICE_LOCAL_MEM_SIZE => info::ulong(machine.l2_cache.max(32 << 10)),
        CL_DEVICE_ERROR_CORRECTION_SUPPORT => info::boolean(false),
        CL_DEVICE_HOST_UNIFIED_MEMORY => info::boolean(true),
        CL_DEVICE_PROFILING_TIMER_RESOLUTION => info::size(1),
        CL_DEVICE_ENDIAN_LITTLE => info::boolean(true),
        CL_DEVICE_AVAILABLE => info::boolean(true),
        // clang-22 + Lanewise (crate::compiler); no separate linking.
        CL_DEVICE_COMPILER_AVAILABLE => info::boolean(true),
        CL_DEVICE_LINKER_AVAILABLE => info::boolean(false),
        CL_DEVICE_EXECUTION_CAPABILITIES => info::ulong(CL_EXEC_KERNEL),
        CL_DEVICE_QUEUE_PROPERTIES => info::ulong(CL_QUEUE_PROFILING_ENABLE),
        CL_DEVICE_BUILT_IN_KERNELS => info::string(""),
        CL_DEVICE_PLATFORM => info::pointer(platform_handle()),
        CL_DEVICE_NAME => info::string(&machine.cpu_name),
        CL_DEVICE_VENDOR => info::string(&machine.cpu_vendor),
        CL_DRIVER_VERSION => info::string(env!("CARGO_PKG_VERSION")),
        CL_DEVICE_PROFILE => info::string("FULL_PROFILE"),
        CL_DEVICE_VERSION => info::string(VERSION),
        CL_DEVICE_OPENCL_C_VERSION => info::string("OpenCL C 1.2 "),
        CL_DEVICE_EXTENSIONS => info::string(DEVICE_EXTENSIONS),
        CL_DEVICE_PRINTF_BUFFER_SIZE => info::size(1 << 20),
        CL_DEVICE_PREFERRED_INTEROP_USER_SYNC => info::boolean(true),
        CL_DEVICE_PARENT_DEVICE => info::pointer(0),
        CL_DEVICE_PARTITION_MAX_SUB_DEVICES => info::uint(0),
        CL_DEVICE_PARTITION_PROPERTIES | CL_DEVICE_PARTITION_TYPE => info::sizes(&[0]),
        CL_DEVICE_PARTITION_AFFINITY_DOMAIN => info::ulong(0),
        CL_DEVICE_REFERENCE_COUNT => info::uint(1),
        _ => Err(CL_INVALID_VALUE),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_sizes_parse_with_units() {
        assert_eq!(parse_cache_size("32K\n"), Some(32 << 10));
        assert_eq!(parse_cache_size("1M"), Some(1 << 20));
        assert_eq!(parse_cache_size("512"), Some(512));
        assert_eq!(parse_cache_size("x"), None);
    }

    #[test]
    fn the_machine_is_read_not_made_up() {
        let machine = machine();
        let cpuinfo = fs::read_to_string("/proc/cpuinfo").unwrap();
        assert!(cpuinfo.contains(&machine.cpu_name), "{}", machine.cpu_name);
        assert!(machine.compute_units >= 1);
        assert!(machine.global_memory > 1 << 26);
        assert!([16, 32, 64].contains(&machine.vector_bytes));
    }

    #[test]
    fn unknown_queries_are_invalid_values() {
        assert_eq!(device_info(0xdead), Err(CL_INVALID_VALUE));
        assert_eq!(platform_info(0xdead), Err(CL_INVALID_VALUE));
        assert_eq!(platform_info(CL_PLATFORM_ICD_SUFFIX_KHR), info::string("LW"));
    }
}
