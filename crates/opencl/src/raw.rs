//! The runtime's unsafe operations besides the C entry points
//! ([`crate::abi`]): buffer storage, copies between host memory and
//! buffers, calls into callbacks and into a program's shared object. Each function states what its callers guarantee.

use std::alloc::{self, Layout};

/// Zeroed, aligned heap memory of a buffer the runtime allocates.
pub struct Allocation {
    address: usize,
    layout: Layout,
}

impl Allocation {
    /// `None` if `size` bytes cannot be allocated.
    pub fn new(size: usize, align: usize) -> Option<Allocation> {
        let layout = Layout::from_size_align(size.max(1), align).ok()?;
        // SAFETY: the layout has a non-zero size.
        let pointer = unsafe { alloc::alloc_zeroed(layout) };
        (!pointer.is_null()).then_some(Allocation { address: pointer as usize, layout })
    }

    pub fn address(&self) -> usize {
        self.address
    }
}

impl Drop for Allocation {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout, freed once.
        unsafe { alloc::dealloc(self.address as *mut u8, self.layout) }
    }
}

/// Copies `len` bytes from address `from` to address `to`.
///
/// Callers guarantee both ranges are valid: buffer ranges checked against
/// the buffer's size, host pointers as the application promised the API
/// (the specification makes a bad host pointer the application's fault).
/// The ranges may overlap (`clEnqueueCopyBuffer` within one buffer is
/// rejected when they do, but sub-buffers may alias).
pub fn copy(from: usize, to: usize, len: usize) {
    if len == 0 {
        return;
    }
    // SAFETY: see above.
    unsafe { std::ptr::copy(from as *const u8, to as *mut u8, len) }
}

/// Fills `len` bytes at `to` with repetitions of `pattern` (`len` is a
/// multiple of the pattern's length, checked by the caller, as is the range).
pub fn fill(to: usize, len: usize, pattern: &[u8]) {
    for offset in (0..len).step_by(pattern.len()) {
        copy(pattern.as_ptr() as usize, to + offset, pattern.len());
    }
}

/// Calls an event callback registered with `clSetEventCallback`.
pub fn call_event_callback(callback: crate::event::Callback, event: usize, status: i32) {
    type Function = extern "C" fn(usize, i32, usize);
    // SAFETY: `function` is the non-null callback the application passed to
    // `clSetEventCallback`, whose C type is `void (*)(cl_event, cl_int,
    // void *)`; handles and pointers are passed as words.
    let function: Function = unsafe { std::mem::transmute::<usize, Function>(callback.function) };
    function(event, status, callback.user_data);
}

/// Calls a memory object destructor registered with
/// `clSetMemObjectDestructorCallback`.
pub fn call_mem_destructor(function: usize, mem: usize, user_data: usize) {
    type Function = extern "C" fn(usize, usize);
    // SAFETY: as for `call_event_callback`; the C type is
    // `void (*)(cl_mem, void *)`.
    let function: Function = unsafe { std::mem::transmute::<usize, Function>(function) };
    function(mem, user_data);
}

/// A program's shared object, loaded with every symbol resolved.
pub struct LoadedLibrary {
    library: libloading::os::unix::Library,
}

impl LoadedLibrary {
    /// Opens `path` with `RTLD_NOW`, so an undefined symbol (a builtin the
    /// program calls and the library lacks) is an error here.
    pub fn open(path: &std::path::Path) -> Result<LoadedLibrary, String> {
        // SAFETY: the library is one the compiler just built from the
        // program and the runtime's own sources; its initializers are the
        // C runtime's (a thread-local variable, no constructors).
        let library = unsafe {
            libloading::os::unix::Library::open(
                Some(path),
                libloading::os::unix::RTLD_NOW | libloading::os::unix::RTLD_LOCAL,
            )
        };
        library.map(|library| LoadedLibrary { library }).map_err(|error| error.to_string())
    }

    /// The address of the function `name`, if the library defines it.
    pub fn function(&self, name: &str) -> Option<usize> {
        // SAFETY: the symbol is only turned into an address here; callers
        // call it through `call_kernel`/`set_work_group` with the C type
        // the compiler gave it.
        let symbol = unsafe { self.library.get::<unsafe extern "C" fn()>(name.as_bytes()) };
        symbol.ok().map(|symbol| *symbol as *const () as usize)
    }
}

/// Calls the runtime's `__lw_run_work_groups` (builtins/runtime.c): runs
/// the work-groups `first..first + count` of the NDRange `range` through the
/// kernel's trampolines (`__lw_vector<W>_k(void **args, size_t count)` and
/// `__lw_masked<W>_k(void **args, size_t active)`, 0 when there is none,
/// and `__lw_scalar_k(void **args, size_t count)`; see `compiler::trampolines`). `args` holds one pointer per kernel parameter,
/// each to a value of the parameter's type. Returns the runtime's status
/// (0: done).
#[allow(clippy::too_many_arguments)]
pub fn run_work_groups(
    runner: usize,
    range: &crate::executor::WorkGroup,
    first: usize,
    count: usize,
    trampolines: crate::executor::Trampolines,
    width: u32,
    args: &[usize],
    barriers: crate::executor::BarrierMode,
) -> i32 {
    type Runner = unsafe extern "C" fn(
        *const crate::executor::WorkGroup,
        usize,
        usize,
        usize,
        usize,
        usize,
        u32,
        *const usize,
        i32,
        usize,
    ) -> i32;
    // SAFETY: `runner` is `__lw_run_work_groups` of the loaded library, of
    // C type `int (const lw_work_group *, size_t, size_t, lw_vector_trampoline,
    // lw_masked_trampoline, lw_scalar_trampoline, unsigned, void **, int, size_t)`
    // (null vector and masked trampolines are allowed); `WorkGroup` has `lw_work_group`'s layout; the
    // trampolines are the library's; the executor keeps every argument
    // value alive until the call returns.
    let (barrier_mode, spill_bytes) = barriers.arguments();
    unsafe {
        let function = std::mem::transmute::<usize, Runner>(runner);
        function(
            range,
            first,
            count,
            trampolines.vector,
            trampolines.masked,
            trampolines.scalar,
            width,
            args.as_ptr(),
            barrier_mode,
            spill_bytes,
        )
    }
}
