//! Buffers and sub-buffers.
//!
//! The device is the host's CPU, so a buffer is host memory: memory the
//! runtime allocates (aligned to [`BUFFER_ALIGN_BYTES`]), or the
//! application's own with `CL_MEM_USE_HOST_PTR`, which the specification
//! allows an implementation to use directly. Mapping returns a pointer into
//! that memory; no copies are made.

use std::sync::{Arc, Mutex};

use crate::cl::*;
use crate::info::{self, InfoResult};
use crate::objects::{self, Object};
use crate::platform::BUFFER_ALIGN_BYTES;
use crate::raw::{self, Allocation};

pub enum Storage {
    Allocated(Allocation),
    /// `CL_MEM_USE_HOST_PTR`: the application's memory.
    Host(usize),
}

impl Storage {
    pub fn address(&self) -> usize {
        match self {
            Storage::Allocated(allocation) => allocation.address(),
            Storage::Host(address) => *address,
        }
    }
}

pub struct Mem {
    pub handle: usize,
    /// The context's handle; the buffer holds one API reference to it, as
    /// a context lives until the objects made in it are released.
    pub context: usize,
    pub flags: u64,
    pub size: usize,
    pub host_ptr: usize,
    storage: Arc<Storage>,
    /// Offset into the storage (sub-buffers).
    pub offset: usize,
    /// The parent buffer of a sub-buffer (kept alive), and its handle.
    parent: Option<Arc<Mem>>,
    maps: Mutex<u32>,
    destructors: Mutex<Vec<(usize, usize)>>,
}

const ACCESS_FLAGS: u64 = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
const HOST_ACCESS_FLAGS: u64 =
    CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;
const HOST_PTR_FLAGS: u64 = CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR;

/// Checks `clCreateBuffer`'s flags (at most one access flag, one host
/// access flag, `USE_HOST_PTR` exclusive of the other two host-pointer
/// flags, and a host pointer exactly when one of USE/COPY is given).
pub fn check_flags(flags: u64, host_ptr: usize) -> Result<(), cl_int> {
    let known = ACCESS_FLAGS | HOST_ACCESS_FLAGS | HOST_PTR_FLAGS;
    if flags & !known != 0
        || (flags & ACCESS_FLAGS).count_ones() > 1
        || (flags & HOST_ACCESS_FLAGS).count_ones() > 1
        || (flags & CL_MEM_USE_HOST_PTR != 0
            && flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0)
    {
        return Err(CL_INVALID_VALUE);
    }
    let wants_pointer = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0;
    if wants_pointer != (host_ptr != 0) {
        return Err(CL_INVALID_HOST_PTR);
    }
    Ok(())
}

pub fn create_buffer(
    context: usize,
    flags: u64,
    size: usize,
    host_ptr: usize,
    max_size: u64,
) -> Result<usize, cl_int> {
    check_flags(flags, host_ptr)?;
    if size == 0 || size as u64 > max_size {
        return Err(CL_INVALID_BUFFER_SIZE);
    }
    let storage = if flags & CL_MEM_USE_HOST_PTR != 0 {
        Storage::Host(host_ptr)
    } else {
        let allocation =
            Allocation::new(size, BUFFER_ALIGN_BYTES).ok_or(CL_MEM_OBJECT_ALLOCATION_FAILURE)?;
        if flags & CL_MEM_COPY_HOST_PTR != 0 {
            raw::copy(host_ptr, allocation.address(), size);
        }
        Storage::Allocated(allocation)
    };
    let flags = if flags & ACCESS_FLAGS == 0 { flags | CL_MEM_READ_WRITE } else { flags };
    objects::retain(context);
    Ok(objects::register(|handle| {
        Object::Mem(Arc::new(Mem {
            handle,
            context,
            flags,
            size,
            host_ptr,
            storage: Arc::new(storage),
            offset: 0,
            parent: None,
            maps: Mutex::new(0),
            destructors: Mutex::new(vec![]),
        }))
    }))
}

/// `clCreateSubBuffer` with `CL_BUFFER_CREATE_TYPE_REGION`.
pub fn create_sub_buffer(
    parent: &Arc<Mem>,
    flags: u64,
    origin: usize,
    size: usize,
) -> Result<usize, cl_int> {
    if parent.parent.is_some() {
        return Err(CL_INVALID_MEM_OBJECT);
    }
    if flags & HOST_PTR_FLAGS != 0 {
        return Err(CL_INVALID_VALUE);
    }
    check_flags(flags, 0)?;
    // Access flags must not widen the parent's.
    let parent_access = parent.flags & ACCESS_FLAGS;
    let access = flags & ACCESS_FLAGS;
    if access != 0
        && ((parent_access == CL_MEM_WRITE_ONLY && access != CL_MEM_WRITE_ONLY)
            || (parent_access == CL_MEM_READ_ONLY && access != CL_MEM_READ_ONLY))
    {
        return Err(CL_INVALID_VALUE);
    }
    if size == 0 {
        return Err(CL_INVALID_BUFFER_SIZE);
    }
    if origin.checked_add(size).is_none_or(|end| end > parent.size) {
        return Err(CL_INVALID_VALUE);
    }
    if !origin.is_multiple_of(BUFFER_ALIGN_BYTES) {
        return Err(CL_MISALIGNED_SUB_BUFFER_OFFSET);
    }
    let inherited = parent.flags & (HOST_PTR_FLAGS | HOST_ACCESS_FLAGS);
    let flags =
        inherited | if access == 0 { parent_access } else { access } | (flags & HOST_ACCESS_FLAGS);
    let host_ptr = if parent.host_ptr != 0 { parent.host_ptr + origin } else { 0 };
    objects::retain(parent.context);
    Ok(objects::register(|handle| {
        Object::Mem(Arc::new(Mem {
            handle,
            context: parent.context,
            flags,
            size,
            host_ptr,
            storage: parent.storage.clone(),
            offset: origin,
            parent: Some(parent.clone()),
            maps: Mutex::new(0),
            destructors: Mutex::new(vec![]),
        }))
    }))
}

impl Mem {
    /// The address of byte `offset` of the buffer.
    pub fn address(&self, offset: usize) -> usize {
        self.storage.address() + self.offset + offset
    }

    /// Checks that `offset..offset + len` lies in the buffer.
    pub fn check_range(&self, offset: usize, len: usize) -> Result<(), cl_int> {
        match offset.checked_add(len) {
            Some(end) if end <= self.size => Ok(()),
            _ => Err(CL_INVALID_VALUE),
        }
    }

    /// Whether two byte ranges of buffers sharing storage overlap.
    pub fn overlaps(&self, offset: usize, other: &Mem, other_offset: usize, len: usize) -> bool {
        Arc::ptr_eq(&self.storage, &other.storage) && {
            let start = self.offset + offset;
            let other_start = other.offset + other_offset;
            start < other_start + len && other_start < start + len
        }
    }

    pub fn add_map(&self) {
        *self.maps.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) += 1;
    }

    /// One map less; `false` if the buffer was not mapped.
    pub fn remove_map(&self) -> bool {
        let mut maps = self.maps.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if *maps == 0 {
            return false;
        }
        *maps -= 1;
        true
    }

    pub fn add_destructor(&self, function: usize, user_data: usize) {
        self.destructors
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push((function, user_data));
    }

    pub fn info(&self, param: cl_uint) -> InfoResult {
        match param {
            CL_MEM_TYPE => info::uint(CL_MEM_OBJECT_BUFFER),
            CL_MEM_FLAGS => info::ulong(self.flags),
            CL_MEM_SIZE => info::size(self.size),
            CL_MEM_HOST_PTR => info::pointer(self.host_ptr),
            CL_MEM_MAP_COUNT => {
                info::uint(*self.maps.lock().unwrap_or_else(|poisoned| poisoned.into_inner()))
            }
            CL_MEM_REFERENCE_COUNT => info::uint(objects::reference_count(self.handle)),
            CL_MEM_CONTEXT => info::pointer(self.context),
            CL_MEM_ASSOCIATED_MEMOBJECT => {
                info::pointer(self.parent.as_ref().map_or(0, |parent| parent.handle))
            }
            CL_MEM_OFFSET => info::size(self.offset),
            _ => Err(CL_INVALID_VALUE),
        }
    }
}

impl Drop for Mem {
    /// Destructor callbacks run in reverse order of registration, when the
    /// memory is about to be freed (after the last command using it).
    fn drop(&mut self) {
        let destructors = std::mem::take(
            self.destructors.get_mut().unwrap_or_else(|poisoned| poisoned.into_inner()),
        );
        for (function, user_data) in destructors.into_iter().rev() {
            raw::call_mem_destructor(function, self.handle, user_data);
        }
        // The buffer held a reference to its context (see `create_buffer`).
        let _ = objects::release(self.context);
    }
}
