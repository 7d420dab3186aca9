//! Events: the status of a command (or a user event) and its profiling
//! times, with waiting and completion callbacks.

use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Instant;

use crate::cl::*;
use crate::info::{self, InfoResult};
use crate::objects;
use crate::raw;

/// Nanoseconds of the device's clock (monotonic, since the library loaded).
pub fn now_ns() -> u64 {
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

/// A completion callback: the C function and its user data.
#[derive(Clone, Copy)]
pub struct Callback {
    pub function: usize,
    pub user_data: usize,
    /// The status it waits for (`CL_SUBMITTED`, `CL_RUNNING`, `CL_COMPLETE`).
    pub status: cl_int,
}

struct EventState {
    /// `CL_QUEUED`..`CL_COMPLETE`, or a negative error code.
    status: cl_int,
    /// Queued, submitted, started, ended (ns).
    times: [u64; 4],
    callbacks: Vec<Callback>,
    /// Threads blocked in `wait` (a notification without one is a system
    /// call for nothing, three per command).
    waiters: usize,
}

pub struct Event {
    /// The event's handle, made when the application gets the event (a
    /// command's event stays internal when the application passes no
    /// `event` argument: no handle, so none is ever leaked for it).
    handle: OnceLock<usize>,
    pub context: usize,
    /// The queue's handle; 0 for a user event.
    pub queue: usize,
    pub command_type: cl_uint,
    pub profiled: bool,
    state: Mutex<EventState>,
    changed: Condvar,
}

pub fn create(context: usize, queue: usize, command_type: cl_uint, profiled: bool) -> Arc<Event> {
    let status = if queue == 0 { CL_SUBMITTED } else { CL_QUEUED };
    Arc::new(Event {
        handle: OnceLock::new(),
        context,
        queue,
        command_type,
        profiled,
        state: Mutex::new(EventState {
            status,
            times: [now_ns(), 0, 0, 0],
            callbacks: vec![],
            waiters: 0,
        }),
        changed: Condvar::new(),
    })
}

impl Event {
    /// The event's handle, registering it (with the one reference the
    /// application then owns) the first time.
    pub fn register(self: &Arc<Self>) -> usize {
        *self.handle.get_or_init(|| objects::register(|_| objects::Object::Event(self.clone())))
    }

    /// The handle, or 0 if the application never got the event.
    pub fn handle(&self) -> usize {
        self.handle.get().copied().unwrap_or(0)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, EventState> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn status(&self) -> cl_int {
        self.lock().status
    }

    /// Moves to `status` (recording its time) and runs the callbacks that
    /// wait for it or for an earlier status.
    pub fn set_status(&self, status: cl_int) {
        let (due, wake): (Vec<Callback>, bool) = {
            let mut state = self.lock();
            state.status = status;
            let slot = match status {
                CL_SUBMITTED => Some(1),
                CL_RUNNING => Some(2),
                _ if status <= CL_COMPLETE => Some(3),
                _ => None,
            };
            if let Some(slot) = slot {
                state.times[slot] = now_ns();
                // A command that skipped a stage has that stage's time too.
                for earlier in 1..slot {
                    if state.times[earlier] == 0 {
                        state.times[earlier] = state.times[slot];
                    }
                }
            }
            let (due, waiting) =
                state.callbacks.iter().partition(|callback| status <= callback.status);
            state.callbacks = waiting;
            (due, state.waiters > 0)
        };
        if wake {
            self.changed.notify_all();
        }
        for callback in due {
            raw::call_event_callback(callback, self.handle(), status);
        }
    }

    /// Blocks until the event completed; its final status.
    pub fn wait(&self) -> cl_int {
        let mut state = self.lock();
        state.waiters += 1;
        while state.status > CL_COMPLETE {
            state = self.changed.wait(state).unwrap_or_else(|poisoned| poisoned.into_inner());
        }
        state.waiters -= 1;
        state.status
    }

    pub fn add_callback(&self, callback: Callback) {
        let status = {
            let mut state = self.lock();
            if state.status > callback.status {
                state.callbacks.push(callback);
                return;
            }
            state.status
        };
        raw::call_event_callback(callback, self.handle(), status);
    }

    pub fn info(&self, param: cl_uint) -> InfoResult {
        match param {
            CL_EVENT_COMMAND_QUEUE => info::pointer(self.queue),
            CL_EVENT_CONTEXT => info::pointer(self.context),
            CL_EVENT_COMMAND_TYPE => info::uint(self.command_type),
            CL_EVENT_COMMAND_EXECUTION_STATUS => info::int(self.status()),
            CL_EVENT_REFERENCE_COUNT => info::uint(objects::reference_count(self.handle())),
            _ => Err(CL_INVALID_VALUE),
        }
    }

    pub fn profiling_info(&self, param: cl_uint) -> InfoResult {
        let state = self.lock();
        if !self.profiled || state.status != CL_COMPLETE {
            return Err(CL_PROFILING_INFO_NOT_AVAILABLE);
        }
        let slot = match param {
            CL_PROFILING_COMMAND_QUEUED => 0,
            CL_PROFILING_COMMAND_SUBMIT => 1,
            CL_PROFILING_COMMAND_START => 2,
            CL_PROFILING_COMMAND_END | CL_PROFILING_COMMAND_COMPLETE => 3,
            _ => return Err(CL_INVALID_VALUE),
        };
        info::ulong(state.times[slot])
    }
}
