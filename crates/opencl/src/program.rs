//! Programs: OpenCL C source, built by [`crate::compiler`] into a loaded
//! shared object whose kernels [`crate::kernel`] objects call.

use std::sync::{Arc, Mutex, MutexGuard};

use crate::adaptive::KernelChoice;
use crate::cl::*;
use crate::compiler::{self, KernelInfo};
use crate::info::{self, InfoResult};
use crate::objects::{self, Object};
use crate::platform::device_handle;
use crate::raw::LoadedLibrary;

/// A built program: the loaded code and its kernels.
pub struct Executable {
    pub library: LoadedLibrary,
    pub width: u32,
    pub kernels: Vec<KernelInfo>,
    /// Per kernel: vector variant or scalar form ([`crate::adaptive`]).
    pub choices: Vec<KernelChoice>,
}

struct BuildState {
    status: cl_int,
    options: String,
    log: String,
    executable: Option<Arc<Executable>>,
    /// Kernel objects made from the current executable (a rebuild is
    /// refused while any exists, as the specification says).
    kernels_attached: usize,
}

pub struct Program {
    pub handle: usize,
    pub context: usize,
    pub source: String,
    state: Mutex<BuildState>,
}

pub fn create_with_source(context: usize, source: String) -> usize {
    objects::retain(context);
    objects::register(|handle| {
        Object::Program(Arc::new(Program {
            handle,
            context,
            source,
            state: Mutex::new(BuildState {
                status: CL_BUILD_NONE,
                options: String::new(),
                log: String::new(),
                executable: None,
                kernels_attached: 0,
            }),
        }))
    })
}

impl Program {
    fn lock(&self) -> MutexGuard<'_, BuildState> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// `clBuildProgram`.
    pub fn build(&self, options: &str) -> cl_int {
        {
            let mut state = self.lock();
            if state.kernels_attached > 0 {
                return CL_INVALID_OPERATION;
            }
            state.status = CL_BUILD_IN_PROGRESS;
            state.options = options.to_owned();
        }
        let result = compiler::build(&self.source, options).and_then(|built| {
            let library = LoadedLibrary::open(&built.library);
            compiler::remove_work_directory(&built.library);
            let library = library.map_err(|error| {
                format!("{}lanewise: loading the program: {error}\n", built.log)
            })?;
            let choices = built.kernels.iter().map(|_| KernelChoice::default()).collect();
            let executable =
                Executable { library, width: built.width, kernels: built.kernels, choices };
            Ok((executable, built.log))
        });
        let mut state = self.lock();
        match result {
            Ok((executable, log)) => {
                state.status = CL_BUILD_SUCCESS;
                state.log = log;
                state.executable = Some(Arc::new(executable));
                CL_SUCCESS
            }
            Err(log) => {
                state.status = CL_BUILD_ERROR;
                state.log = log;
                state.executable = None;
                CL_BUILD_PROGRAM_FAILURE
            }
        }
    }

    pub fn executable(&self) -> Option<Arc<Executable>> {
        self.lock().executable.clone()
    }

    pub fn attach_kernel(&self, attach: bool) {
        let mut state = self.lock();
        if attach {
            state.kernels_attached += 1;
        } else {
            state.kernels_attached -= 1;
        }
    }

    fn kernel_names(&self) -> Option<String> {
        let executable = self.executable()?;
        Some(
            executable
                .kernels
                .iter()
                .map(|kernel| kernel.name.as_str())
                .collect::<Vec<_>>()
                .join(";"),
        )
    }

    pub fn info(&self, param: cl_uint) -> InfoResult {
        match param {
            CL_PROGRAM_REFERENCE_COUNT => info::uint(objects::reference_count(self.handle)),
            CL_PROGRAM_CONTEXT => info::pointer(self.context),
            CL_PROGRAM_NUM_DEVICES => info::uint(1),
            CL_PROGRAM_DEVICES => info::pointer(device_handle()),
            CL_PROGRAM_SOURCE => info::string(&self.source),
            // Binaries cannot be saved: a program is its source.
            CL_PROGRAM_BINARY_SIZES => info::size(0),
            CL_PROGRAM_NUM_KERNELS => match self.executable() {
                Some(executable) => info::size(executable.kernels.len()),
                None => Err(CL_INVALID_PROGRAM_EXECUTABLE),
            },
            CL_PROGRAM_KERNEL_NAMES => match self.kernel_names() {
                Some(names) => info::string(&names),
                None => Err(CL_INVALID_PROGRAM_EXECUTABLE),
            },
            _ => Err(CL_INVALID_VALUE),
        }
    }

    pub fn build_info(&self, param: cl_uint) -> InfoResult {
        let state = self.lock();
        match param {
            CL_PROGRAM_BUILD_STATUS => info::int(state.status),
            CL_PROGRAM_BUILD_OPTIONS => info::string(&state.options),
            CL_PROGRAM_BUILD_LOG => info::string(&state.log),
            CL_PROGRAM_BINARY_TYPE => info::uint(if state.executable.is_some() {
                CL_PROGRAM_BINARY_TYPE_EXECUTABLE
            } else {
                CL_PROGRAM_BINARY_TYPE_NONE
            }),
            _ => Err(CL_INVALID_VALUE),
        }
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        let _ = objects::release(self.context);
    }
}
