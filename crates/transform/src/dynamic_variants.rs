//! Dynamic variants (WFV thesis, chapter 7): code that decides at run time
//! how to execute, because what pays depends on the data.
//!
//! * [`safety_net`]: a variant whose divergent loops may lose to scalar
//!   code chooses, call by call, between its vector body and per-lane calls
//!   of the scalar function, by the cycles each took per lane (issue 16's
//!   run-time safety net).

pub mod safety_net;

pub use safety_net::{
    add_safety_net, may_run_per_lane, net_name_symbol, per_lane_callee,
    read_lane_arguments_from_memory, PerLaneForm, SafetyNetMode, NET_BEGIN, NET_END,
};
