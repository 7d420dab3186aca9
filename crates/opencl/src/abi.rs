//! The C entry points of the OpenCL API, and all their `unsafe`: reading the
//! application's arrays and writing its out-parameters. Each entry point
//! turns its arguments into Rust values, calls the safe runtime
//! ([`crate::platform`], [`crate::context`], [`crate::memory`],
//! [`crate::queue`], [`crate::event`]) and writes the results back.
//!
//! Safety contract, as the OpenCL specification states it for every
//! function: a non-null pointer argument points to as many valid elements
//! as its companion count or size says. Handles are never dereferenced
//! (see [`crate::objects`]), so a wrong handle is an error code, not
//! undefined behavior. Only `clIcdGetPlatformIDsKHR`,
//! `clGetExtensionFunctionAddress` and `clGetPlatformInfo` are exported
//! (the loader looks these up by name): it reaches every other function
//! through the dispatch table. The runtime never calls an exported name,
//! so the loader's own `cl*` symbols cannot interpose ours.

use std::ffi::{c_char, c_void, CStr};
use std::sync::Arc;

use crate::cl::*;
use crate::context;
use crate::dispatch;
use crate::event::{self, Callback, Event};
use crate::executor;
use crate::info::InfoResult;
use crate::kernel;
use crate::memory;
use crate::objects::{self, Object, Released};
use crate::platform::{self, device_handle, platform_handle};
use crate::program;
use crate::queue;
use crate::raw;

type Handle = *mut c_void;

// ----- Helpers -----

/// Writes a query's value with the API's size rules.
unsafe fn write_info(
    result: InfoResult,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    let bytes = match result {
        Ok(bytes) => bytes,
        Err(code) => return code,
    };
    if !value.is_null() {
        if size < bytes.len() {
            return CL_INVALID_VALUE;
        }
        raw::copy(bytes.as_ptr() as usize, value as usize, bytes.len());
    }
    if !size_ret.is_null() {
        *size_ret = bytes.len();
    }
    CL_SUCCESS
}

unsafe fn set_error(errcode_ret: *mut cl_int, code: cl_int) {
    if !errcode_ret.is_null() {
        *errcode_ret = code;
    }
}

/// A created handle, or null and the error code in `errcode_ret`.
unsafe fn created(result: Result<usize, cl_int>, errcode_ret: *mut cl_int) -> Handle {
    match result {
        Ok(handle) => {
            set_error(errcode_ret, CL_SUCCESS);
            handle as Handle
        }
        Err(code) => {
            set_error(errcode_ret, code);
            std::ptr::null_mut()
        }
    }
}

unsafe fn slice<'a, T>(pointer: *const T, len: usize) -> &'a [T] {
    if pointer.is_null() || len == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(pointer, len)
    }
}

/// The events of an event wait list, checked as every enqueue does.
unsafe fn wait_list(
    queue: &queue::Queue,
    count: cl_uint,
    events: *const Handle,
) -> Result<Vec<Arc<Event>>, cl_int> {
    if (count == 0) != events.is_null() {
        return Err(CL_INVALID_EVENT_WAIT_LIST);
    }
    slice(events, count as usize)
        .iter()
        .map(|handle| match objects::event(*handle as usize) {
            Ok(event) if event.context == queue.context => Ok(event),
            Ok(_) => Err(CL_INVALID_CONTEXT),
            Err(_) => Err(CL_INVALID_EVENT_WAIT_LIST),
        })
        .collect()
}

/// Hands a command's event to the application, which then owns its one
/// reference (no handle is made when it does not ask for the event).
unsafe fn give_event(event: &Arc<Event>, out: *mut Handle) {
    if !out.is_null() {
        *out = event.register() as Handle;
    }
}

/// Enqueues `work`; waits for it when `blocking`.
unsafe fn enqueue(
    queue: &queue::Queue,
    command_type: cl_uint,
    blocking: bool,
    num_events: cl_uint,
    events: *const Handle,
    event_out: *mut Handle,
    work: queue::Work,
) -> cl_int {
    let wait_for = match wait_list(queue, num_events, events) {
        Ok(wait_for) => wait_for,
        Err(code) => return code,
    };
    let event = queue.enqueue(command_type, wait_for, work);
    let status = if blocking { event.wait() } else { CL_COMPLETE };
    give_event(&event, event_out);
    if status < 0 {
        CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
    } else {
        CL_SUCCESS
    }
}

macro_rules! try_cl {
    ($result:expr) => {
        match $result {
            Ok(value) => value,
            Err(code) => return code,
        }
    };
}

macro_rules! try_create {
    ($result:expr, $errcode_ret:expr) => {
        match $result {
            Ok(value) => value,
            Err(code) => {
                set_error($errcode_ret, code);
                return std::ptr::null_mut();
            }
        }
    };
}

/// `clRetain*` and `clRelease*` of one kind of object (`lookup` checks the
/// handle's kind, for the API's error code).
macro_rules! reference_counting {
    ($retain:ident, $release:ident, $lookup:path) => {
        unsafe extern "C" fn $retain(handle: Handle) -> cl_int {
            try_cl!($lookup(handle as usize));
            objects::retain(handle as usize);
            CL_SUCCESS
        }

        unsafe extern "C" fn $release(handle: Handle) -> cl_int {
            try_cl!($lookup(handle as usize));
            let _ = objects::release(handle as usize);
            CL_SUCCESS
        }
    };
}

/// A `clGet*Info` query answered by `method` of the object behind the handle.
macro_rules! info_query {
    ($name:ident, $lookup:path, $method:ident) => {
        unsafe extern "C" fn $name(
            handle: Handle,
            param: cl_uint,
            size: usize,
            value: *mut c_void,
            size_ret: *mut usize,
        ) -> cl_int {
            let object = try_cl!($lookup(handle as usize));
            write_info(object.$method(param), size, value, size_ret)
        }
    };
}

// ----- Retain, release and info queries of the API's objects -----

reference_counting!(retain_context, release_context, objects::context);
reference_counting!(retain_mem_object, release_mem_object, objects::mem);
reference_counting!(retain_event, release_event, objects::event);
reference_counting!(retain_program, release_program, objects::program);
reference_counting!(retain_kernel, release_kernel, objects::kernel);

info_query!(get_context_info, objects::context, info);
info_query!(get_command_queue_info, objects::queue, info);
info_query!(get_mem_object_info, objects::mem, info);
info_query!(get_event_info, objects::event, info);
info_query!(get_event_profiling_info, objects::event, profiling_info);
info_query!(get_program_info, objects::program, info);
info_query!(get_kernel_info, objects::kernel, info);

unsafe extern "C" fn retain_command_queue(queue: Handle) -> cl_int {
    try_cl!(objects::queue(queue as usize));
    objects::retain(queue as usize);
    CL_SUCCESS
}

// ----- ICD entry points (exported) -----

/// # Safety
/// The OpenCL specification's contract for this function: non-null
/// pointers point to as many valid elements as their counts say.
#[no_mangle]
pub unsafe extern "C" fn clIcdGetPlatformIDsKHR(
    num_entries: cl_uint,
    platforms: *mut Handle,
    num_platforms: *mut cl_uint,
) -> cl_int {
    get_platform_ids(num_entries, platforms, num_platforms)
}

/// # Safety
/// The OpenCL specification's contract for this function: non-null
/// pointers point to as many valid elements as their counts say.
#[no_mangle]
pub unsafe extern "C" fn clGetExtensionFunctionAddress(name: *const c_char) -> *mut c_void {
    if name.is_null() {
        return std::ptr::null_mut();
    }
    let name = CStr::from_ptr(name).to_string_lossy();
    // Only the ICD's own entry is an extension function; core functions
    // are not returned (the specification's rule).
    match &*name {
        "clIcdGetPlatformIDsKHR" => dispatch::function_named("clIcdGetPlatformIDsKHR")
            .map_or(std::ptr::null_mut(), |f| f as *mut c_void),
        _ => std::ptr::null_mut(),
    }
}

/// Exported as well: ocl-icd looks it up by name in the library to read
/// the platform's ICD suffix before it uses the dispatch table.
/// # Safety
/// The OpenCL specification's contract for this function: non-null
/// pointers point to as many valid elements as their counts say.
#[no_mangle]
pub unsafe extern "C" fn clGetPlatformInfo(
    platform: Handle,
    param: cl_uint,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    get_platform_info(platform, param, size, value, size_ret)
}

unsafe extern "C" fn get_extension_function_address_for_platform(
    platform: Handle,
    name: *const c_char,
) -> *mut c_void {
    if platform as usize != platform_handle() {
        return std::ptr::null_mut();
    }
    clGetExtensionFunctionAddress(name)
}

// ----- Platform and device -----

unsafe extern "C" fn get_platform_ids(
    num_entries: cl_uint,
    platforms: *mut Handle,
    num_platforms: *mut cl_uint,
) -> cl_int {
    if (num_entries == 0 && !platforms.is_null())
        || (platforms.is_null() && num_platforms.is_null())
    {
        return CL_INVALID_VALUE;
    }
    if !platforms.is_null() {
        *platforms = platform_handle() as Handle;
    }
    if !num_platforms.is_null() {
        *num_platforms = 1;
    }
    CL_SUCCESS
}

unsafe extern "C" fn get_platform_info(
    platform: Handle,
    param: cl_uint,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    if !platform.is_null() && platform as usize != platform_handle() {
        return CL_INVALID_PLATFORM;
    }
    write_info(platform::platform_info(param), size, value, size_ret)
}

unsafe extern "C" fn get_device_ids(
    platform: Handle,
    device_type: cl_bitfield,
    num_entries: cl_uint,
    devices: *mut Handle,
    num_devices: *mut cl_uint,
) -> cl_int {
    if !platform.is_null() && platform as usize != platform_handle() {
        return CL_INVALID_PLATFORM;
    }
    let known = CL_DEVICE_TYPE_CPU
        | CL_DEVICE_TYPE_GPU
        | CL_DEVICE_TYPE_ACCELERATOR
        | CL_DEVICE_TYPE_DEFAULT
        | CL_DEVICE_TYPE_CUSTOM;
    if device_type != CL_DEVICE_TYPE_ALL && device_type & !known != 0 {
        return CL_INVALID_DEVICE_TYPE;
    }
    if (num_entries == 0 && !devices.is_null()) || (devices.is_null() && num_devices.is_null()) {
        return CL_INVALID_VALUE;
    }
    if device_type & (CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_DEFAULT) == 0 {
        if !num_devices.is_null() {
            *num_devices = 0;
        }
        return CL_DEVICE_NOT_FOUND;
    }
    if !devices.is_null() {
        *devices = device_handle() as Handle;
    }
    if !num_devices.is_null() {
        *num_devices = 1;
    }
    CL_SUCCESS
}

unsafe extern "C" fn get_device_info(
    device: Handle,
    param: cl_uint,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    if device as usize != device_handle() {
        return CL_INVALID_DEVICE;
    }
    write_info(platform::device_info(param), size, value, size_ret)
}

/// `clRetainDevice`/`clReleaseDevice`: the root device is not counted.
unsafe extern "C" fn retain_release_device(device: Handle) -> cl_int {
    if device as usize == device_handle() {
        CL_SUCCESS
    } else {
        CL_INVALID_DEVICE
    }
}

// ----- Contexts -----

unsafe fn context_properties(properties: *const isize) -> Result<Vec<isize>, cl_int> {
    let mut list = Vec::new();
    if properties.is_null() {
        return Ok(list);
    }
    let mut index = 0;
    while *properties.add(index) != 0 {
        list.push(*properties.add(index));
        list.push(*properties.add(index + 1));
        index += 2;
    }
    context::check_properties(&list)?;
    Ok(list)
}

type ContextNotify = Option<unsafe extern "C" fn(*const c_char, *const c_void, usize, *mut c_void)>;

unsafe extern "C" fn create_context(
    properties: *const isize,
    num_devices: cl_uint,
    devices: *const Handle,
    _notify: ContextNotify,
    user_data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> Handle {
    let _ = user_data;
    let properties = try_create!(context_properties(properties), errcode_ret);
    if num_devices == 0 || devices.is_null() {
        set_error(errcode_ret, CL_INVALID_VALUE);
        return std::ptr::null_mut();
    }
    if slice(devices, num_devices as usize).iter().any(|device| *device as usize != device_handle())
    {
        set_error(errcode_ret, CL_INVALID_DEVICE);
        return std::ptr::null_mut();
    }
    created(Ok(context::create(properties)), errcode_ret)
}

unsafe extern "C" fn create_context_from_type(
    properties: *const isize,
    device_type: cl_bitfield,
    _notify: ContextNotify,
    _user_data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> Handle {
    let properties = try_create!(context_properties(properties), errcode_ret);
    if device_type & (CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_DEFAULT) == 0
        && device_type != CL_DEVICE_TYPE_ALL
    {
        set_error(errcode_ret, CL_DEVICE_NOT_FOUND);
        return std::ptr::null_mut();
    }
    created(Ok(context::create(properties)), errcode_ret)
}

// ----- Command queues -----

unsafe fn create_queue(
    context: Handle,
    device: Handle,
    properties: cl_bitfield,
) -> Result<usize, cl_int> {
    objects::context(context as usize)?;
    if device as usize != device_handle() {
        return Err(CL_INVALID_DEVICE);
    }
    queue::create(context as usize, properties)
}

unsafe extern "C" fn create_command_queue(
    context: Handle,
    device: Handle,
    properties: cl_bitfield,
    errcode_ret: *mut cl_int,
) -> Handle {
    created(create_queue(context, device, properties), errcode_ret)
}

unsafe extern "C" fn create_command_queue_with_properties(
    context: Handle,
    device: Handle,
    properties: *const cl_bitfield,
    errcode_ret: *mut cl_int,
) -> Handle {
    let mut queue_properties = 0;
    if !properties.is_null() {
        let mut index = 0;
        while *properties.add(index) != 0 {
            match *properties.add(index) as cl_uint {
                CL_QUEUE_PROPERTIES => queue_properties = *properties.add(index + 1),
                _ => {
                    set_error(errcode_ret, CL_INVALID_VALUE);
                    return std::ptr::null_mut();
                }
            }
            index += 2;
        }
    }
    created(create_queue(context, device, queue_properties), errcode_ret)
}

unsafe extern "C" fn release_command_queue(queue: Handle) -> cl_int {
    try_cl!(objects::queue(queue as usize));
    if let Released::Last(Object::Queue(queue)) = objects::release(queue as usize) {
        queue.shut_down();
    }
    CL_SUCCESS
}

unsafe extern "C" fn flush(queue: Handle) -> cl_int {
    // The worker takes every command as soon as it is enqueued.
    try_cl!(objects::queue(queue as usize));
    CL_SUCCESS
}

unsafe extern "C" fn finish(queue: Handle) -> cl_int {
    try_cl!(objects::queue(queue as usize)).finish();
    CL_SUCCESS
}

// ----- Buffers -----

unsafe extern "C" fn create_buffer(
    context: Handle,
    flags: cl_bitfield,
    size: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> Handle {
    try_create!(objects::context(context as usize), errcode_ret);
    let max = match platform::device_info(CL_DEVICE_MAX_MEM_ALLOC_SIZE) {
        Ok(bytes) => u64::from_ne_bytes(bytes.try_into().expect("8 bytes")),
        Err(_) => u64::MAX,
    };
    created(
        memory::create_buffer(context as usize, flags, size, host_ptr as usize, max),
        errcode_ret,
    )
}

unsafe extern "C" fn create_buffer_with_properties(
    context: Handle,
    properties: *const cl_bitfield,
    flags: cl_bitfield,
    size: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> Handle {
    if !properties.is_null() && *properties != 0 {
        set_error(errcode_ret, CL_INVALID_PROPERTY);
        return std::ptr::null_mut();
    }
    create_buffer(context, flags, size, host_ptr, errcode_ret)
}

#[repr(C)]
struct BufferRegion {
    origin: usize,
    size: usize,
}

unsafe extern "C" fn create_sub_buffer(
    buffer: Handle,
    flags: cl_bitfield,
    create_type: cl_uint,
    info: *const c_void,
    errcode_ret: *mut cl_int,
) -> Handle {
    let parent = try_create!(objects::mem(buffer as usize), errcode_ret);
    if create_type != CL_BUFFER_CREATE_TYPE_REGION || info.is_null() {
        set_error(errcode_ret, CL_INVALID_VALUE);
        return std::ptr::null_mut();
    }
    let region = &*(info as *const BufferRegion);
    created(memory::create_sub_buffer(&parent, flags, region.origin, region.size), errcode_ret)
}

unsafe extern "C" fn set_mem_object_destructor_callback(
    mem: Handle,
    function: Option<unsafe extern "C" fn(Handle, *mut c_void)>,
    user_data: *mut c_void,
) -> cl_int {
    let mem = try_cl!(objects::mem(mem as usize));
    let Some(function) = function else { return CL_INVALID_VALUE };
    mem.add_destructor(function as *const () as usize, user_data as usize);
    CL_SUCCESS
}

/// The queue and buffer of a buffer command, checked to share a context.
fn queue_and_buffer(
    queue: Handle,
    buffer: Handle,
) -> Result<(Arc<queue::Queue>, Arc<memory::Mem>), cl_int> {
    let queue = objects::queue(queue as usize)?;
    let buffer = objects::mem(buffer as usize)?;
    if buffer.context != queue.context {
        return Err(CL_INVALID_CONTEXT);
    }
    Ok((queue, buffer))
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn enqueue_read_buffer(
    queue: Handle,
    buffer: Handle,
    blocking: cl_bool,
    offset: usize,
    size: usize,
    host: *mut c_void,
    num_events: cl_uint,
    events: *const Handle,
    event: *mut Handle,
) -> cl_int {
    let (queue, buffer) = try_cl!(queue_and_buffer(queue, buffer));
    try_cl!(buffer.check_range(offset, size));
    if host.is_null() || size == 0 {
        return CL_INVALID_VALUE;
    }
    if buffer.flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS) != 0 {
        return CL_INVALID_OPERATION;
    }
    let host = host as usize;
    let work = Box::new(move || {
        raw::copy(buffer.address(offset), host, size);
        CL_COMPLETE
    });
    enqueue(&queue, CL_COMMAND_READ_BUFFER, blocking != 0, num_events, events, event, work)
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn enqueue_write_buffer(
    queue: Handle,
    buffer: Handle,
    blocking: cl_bool,
    offset: usize,
    size: usize,
    host: *const c_void,
    num_events: cl_uint,
    events: *const Handle,
    event: *mut Handle,
) -> cl_int {
    let (queue, buffer) = try_cl!(queue_and_buffer(queue, buffer));
    try_cl!(buffer.check_range(offset, size));
    if host.is_null() || size == 0 {
        return CL_INVALID_VALUE;
    }
    if buffer.flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS) != 0 {
        return CL_INVALID_OPERATION;
    }
    let host = host as usize;
    let work = Box::new(move || {
        raw::copy(host, buffer.address(offset), size);
        CL_COMPLETE
    });
    enqueue(&queue, CL_COMMAND_WRITE_BUFFER, blocking != 0, num_events, events, event, work)
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn enqueue_copy_buffer(
    queue: Handle,
    source: Handle,
    destination: Handle,
    source_offset: usize,
    destination_offset: usize,
    size: usize,
    num_events: cl_uint,
    events: *const Handle,
    event: *mut Handle,
) -> cl_int {
    let (queue, source) = try_cl!(queue_and_buffer(queue, source));
    let destination = try_cl!(objects::mem(destination as usize));
    if destination.context != queue.context {
        return CL_INVALID_CONTEXT;
    }
    try_cl!(source.check_range(source_offset, size));
    try_cl!(destination.check_range(destination_offset, size));
    if size == 0 {
        return CL_INVALID_VALUE;
    }
    if source.overlaps(source_offset, &destination, destination_offset, size) {
        return CL_MEM_COPY_OVERLAP;
    }
    let work = Box::new(move || {
        raw::copy(source.address(source_offset), destination.address(destination_offset), size);
        CL_COMPLETE
    });
    enqueue(&queue, CL_COMMAND_COPY_BUFFER, false, num_events, events, event, work)
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn enqueue_fill_buffer(
    queue: Handle,
    buffer: Handle,
    pattern: *const c_void,
    pattern_size: usize,
    offset: usize,
    size: usize,
    num_events: cl_uint,
    events: *const Handle,
    event: *mut Handle,
) -> cl_int {
    let (queue, buffer) = try_cl!(queue_and_buffer(queue, buffer));
    try_cl!(buffer.check_range(offset, size));
    let valid_sizes = [1, 2, 4, 8, 16, 32, 64, 128];
    if pattern.is_null()
        || !valid_sizes.contains(&pattern_size)
        || !offset.is_multiple_of(pattern_size)
        || !size.is_multiple_of(pattern_size)
    {
        return CL_INVALID_VALUE;
    }
    let pattern = slice(pattern as *const u8, pattern_size).to_vec();
    let work = Box::new(move || {
        raw::fill(buffer.address(offset), size, &pattern);
        CL_COMPLETE
    });
    enqueue(&queue, CL_COMMAND_FILL_BUFFER, false, num_events, events, event, work)
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn enqueue_map_buffer(
    queue: Handle,
    buffer: Handle,
    blocking: cl_bool,
    flags: cl_bitfield,
    offset: usize,
    size: usize,
    num_events: cl_uint,
    events: *const Handle,
    event: *mut Handle,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    let (queue, buffer) = try_create!(queue_and_buffer(queue, buffer), errcode_ret);
    try_create!(buffer.check_range(offset, size), errcode_ret);
    let known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
    if size == 0
        || flags & !known != 0
        || (flags & CL_MAP_WRITE_INVALIDATE_REGION != 0
            && flags & (CL_MAP_READ | CL_MAP_WRITE) != 0)
    {
        set_error(errcode_ret, CL_INVALID_VALUE);
        return std::ptr::null_mut();
    }
    buffer.add_map();
    let address = buffer.address(offset);
    let work = Box::new(|| CL_COMPLETE);
    let code =
        enqueue(&queue, CL_COMMAND_MAP_BUFFER, blocking != 0, num_events, events, event, work);
    set_error(errcode_ret, code);
    if code != CL_SUCCESS {
        buffer.remove_map();
        return std::ptr::null_mut();
    }
    address as *mut c_void
}

unsafe extern "C" fn enqueue_unmap_mem_object(
    queue: Handle,
    mem: Handle,
    _mapped: *mut c_void,
    num_events: cl_uint,
    events: *const Handle,
    event: *mut Handle,
) -> cl_int {
    let (queue, buffer) = try_cl!(queue_and_buffer(queue, mem));
    if !buffer.remove_map() {
        return CL_INVALID_VALUE;
    }
    let work = Box::new(|| CL_COMPLETE);
    enqueue(&queue, CL_COMMAND_UNMAP_MEM_OBJECT, false, num_events, events, event, work)
}

// ----- Markers, barriers, events -----

unsafe extern "C" fn enqueue_marker_with_wait_list(
    queue: Handle,
    num_events: cl_uint,
    events: *const Handle,
    event: *mut Handle,
) -> cl_int {
    let queue = try_cl!(objects::queue(queue as usize));
    // In an in-order queue, a marker (and a barrier) waits for every
    // command before it anyway.
    enqueue(&queue, CL_COMMAND_MARKER, false, num_events, events, event, Box::new(|| CL_COMPLETE))
}

unsafe extern "C" fn enqueue_barrier_with_wait_list(
    queue: Handle,
    num_events: cl_uint,
    events: *const Handle,
    event: *mut Handle,
) -> cl_int {
    let queue = try_cl!(objects::queue(queue as usize));
    enqueue(&queue, CL_COMMAND_BARRIER, false, num_events, events, event, Box::new(|| CL_COMPLETE))
}

unsafe extern "C" fn enqueue_marker(queue: Handle, event: *mut Handle) -> cl_int {
    if event.is_null() {
        return CL_INVALID_VALUE;
    }
    enqueue_marker_with_wait_list(queue, 0, std::ptr::null(), event)
}

unsafe extern "C" fn enqueue_barrier(queue: Handle) -> cl_int {
    enqueue_barrier_with_wait_list(queue, 0, std::ptr::null(), std::ptr::null_mut())
}

unsafe extern "C" fn enqueue_wait_for_events(
    queue: Handle,
    num_events: cl_uint,
    events: *const Handle,
) -> cl_int {
    if num_events == 0 || events.is_null() {
        return CL_INVALID_VALUE;
    }
    enqueue_barrier_with_wait_list(queue, num_events, events, std::ptr::null_mut())
}

unsafe extern "C" fn wait_for_events(num_events: cl_uint, events: *const Handle) -> cl_int {
    if num_events == 0 || events.is_null() {
        return CL_INVALID_VALUE;
    }
    let mut waited = Vec::new();
    for handle in slice(events, num_events as usize) {
        waited.push(try_cl!(objects::event(*handle as usize)));
    }
    if waited.iter().any(|event| event.context != waited[0].context) {
        return CL_INVALID_CONTEXT;
    }
    // Waits for every event, also after one failed.
    let mut failed = false;
    for event in &waited {
        failed |= event.wait() < 0;
    }
    if failed {
        CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
    } else {
        CL_SUCCESS
    }
}

unsafe extern "C" fn create_user_event(context: Handle, errcode_ret: *mut cl_int) -> Handle {
    try_create!(objects::context(context as usize), errcode_ret);
    let event = event::create(context as usize, 0, CL_COMMAND_USER, false);
    created(Ok(event.register()), errcode_ret)
}

unsafe extern "C" fn set_user_event_status(event: Handle, status: cl_int) -> cl_int {
    let event = try_cl!(objects::event(event as usize));
    if event.queue != 0 {
        return CL_INVALID_EVENT;
    }
    if status > CL_COMPLETE {
        return CL_INVALID_VALUE;
    }
    if event.status() != CL_SUBMITTED {
        return CL_INVALID_OPERATION;
    }
    event.set_status(status);
    CL_SUCCESS
}

unsafe extern "C" fn set_event_callback(
    event: Handle,
    status: cl_int,
    function: Option<unsafe extern "C" fn(Handle, cl_int, *mut c_void)>,
    user_data: *mut c_void,
) -> cl_int {
    let event = try_cl!(objects::event(event as usize));
    let Some(function) = function else { return CL_INVALID_VALUE };
    if ![CL_SUBMITTED, CL_RUNNING, CL_COMPLETE].contains(&status) {
        return CL_INVALID_VALUE;
    }
    event.add_callback(Callback {
        function: function as *const () as usize,
        user_data: user_data as usize,
        status,
    });
    CL_SUCCESS
}

unsafe extern "C" fn get_supported_image_formats(
    context: Handle,
    _flags: cl_bitfield,
    _image_type: cl_uint,
    _num_entries: cl_uint,
    _formats: *mut c_void,
    num_formats: *mut cl_uint,
) -> cl_int {
    try_cl!(objects::context(context as usize));
    // No image support: no formats.
    if !num_formats.is_null() {
        *num_formats = 0;
    }
    CL_SUCCESS
}

// ----- Programs and kernels -----

unsafe extern "C" fn create_program_with_source(
    context: Handle,
    count: cl_uint,
    strings: *const *const c_char,
    lengths: *const usize,
    errcode_ret: *mut cl_int,
) -> Handle {
    try_create!(objects::context(context as usize), errcode_ret);
    if count == 0 || strings.is_null() {
        set_error(errcode_ret, CL_INVALID_VALUE);
        return std::ptr::null_mut();
    }
    let mut source = Vec::new();
    for index in 0..count as usize {
        let string = *strings.add(index);
        if string.is_null() {
            set_error(errcode_ret, CL_INVALID_VALUE);
            return std::ptr::null_mut();
        }
        let length = if lengths.is_null() { 0 } else { *lengths.add(index) };
        if length == 0 {
            source.extend_from_slice(CStr::from_ptr(string).to_bytes());
        } else {
            source.extend_from_slice(slice(string as *const u8, length));
        }
    }
    let source = String::from_utf8_lossy(&source).into_owned();
    created(Ok(program::create_with_source(context as usize, source)), errcode_ret)
}

unsafe extern "C" fn build_program(
    program: Handle,
    num_devices: cl_uint,
    devices: *const Handle,
    options: *const c_char,
    notify: Option<unsafe extern "C" fn(Handle, *mut c_void)>,
    user_data: *mut c_void,
) -> cl_int {
    let program_object = try_cl!(objects::program(program as usize));
    if (num_devices == 0) != devices.is_null() {
        return CL_INVALID_VALUE;
    }
    if slice(devices, num_devices as usize).iter().any(|device| *device as usize != device_handle())
    {
        return CL_INVALID_DEVICE;
    }
    let options = if options.is_null() {
        String::new()
    } else {
        CStr::from_ptr(options).to_string_lossy().into_owned()
    };
    let code = program_object.build(&options);
    if let Some(notify) = notify {
        notify(program, user_data);
    }
    code
}

unsafe extern "C" fn get_program_build_info(
    program: Handle,
    device: Handle,
    param: cl_uint,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    let program = try_cl!(objects::program(program as usize));
    if device as usize != device_handle() {
        return CL_INVALID_DEVICE;
    }
    write_info(program.build_info(param), size, value, size_ret)
}

/// `clUnloadCompiler`, `clUnloadPlatformCompiler`: nothing stays loaded.
unsafe extern "C" fn unload_compiler() -> cl_int {
    CL_SUCCESS
}

unsafe extern "C" fn create_kernel(
    program: Handle,
    name: *const c_char,
    errcode_ret: *mut cl_int,
) -> Handle {
    let program = try_create!(objects::program(program as usize), errcode_ret);
    if name.is_null() {
        set_error(errcode_ret, CL_INVALID_VALUE);
        return std::ptr::null_mut();
    }
    let name = CStr::from_ptr(name).to_string_lossy();
    created(kernel::create(&program, &name), errcode_ret)
}

unsafe extern "C" fn create_kernels_in_program(
    program: Handle,
    num_kernels: cl_uint,
    kernels: *mut Handle,
    num_kernels_ret: *mut cl_uint,
) -> cl_int {
    let program = try_cl!(objects::program(program as usize));
    let Some(executable) = program.executable() else { return CL_INVALID_PROGRAM_EXECUTABLE };
    let count = executable.kernels.len();
    if !kernels.is_null() && (num_kernels as usize) < count {
        return CL_INVALID_VALUE;
    }
    if !kernels.is_null() {
        for (index, info) in executable.kernels.iter().enumerate() {
            *kernels.add(index) = try_cl!(kernel::create(&program, &info.name)) as Handle;
        }
    }
    if !num_kernels_ret.is_null() {
        *num_kernels_ret = count as cl_uint;
    }
    CL_SUCCESS
}

unsafe extern "C" fn set_kernel_arg(
    kernel: Handle,
    index: cl_uint,
    size: usize,
    value: *const c_void,
) -> cl_int {
    let kernel = try_cl!(objects::kernel(kernel as usize));
    let bytes = (!value.is_null()).then(|| slice(value as *const u8, size));
    kernel.set_arg(index, size, bytes)
}

unsafe extern "C" fn get_kernel_work_group_info(
    kernel: Handle,
    device: Handle,
    param: cl_uint,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    let kernel = try_cl!(objects::kernel(kernel as usize));
    if !device.is_null() && device as usize != device_handle() {
        return CL_INVALID_DEVICE;
    }
    write_info(kernel.work_group_info(param), size, value, size_ret)
}

unsafe extern "C" fn get_kernel_arg_info(
    kernel: Handle,
    _index: cl_uint,
    _param: cl_uint,
    _size: usize,
    _value: *mut c_void,
    _size_ret: *mut usize,
) -> cl_int {
    try_cl!(objects::kernel(kernel as usize));
    // Programs are not built with -cl-kernel-arg-info metadata kept.
    CL_KERNEL_ARG_INFO_NOT_AVAILABLE
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn enqueue_nd_range_kernel(
    queue: Handle,
    kernel: Handle,
    work_dim: cl_uint,
    global_offset: *const usize,
    global_size: *const usize,
    local_size: *const usize,
    num_events: cl_uint,
    events: *const Handle,
    event: *mut Handle,
) -> cl_int {
    let queue = try_cl!(objects::queue(queue as usize));
    let kernel = try_cl!(objects::kernel(kernel as usize));
    if kernel.program.context != queue.context {
        return CL_INVALID_CONTEXT;
    }
    if !(1..=3).contains(&work_dim) {
        return CL_INVALID_WORK_DIMENSION;
    }
    if global_size.is_null() {
        return CL_INVALID_GLOBAL_WORK_SIZE;
    }
    let dims = work_dim as usize;
    let mut range =
        executor::NdRange { dims: work_dim, offset: [0; 3], global: [1; 3], local: [1; 3] };
    range.global[..dims].copy_from_slice(slice(global_size, dims));
    if range.global.contains(&0) {
        return CL_INVALID_GLOBAL_WORK_SIZE;
    }
    if !global_offset.is_null() {
        range.offset[..dims].copy_from_slice(slice(global_offset, dims));
    }
    if local_size.is_null() {
        range.local[0] =
            executor::choose_local_size(range.global[0], kernel.executable.width as usize);
    } else {
        range.local[..dims].copy_from_slice(slice(local_size, dims));
        if range.local.contains(&0)
            || (0..3).any(|d| !range.global[d].is_multiple_of(range.local[d]))
            || range.local.iter().product::<usize>() > platform::MAX_WORK_GROUP_SIZE
        {
            return CL_INVALID_WORK_GROUP_SIZE;
        }
    }
    let args = try_cl!(kernel.snapshot_args());
    let work = Box::new(move || executor::run(kernel, args, range));
    enqueue(&queue, CL_COMMAND_NDRANGE_KERNEL, false, num_events, events, event, work)
}

unsafe extern "C" fn enqueue_task(
    queue: Handle,
    kernel: Handle,
    num_events: cl_uint,
    events: *const Handle,
    event: *mut Handle,
) -> cl_int {
    let one = 1usize;
    enqueue_nd_range_kernel(
        queue,
        kernel,
        1,
        std::ptr::null(),
        &one,
        &one,
        num_events,
        events,
        event,
    )
}

// ----- What this platform does not provide -----

/// Slots of functions that return `cl_int` (or nothing) and that this
/// platform does not provide: separate compilation and linking
/// (`clCompileProgram`, `clLinkProgram`), images and samplers (no image support,
/// `CL_DEVICE_IMAGE_SUPPORT` is false), SVM, pipes, sub-devices and the
/// OpenGL/Direct3D/EGL sharing extensions.
pub extern "C" fn unsupported_entry() -> cl_int {
    CL_INVALID_OPERATION
}

/// Functions that create objects this platform does not provide: null,
/// with the error code in the last argument.
macro_rules! unsupported_create {
    ($name:ident, $code:expr, ($($arg:ident: $ty:ty),*)) => {
        unsafe extern "C" fn $name($($arg: $ty,)* errcode_ret: *mut cl_int) -> Handle {
            $(let _ = $arg;)*
            set_error(errcode_ret, $code);
            std::ptr::null_mut()
        }
    };
}

unsupported_create!(create_image_2d, CL_INVALID_OPERATION, (a: Handle, b: cl_bitfield, c: *const c_void, d: usize, e: usize, f: usize, g: *mut c_void));
unsupported_create!(create_image_3d, CL_INVALID_OPERATION, (a: Handle, b: cl_bitfield, c: *const c_void, d: usize, e: usize, f: usize, g: usize, h: usize, i: *mut c_void));
unsupported_create!(create_image, CL_INVALID_OPERATION, (a: Handle, b: cl_bitfield, c: *const c_void, d: *const c_void, e: *mut c_void));
unsupported_create!(create_image_with_properties, CL_INVALID_OPERATION, (a: Handle, b: *const cl_bitfield, c: cl_bitfield, d: *const c_void, e: *const c_void, f: *mut c_void));
unsupported_create!(create_sampler, CL_INVALID_OPERATION, (a: Handle, b: cl_bool, c: cl_uint, d: cl_uint));
unsupported_create!(create_sampler_with_properties, CL_INVALID_OPERATION, (a: Handle, b: *const cl_bitfield));
unsupported_create!(create_pipe, CL_INVALID_OPERATION, (a: Handle, b: cl_bitfield, c: cl_uint, d: cl_uint, e: *const isize));
unsupported_create!(create_program_with_binary, CL_INVALID_OPERATION, (a: Handle, b: cl_uint, c: *const Handle, d: *const usize, e: *const *const u8, f: *mut cl_int));
unsupported_create!(create_program_with_built_in_kernels, CL_INVALID_VALUE, (a: Handle, b: cl_uint, c: *const Handle, d: *const c_char));
unsupported_create!(create_program_with_il, CL_INVALID_OPERATION, (a: Handle, b: *const c_void, c: usize));
unsupported_create!(link_program, CL_INVALID_OPERATION, (a: Handle, b: cl_uint, c: *const Handle, d: *const c_char, e: cl_uint, f: *const Handle, g: *const c_void, h: *mut c_void));
unsupported_create!(clone_kernel, CL_INVALID_KERNEL, (a: Handle));
unsupported_create!(create_from_gl_buffer, CL_INVALID_CONTEXT, (a: Handle, b: cl_bitfield, c: cl_uint));
unsupported_create!(create_from_gl_texture, CL_INVALID_CONTEXT, (a: Handle, b: cl_bitfield, c: cl_uint, d: i32, e: cl_uint));
unsupported_create!(create_from_gl_renderbuffer, CL_INVALID_CONTEXT, (a: Handle, b: cl_bitfield, c: cl_uint));
unsupported_create!(create_event_from_gl_sync, CL_INVALID_CONTEXT, (a: Handle, b: *mut c_void));
unsupported_create!(create_from_egl_image, CL_INVALID_CONTEXT, (a: Handle, b: *mut c_void, c: *mut c_void, d: cl_bitfield, e: *const isize));
unsupported_create!(create_event_from_egl_sync, CL_INVALID_CONTEXT, (a: Handle, b: *mut c_void, c: *mut c_void));

unsafe extern "C" fn enqueue_map_image(
    _queue: Handle,
    _image: Handle,
    _blocking: cl_bool,
    _flags: cl_bitfield,
    _origin: *const usize,
    _region: *const usize,
    _row_pitch: *mut usize,
    _slice_pitch: *mut usize,
    _num_events: cl_uint,
    _events: *const Handle,
    _event: *mut Handle,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    set_error(errcode_ret, CL_INVALID_MEM_OBJECT);
    std::ptr::null_mut()
}

unsafe extern "C" fn svm_alloc(
    _context: Handle,
    _flags: cl_bitfield,
    _size: usize,
    _align: cl_uint,
) -> *mut c_void {
    std::ptr::null_mut()
}

/// Every function this library implements, by API name: the dispatch
/// table's slots ([`crate::dispatch`]).
pub fn entries() -> &'static [(&'static str, usize)] {
    static ENTRIES: std::sync::OnceLock<Vec<(&'static str, usize)>> = std::sync::OnceLock::new();
    ENTRIES.get_or_init(|| {
        vec![
            ("clIcdGetPlatformIDsKHR", clIcdGetPlatformIDsKHR as *const () as usize),
            ("clGetExtensionFunctionAddress", clGetExtensionFunctionAddress as *const () as usize),
            (
                "clGetExtensionFunctionAddressForPlatform",
                get_extension_function_address_for_platform as *const () as usize,
            ),
            ("clGetPlatformIDs", get_platform_ids as *const () as usize),
            ("clGetPlatformInfo", get_platform_info as *const () as usize),
            ("clGetDeviceIDs", get_device_ids as *const () as usize),
            ("clGetDeviceInfo", get_device_info as *const () as usize),
            ("clRetainDevice", retain_release_device as *const () as usize),
            ("clReleaseDevice", retain_release_device as *const () as usize),
            ("clCreateContext", create_context as *const () as usize),
            ("clCreateContextFromType", create_context_from_type as *const () as usize),
            ("clRetainContext", retain_context as *const () as usize),
            ("clReleaseContext", release_context as *const () as usize),
            ("clGetContextInfo", get_context_info as *const () as usize),
            ("clCreateCommandQueue", create_command_queue as *const () as usize),
            (
                "clCreateCommandQueueWithProperties",
                create_command_queue_with_properties as *const () as usize,
            ),
            ("clRetainCommandQueue", retain_command_queue as *const () as usize),
            ("clReleaseCommandQueue", release_command_queue as *const () as usize),
            ("clGetCommandQueueInfo", get_command_queue_info as *const () as usize),
            ("clFlush", flush as *const () as usize),
            ("clFinish", finish as *const () as usize),
            ("clCreateBuffer", create_buffer as *const () as usize),
            ("clCreateBufferWithProperties", create_buffer_with_properties as *const () as usize),
            ("clCreateSubBuffer", create_sub_buffer as *const () as usize),
            ("clRetainMemObject", retain_mem_object as *const () as usize),
            ("clReleaseMemObject", release_mem_object as *const () as usize),
            ("clGetMemObjectInfo", get_mem_object_info as *const () as usize),
            (
                "clSetMemObjectDestructorCallback",
                set_mem_object_destructor_callback as *const () as usize,
            ),
            ("clEnqueueReadBuffer", enqueue_read_buffer as *const () as usize),
            ("clEnqueueWriteBuffer", enqueue_write_buffer as *const () as usize),
            ("clEnqueueCopyBuffer", enqueue_copy_buffer as *const () as usize),
            ("clEnqueueFillBuffer", enqueue_fill_buffer as *const () as usize),
            ("clEnqueueMapBuffer", enqueue_map_buffer as *const () as usize),
            ("clEnqueueUnmapMemObject", enqueue_unmap_mem_object as *const () as usize),
            ("clEnqueueMarker", enqueue_marker as *const () as usize),
            ("clEnqueueMarkerWithWaitList", enqueue_marker_with_wait_list as *const () as usize),
            ("clEnqueueBarrier", enqueue_barrier as *const () as usize),
            ("clEnqueueBarrierWithWaitList", enqueue_barrier_with_wait_list as *const () as usize),
            ("clEnqueueWaitForEvents", enqueue_wait_for_events as *const () as usize),
            ("clWaitForEvents", wait_for_events as *const () as usize),
            ("clGetEventInfo", get_event_info as *const () as usize),
            ("clGetEventProfilingInfo", get_event_profiling_info as *const () as usize),
            ("clRetainEvent", retain_event as *const () as usize),
            ("clReleaseEvent", release_event as *const () as usize),
            ("clCreateUserEvent", create_user_event as *const () as usize),
            ("clSetUserEventStatus", set_user_event_status as *const () as usize),
            ("clSetEventCallback", set_event_callback as *const () as usize),
            ("clGetSupportedImageFormats", get_supported_image_formats as *const () as usize),
            ("clCreateImage2D", create_image_2d as *const () as usize),
            ("clCreateImage3D", create_image_3d as *const () as usize),
            ("clCreateImage", create_image as *const () as usize),
            ("clCreateImageWithProperties", create_image_with_properties as *const () as usize),
            ("clCreateSampler", create_sampler as *const () as usize),
            ("clCreateSamplerWithProperties", create_sampler_with_properties as *const () as usize),
            ("clCreatePipe", create_pipe as *const () as usize),
            ("clCreateProgramWithSource", create_program_with_source as *const () as usize),
            ("clCreateProgramWithBinary", create_program_with_binary as *const () as usize),
            (
                "clCreateProgramWithBuiltInKernels",
                create_program_with_built_in_kernels as *const () as usize,
            ),
            ("clCreateProgramWithIL", create_program_with_il as *const () as usize),
            ("clLinkProgram", link_program as *const () as usize),
            ("clCreateKernel", create_kernel as *const () as usize),
            ("clBuildProgram", build_program as *const () as usize),
            ("clRetainProgram", retain_program as *const () as usize),
            ("clReleaseProgram", release_program as *const () as usize),
            ("clGetProgramInfo", get_program_info as *const () as usize),
            ("clGetProgramBuildInfo", get_program_build_info as *const () as usize),
            ("clUnloadCompiler", unload_compiler as *const () as usize),
            ("clUnloadPlatformCompiler", unload_compiler as *const () as usize),
            ("clCreateKernelsInProgram", create_kernels_in_program as *const () as usize),
            ("clRetainKernel", retain_kernel as *const () as usize),
            ("clReleaseKernel", release_kernel as *const () as usize),
            ("clSetKernelArg", set_kernel_arg as *const () as usize),
            ("clGetKernelInfo", get_kernel_info as *const () as usize),
            ("clGetKernelWorkGroupInfo", get_kernel_work_group_info as *const () as usize),
            ("clGetKernelArgInfo", get_kernel_arg_info as *const () as usize),
            ("clEnqueueNDRangeKernel", enqueue_nd_range_kernel as *const () as usize),
            ("clEnqueueTask", enqueue_task as *const () as usize),
            ("clCloneKernel", clone_kernel as *const () as usize),
            ("clCreateFromGLBuffer", create_from_gl_buffer as *const () as usize),
            ("clCreateFromGLTexture", create_from_gl_texture as *const () as usize),
            ("clCreateFromGLTexture2D", create_from_gl_texture as *const () as usize),
            ("clCreateFromGLTexture3D", create_from_gl_texture as *const () as usize),
            ("clCreateFromGLRenderbuffer", create_from_gl_renderbuffer as *const () as usize),
            ("clCreateEventFromGLsyncKHR", create_event_from_gl_sync as *const () as usize),
            ("clCreateFromEGLImageKHR", create_from_egl_image as *const () as usize),
            ("clCreateEventFromEGLSyncKHR", create_event_from_egl_sync as *const () as usize),
            ("clEnqueueMapImage", enqueue_map_image as *const () as usize),
            ("clSVMAlloc", svm_alloc as *const () as usize),
        ]
    })
}
