//! The ICD dispatch table: the function pointers, in the order of
//! `struct _cl_icd_dispatch` (CL/cl_icd.h, [`DISPATCH_ORDER`]), that the
//! Khronos ICD loader calls through the first word of every handle.
//!
//! The table is built from a name → function list ([`crate::abi::entries`])
//! by looking up each name of [`DISPATCH_ORDER`], so a function can never
//! land in the wrong slot. Slots of functions this platform does not
//! provide at all (Direct3D, EGL, OpenGL sharing) hold a function that
//! returns `CL_INVALID_OPERATION`; the loader only calls them with handles
//! of ours, and every function that creates objects is implemented (or
//! fails with its own error code), so none of them returns a bare integer
//! where a pointer is expected.

use std::sync::OnceLock;

use crate::abi;
use crate::cl::DISPATCH_ORDER;

pub struct DispatchTable(Vec<usize>);

fn table() -> &'static DispatchTable {
    static TABLE: OnceLock<DispatchTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        let entries = abi::entries();
        let slots = DISPATCH_ORDER
            .iter()
            .map(|name| {
                entries
                    .iter()
                    .find(|(entry, _)| entry == name)
                    .map_or(abi::unsupported_entry as *const () as usize, |(_, function)| *function)
            })
            .collect();
        DispatchTable(slots)
    })
}

/// The address of the table's first slot (what every handle holds).
pub fn dispatch_table_address() -> usize {
    table().0.as_ptr() as usize
}

/// The function named `name` (for `clGetExtensionFunctionAddress`).
pub fn function_named(name: &str) -> Option<usize> {
    abi::entries().iter().find(|(entry, _)| *entry == name).map(|(_, function)| *function)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_slot_is_filled_and_the_core_ones_are_ours() {
        let table = table();
        assert_eq!(table.0.len(), DISPATCH_ORDER.len());
        assert!(table.0.iter().all(|slot| *slot != 0));
        for name in ["clGetPlatformInfo", "clCreateBuffer", "clEnqueueReadBuffer", "clFinish"] {
            let index = DISPATCH_ORDER.iter().position(|entry| *entry == name).unwrap();
            assert_eq!(Some(table.0[index]), function_named(name), "{name}");
            assert_ne!(table.0[index], abi::unsupported_entry as *const () as usize, "{name}");
        }
    }

    #[test]
    fn entries_name_real_slots() {
        for (name, _) in abi::entries() {
            let known = DISPATCH_ORDER.contains(name) || name.starts_with("clIcd");
            assert!(known, "{name} is not an entry of the dispatch table");
        }
    }
}
