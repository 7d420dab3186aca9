//! Kernels: a program's kernel and the arguments set on it.

use std::sync::{Arc, Mutex, MutexGuard};

use crate::cl::*;
use crate::compiler::KernelInfo;
use crate::info::{self, InfoResult};
use crate::memory::Mem;
use crate::objects::{self, Object};
use crate::platform::MAX_WORK_GROUP_SIZE;
use crate::program::{Executable, Program};

/// One argument as `clSetKernelArg` gave it.
#[derive(Clone)]
pub enum ArgValue {
    /// A scalar or vector passed by value: its bytes.
    Bytes(Vec<u8>),
    /// A `__global` or `__constant` pointer: the buffer (`None`: null).
    Buffer(Option<Arc<Mem>>),
    /// A `__local` pointer: the bytes each work-group gets.
    Local(usize),
}

pub struct Kernel {
    pub handle: usize,
    pub program: Arc<Program>,
    pub executable: Arc<Executable>,
    /// Index into `executable.kernels`.
    pub index: usize,
    args: Mutex<Vec<Option<ArgValue>>>,
}

pub fn create(program: &Arc<Program>, name: &str) -> Result<usize, cl_int> {
    let executable = program.executable().ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
    let index = executable
        .kernels
        .iter()
        .position(|kernel| kernel.name == name)
        .ok_or(CL_INVALID_KERNEL_NAME)?;
    let args = vec![None; executable.kernels[index].params.len()];
    program.attach_kernel(true);
    objects::retain(program.handle);
    Ok(objects::register(|handle| {
        Object::Kernel(Arc::new(Kernel {
            handle,
            program: program.clone(),
            executable,
            index,
            args: Mutex::new(args),
        }))
    }))
}

impl Kernel {
    pub fn info_of(&self) -> &KernelInfo {
        &self.executable.kernels[self.index]
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Option<ArgValue>>> {
        self.args.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// `clSetKernelArg`, with the value already read: `None` for a null
    /// `arg_value`, else its bytes.
    pub fn set_arg(&self, index: u32, size: usize, value: Option<&[u8]>) -> cl_int {
        let info = self.info_of();
        let Some(param) = info.params.get(index as usize) else { return CL_INVALID_ARG_INDEX };
        let arg = if param.is_pointer() {
            match value {
                // `__local`: a size and no value.
                None if size > 0 => ArgValue::Local(size),
                None => return CL_INVALID_ARG_SIZE,
                Some(bytes) if size == std::mem::size_of::<usize>() => {
                    let handle = usize::from_ne_bytes(bytes.try_into().expect("pointer size"));
                    if handle == 0 {
                        ArgValue::Buffer(None)
                    } else {
                        match objects::mem(handle) {
                            Ok(buffer) if buffer.context == self.program.context => {
                                ArgValue::Buffer(Some(buffer))
                            }
                            _ => return CL_INVALID_MEM_OBJECT,
                        }
                    }
                }
                Some(_) => return CL_INVALID_ARG_SIZE,
            }
        } else {
            match value {
                Some(bytes)
                    if size == param.size || (param.ty.is_vector() && size <= param.size) =>
                {
                    let mut bytes = bytes.to_vec();
                    bytes.resize(param.size, 0);
                    ArgValue::Bytes(bytes)
                }
                None => return CL_INVALID_ARG_VALUE,
                Some(_) => return CL_INVALID_ARG_SIZE,
            }
        };
        self.lock()[index as usize] = Some(arg);
        CL_SUCCESS
    }

    /// The arguments for an enqueue (captured then, as the specification
    /// says), or `CL_INVALID_KERNEL_ARGS` if one is not set.
    pub fn snapshot_args(&self) -> Result<Vec<ArgValue>, cl_int> {
        self.lock().iter().map(|arg| arg.clone().ok_or(CL_INVALID_KERNEL_ARGS)).collect()
    }

    pub fn info(&self, param: cl_uint) -> InfoResult {
        match param {
            CL_KERNEL_FUNCTION_NAME => info::string(&self.info_of().name),
            CL_KERNEL_NUM_ARGS => info::uint(self.info_of().params.len() as cl_uint),
            CL_KERNEL_REFERENCE_COUNT => info::uint(objects::reference_count(self.handle)),
            CL_KERNEL_CONTEXT => info::pointer(self.program.context),
            CL_KERNEL_PROGRAM => info::pointer(self.program.handle),
            CL_KERNEL_ATTRIBUTES => info::string(""),
            _ => Err(CL_INVALID_VALUE),
        }
    }

    pub fn work_group_info(&self, param: cl_uint) -> InfoResult {
        match param {
            CL_KERNEL_WORK_GROUP_SIZE => info::size(MAX_WORK_GROUP_SIZE),
            CL_KERNEL_COMPILE_WORK_GROUP_SIZE => info::sizes(&[0, 0, 0]),
            CL_KERNEL_LOCAL_MEM_SIZE | CL_KERNEL_PRIVATE_MEM_SIZE => info::ulong(0),
            CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE => {
                info::size(self.executable.width as usize)
            }
            _ => Err(CL_INVALID_VALUE),
        }
    }
}

impl Drop for Kernel {
    fn drop(&mut self) {
        self.program.attach_kernel(false);
        let _ = objects::release(self.program.handle);
    }
}
