//! Values of `clGet*Info` queries, encoded as the bytes the API returns.

use crate::cl::*;

/// The bytes of one query's value, or the API's error code.
pub type InfoResult = Result<Vec<u8>, cl_int>;

pub fn uint(value: cl_uint) -> InfoResult {
    Ok(value.to_ne_bytes().to_vec())
}

pub fn int(value: cl_int) -> InfoResult {
    Ok(value.to_ne_bytes().to_vec())
}

pub fn ulong(value: u64) -> InfoResult {
    Ok(value.to_ne_bytes().to_vec())
}

pub fn size(value: usize) -> InfoResult {
    Ok(value.to_ne_bytes().to_vec())
}

pub fn sizes(values: &[usize]) -> InfoResult {
    Ok(values.iter().flat_map(|value| value.to_ne_bytes()).collect())
}

/// A handle or host pointer (`cl_context`, `void *`, ...).
pub fn pointer(address: usize) -> InfoResult {
    size(address)
}

pub fn boolean(value: bool) -> InfoResult {
    uint(if value { CL_TRUE } else { CL_FALSE })
}

/// A NUL-terminated string.
pub fn string(value: &str) -> InfoResult {
    let mut bytes = value.as_bytes().to_vec();
    bytes.push(0);
    Ok(bytes)
}
