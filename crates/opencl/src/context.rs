//! Contexts: one device (the CPU) and the properties they were made with.

use crate::cl::*;
use crate::info::{self, InfoResult};
use crate::objects;
use crate::platform::{device_handle, platform_handle};

pub struct Context {
    pub handle: usize,
    /// The `cl_context_properties` list as given (zero-terminated), for
    /// `CL_CONTEXT_PROPERTIES`.
    pub properties: Vec<isize>,
}

/// Checks a `cl_context_properties` list: only `CL_CONTEXT_PLATFORM` (our
/// platform) and `CL_CONTEXT_INTEROP_USER_SYNC` are known.
pub fn check_properties(properties: &[isize]) -> Result<(), cl_int> {
    let mut seen = Vec::new();
    for pair in properties.chunks(2) {
        let [key, value] = pair else { return Err(CL_INVALID_PROPERTY) };
        if seen.contains(key) {
            return Err(CL_INVALID_PROPERTY);
        }
        seen.push(*key);
        match *key as cl_uint {
            CL_CONTEXT_PLATFORM if *value as usize == platform_handle() => {}
            CL_CONTEXT_PLATFORM => return Err(CL_INVALID_PLATFORM),
            CL_CONTEXT_INTEROP_USER_SYNC => {}
            _ => return Err(CL_INVALID_PROPERTY),
        }
    }
    Ok(())
}

pub fn create(properties: Vec<isize>) -> usize {
    objects::register(|handle| {
        objects::Object::Context(std::sync::Arc::new(Context { handle, properties }))
    })
}

impl Context {
    pub fn info(&self, param: cl_uint) -> InfoResult {
        match param {
            CL_CONTEXT_REFERENCE_COUNT => info::uint(objects::reference_count(self.handle)),
            CL_CONTEXT_NUM_DEVICES => info::uint(1),
            CL_CONTEXT_DEVICES => info::pointer(device_handle()),
            CL_CONTEXT_PROPERTIES => {
                let mut bytes = Vec::new();
                if !self.properties.is_empty() {
                    for value in self.properties.iter().chain([&0]) {
                        bytes.extend_from_slice(&value.to_ne_bytes());
                    }
                }
                Ok(bytes)
            }
            _ => Err(CL_INVALID_VALUE),
        }
    }
}
