//! In-order command queues.
//!
//! Each queue has a worker thread that runs its commands one after the
//! other, in the order they were enqueued, each after the events of its wait
//! list completed; a command's event goes through queued, submitted,
//! running and complete with the device clock's times (profiling). Blocking
//! calls enqueue and then wait for the command's event, so every command,
//! blocking or not, runs on the worker, in order.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;

use crate::cl::*;
use crate::event::{self, Event};
use crate::info::{self, InfoResult};
use crate::objects::{self, Object};
use crate::platform::device_handle;

/// What a command does when it runs; its result becomes the event's status
/// (`CL_COMPLETE` or a negative error code).
pub type Work = Box<dyn FnOnce() -> cl_int + Send>;

struct Command {
    event: Arc<Event>,
    wait_for: Vec<Arc<Event>>,
    work: Work,
}

#[derive(Default)]
struct QueueState {
    pending: VecDeque<Command>,
    /// Commands taken by the worker and not finished.
    running: usize,
    shutdown: bool,
    /// Whether the worker sleeps waiting for a command, and how many
    /// threads wait in `finish`: notifications go only to a sleeper (each
    /// is a system call; one per command and per finished command added
    /// several microseconds to every launch).
    worker_sleeps: bool,
    finishers: usize,
}

pub struct Queue {
    pub handle: usize,
    pub context: usize,
    pub properties: u64,
    state: Mutex<QueueState>,
    /// Signals the worker (new command, shutdown) and waiters (idle).
    changed: Condvar,
}

pub fn create(context: usize, properties: u64) -> Result<usize, cl_int> {
    if properties & !(CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0 {
        return Err(CL_INVALID_VALUE);
    }
    if properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE != 0 {
        return Err(CL_INVALID_QUEUE_PROPERTIES);
    }
    objects::retain(context);
    let mut created = None;
    let handle = objects::register(|handle| {
        let queue = Arc::new(Queue {
            handle,
            context,
            properties,
            state: Mutex::new(QueueState::default()),
            changed: Condvar::new(),
        });
        created = Some(queue.clone());
        Object::Queue(queue)
    });
    let queue = created.expect("registered");
    thread::Builder::new()
        .name("lanewise-opencl-queue".into())
        .spawn(move || queue.work())
        .map_err(|_| CL_OUT_OF_RESOURCES)?;
    Ok(handle)
}

impl Queue {
    fn lock(&self) -> MutexGuard<'_, QueueState> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Enqueues `work` after `wait_for`; returns its event.
    pub fn enqueue(
        &self,
        command_type: cl_uint,
        wait_for: Vec<Arc<Event>>,
        work: Work,
    ) -> Arc<Event> {
        let profiled = self.properties & CL_QUEUE_PROFILING_ENABLE != 0;
        let event = event::create(self.context, self.handle, command_type, profiled);
        // The event refers to the queue and its context by handle.
        objects::retain(self.handle);
        let wake = {
            let mut state = self.lock();
            state.pending.push_back(Command { event: event.clone(), wait_for, work });
            state.worker_sleeps
        };
        if wake {
            self.changed.notify_all();
        }
        event
    }

    /// `clFinish`: blocks until every enqueued command completed.
    pub fn finish(&self) {
        let mut state = self.lock();
        state.finishers += 1;
        while !state.pending.is_empty() || state.running > 0 {
            state = self.changed.wait(state).unwrap_or_else(|poisoned| poisoned.into_inner());
        }
        state.finishers -= 1;
    }

    /// Called when the application released the queue's last reference:
    /// the worker runs what is enqueued, then exits.
    pub fn shut_down(&self) {
        self.lock().shutdown = true;
        self.changed.notify_all();
    }

    fn work(self: Arc<Self>) {
        loop {
            let command = {
                let mut state = self.lock();
                loop {
                    if let Some(command) = state.pending.pop_front() {
                        state.running += 1;
                        break command;
                    }
                    if state.shutdown {
                        drop(state);
                        let _ = objects::release(self.context);
                        return;
                    }
                    state.worker_sleeps = true;
                    state =
                        self.changed.wait(state).unwrap_or_else(|poisoned| poisoned.into_inner());
                    state.worker_sleeps = false;
                }
            };
            command.event.set_status(CL_SUBMITTED);
            let failed_dependency = command.wait_for.iter().any(|dependency| dependency.wait() < 0);
            let status = if failed_dependency {
                CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
            } else {
                command.event.set_status(CL_RUNNING);
                (command.work)()
            };
            command.event.set_status(status);
            // The command's reference to the queue (see `enqueue`); if it
            // was the last one, the application released the queue.
            if let objects::Released::Last(_) = objects::release(self.handle) {
                self.lock().shutdown = true;
            }
            let wake = {
                let mut state = self.lock();
                state.running -= 1;
                state.finishers > 0
            };
            if wake {
                self.changed.notify_all();
            }
        }
    }

    pub fn info(&self, param: cl_uint) -> InfoResult {
        match param {
            CL_QUEUE_CONTEXT => info::pointer(self.context),
            CL_QUEUE_DEVICE => info::pointer(device_handle()),
            CL_QUEUE_REFERENCE_COUNT => info::uint(objects::reference_count(self.handle)),
            CL_QUEUE_PROPERTIES => info::ulong(self.properties),
            _ => Err(CL_INVALID_VALUE),
        }
    }
}
