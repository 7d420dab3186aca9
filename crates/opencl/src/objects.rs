//! Handles: the opaque pointers (`cl_context`, `cl_mem`, ...) the API hands
//! out, and the registry that turns them back into objects.
//!
//! The ICD loader reads the first word of every handle as a pointer to the
//! dispatch table ([`crate::dispatch`]) and calls through it; nothing else
//! in a handle is read by anyone. So a handle is a heap word holding that
//! pointer, and its address is the key of [`Registry`], which maps it to the
//! object (an `Arc`), its kind and its API reference count. A handle is
//! never dereferenced by the runtime: a stale or foreign pointer is simply
//! not in the registry and gets the API's `CL_INVALID_*` code.
//!
//! Handle words are never freed: the loader reads a handle's first word
//! before the call reaches us, also for a handle the application already
//! released, so the word must stay readable, and it must not be reused for
//! a new object, which the stale handle would then name. That is 8 bytes per
//! object the application ever got (commands' events get a handle only
//! when the application asks for them).
//! Objects refer to each other through `Arc`s, so a queue keeps its context
//! alive after the application released the context's last reference.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use crate::cl::*;
use crate::context::Context;
use crate::dispatch::dispatch_table_address;
use crate::event::Event;
use crate::kernel::Kernel;
use crate::memory::Mem;
use crate::program::Program;
use crate::queue::Queue;

/// The memory a handle points to: the dispatch table's address, first.
#[repr(C)]
pub struct HandleWord {
    pub dispatch: usize,
}

/// An object of the API, by kind.
#[derive(Clone)]
pub enum Object {
    Context(Arc<Context>),
    Queue(Arc<Queue>),
    Mem(Arc<Mem>),
    Event(Arc<Event>),
    Program(Arc<Program>),
    Kernel(Arc<Kernel>),
}

struct Entry {
    references: u32,
    object: Object,
}

#[derive(Default)]
struct Registry {
    live: HashMap<usize, Entry>,
}

fn registry() -> MutexGuard<'static, Registry> {
    static REGISTRY: OnceLock<Mutex<Registry>> = OnceLock::new();
    REGISTRY.get_or_init(Default::default).lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A new handle word holding the dispatch table's address; its address is
/// the handle. Never freed (see the module docs).
pub fn new_handle_word() -> usize {
    Box::leak(Box::new(HandleWord { dispatch: dispatch_table_address() })) as *const HandleWord
        as usize
}

/// Allocates a handle, builds its object (which may record the handle) and
/// registers it with one reference.
pub fn register(make: impl FnOnce(usize) -> Object) -> usize {
    let handle = new_handle_word();
    let object = make(handle);
    registry().live.insert(handle, Entry { references: 1, object });
    handle
}

/// The object behind `handle`, if it is a live handle.
pub fn lookup(handle: usize) -> Option<Object> {
    registry().live.get(&handle).map(|entry| entry.object.clone())
}

/// `clRetain*`: one more API reference; `false` if `handle` is not live.
pub fn retain(handle: usize) -> bool {
    match registry().live.get_mut(&handle) {
        Some(entry) => {
            entry.references += 1;
            true
        }
        None => false,
    }
}

/// What `clRelease*` did.
pub enum Released {
    /// The handle was not live.
    NotLive,
    /// References remain.
    StillReferenced,
    /// That was the last reference: the handle is no longer valid (its
    /// word stays, see the module docs) and this is its object.
    Last(Object),
}

/// `clRelease*`: one reference less.
pub fn release(handle: usize) -> Released {
    let mut registry = registry();
    let Some(entry) = registry.live.get_mut(&handle) else { return Released::NotLive };
    entry.references -= 1;
    if entry.references > 0 {
        return Released::StillReferenced;
    }
    let entry = registry.live.remove(&handle).expect("present");
    drop(registry);
    Released::Last(entry.object)
}

/// The API reference count of a live handle.
pub fn reference_count(handle: usize) -> cl_uint {
    registry().live.get(&handle).map_or(0, |entry| entry.references)
}

macro_rules! typed_lookup {
    ($name:ident, $variant:ident, $ty:ty, $error:expr) => {
        /// The object behind a handle of this kind, or the API's error code.
        pub fn $name(handle: usize) -> Result<Arc<$ty>, cl_int> {
            match lookup(handle) {
                Some(Object::$variant(object)) => Ok(object),
                _ => Err($error),
            }
        }
    };
}

typed_lookup!(context, Context, Context, CL_INVALID_CONTEXT);
typed_lookup!(queue, Queue, Queue, CL_INVALID_COMMAND_QUEUE);
typed_lookup!(mem, Mem, Mem, CL_INVALID_MEM_OBJECT);
typed_lookup!(event, Event, Event, CL_INVALID_EVENT);
typed_lookup!(program, Program, Program, CL_INVALID_PROGRAM);
typed_lookup!(kernel, Kernel, Kernel, CL_INVALID_KERNEL);
