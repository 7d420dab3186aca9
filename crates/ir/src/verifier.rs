//! The IR verifier: checks the invariants every pass must keep, and reports
//! *all* broken ones, each naming the function, block and instruction.
//!
//! It runs after every pass in tests (design brief, "How correctness is
//! shown"); [`crate::printer::display_function_with_errors`] prints its errors
//! inline in the IR text. Like Cranelift's `verifier/mod.rs`, it never panics,
//! whatever the function holds: ids past the end of their arena, branches to
//! blocks that do not exist, and so on are reported as errors.
//!
//! # Checklist
//! Signature
//! - S1. Every parameter value exists, is defined as that parameter (same
//!   index) and has the parameter's type, which is not `void`.
//!
//! Layout
//! - L1. There is an entry block (the layout has at least one block).
//! - L2. Every block in the layout exists in the DFG and appears once.
//! - L3. Every instruction in a block exists in the DFG, appears once in the
//!   whole layout, and the layout's instruction-to-block map names that block.
//! - L4. Every instruction the layout maps to a block is in that block's list,
//!   and that block is in the layout.
//!
//! Blocks and control flow
//! - B1. Every block is non-empty and ends with a terminator.
//! - B2. No terminator appears before the last instruction.
//! - B3. Every successor of a terminator exists and is in the layout.
//! - B4. The entry block has no predecessors.
//! - B5. Phis come first in their block (no phi after a non-phi).
//! - B6. A phi has exactly one incoming entry per predecessor of its block and
//!   no entry from a block that is not a predecessor.
//! - B7. Switch case values are distinct and fit in the switch type.
//! - B8. Exception handling: a `landingpad` is the first non-phi instruction
//!   of its block, and every edge into that block is the unwind edge of an
//!   `invoke`; the unwind destination of every `invoke` begins (after its
//!   phis) with a `landingpad` and differs from the normal destination. A
//!   function with `landingpad` or `resume` has a personality; all its
//!   landing pads and `resume` operands have one type.
//!
//! Values and SSA
//! - V1. Every operand value exists.
//! - V2. An operand that is an instruction result names an existing
//!   instruction that records it as its result and is in the layout.
//! - V3. An operand that is a parameter is a parameter of this function.
//! - V4. Constants match their type (integers on integer types, floats on
//!   float types, `null` on pointers, aggregates with as many existing
//!   constant elements as the type has lanes, elements or fields).
//! - V5. An instruction has a result value iff it produces one (the result is
//!   recorded as defined by the instruction), with the type given by T-rules.
//! - V6. SSA dominance: the definition of every operand dominates the use;
//!   within a block the definition comes first. A phi uses its incoming value
//!   at the end of the incoming block, so the definition must dominate that
//!   block. Uses in blocks unreachable from the entry (and phi entries from
//!   unreachable blocks) are exempt. The result of an `invoke` exists on its
//!   normal edge only: a use must be dominated by that edge (the normal
//!   destination dominates the using block, and every other reachable
//!   predecessor of the normal destination is dominated by it); a phi may
//!   take it straight from the invoke's block only in the normal destination
//!   (never in the unwind destination).
//!
//! Types (`<N x T>` is a vector of N lanes; "int-like" means an integer or a
//! vector of integers, likewise for float-like, pointer-like)
//! - T1. Binary: both operands have the same type, int-like for integer
//!   operations and float-like for `fadd` and the like; result of that type.
//! - T2. `fneg`: float-like operand; result of that type.
//! - T3. `icmp`: equal int-like or pointer-like operand types; `fcmp`: equal
//!   float-like types; result `i1`, or `<N x i1>` for N-lane operands.
//! - T4. `select`: the condition is `i1`, or `<N x i1>` for N-lane values;
//!   both values have the same type, which is the result type.
//! - T5. Casts: the result has the target type; the operand and target kinds
//!   fit the cast (`trunc` to a narrower integer, `zext`/`sext` to a wider
//!   one, `fptrunc`/`fpext` likewise for floats, float/int conversions,
//!   `ptrtoint`, `inttoptr`, `addrspacecast` between different address
//!   spaces) with the same lane count; `bitcast` keeps the total bit size and
//!   casts pointers only to pointers of the same address space.
//! - T6. Phi: every incoming value has the phi's type, which is the result type.
//! - T7. `load`/`store`: the address is a (scalar) pointer, the value type is
//!   not `void`; alignments are 0 (unknown) or powers of two (also T10–T12).
//! - T8. `getelementptr`: the base is a pointer or a vector of pointers,
//!   indices are int-like, all vector operands have the same lane count, the
//!   indices after the first step into arrays, vectors or structs (struct
//!   indices are integer constants in range); the result is a pointer in the
//!   base's address space, or `<N x ptr>` if any operand is a vector.
//! - T9. `alloca`: the count is an integer, the result a pointer.
//! - T10. `extractvalue`/`insertvalue`: the operand is an array or struct,
//!   the indices are non-empty and in range; the result (extract) or inserted
//!   value (insert) has the indexed type.
//! - T11. `extractelement`/`insertelement`: the operand is a vector, the index
//!   an integer, the element has the vector's element type.
//! - T12. `shufflevector`: both operands have the same vector type, the mask
//!   is non-empty with elements -1 or below twice the lane count, and the
//!   result is `<mask length x element>`.
//! - T13. `freeze`: result of the operand's type.
//! - T14. Calls and invokes: an indirect callee is a pointer, arguments are
//!   not `void`, the result type is the call's `ret_ty` (no result for `void`).
//! - T15. `splat`: a scalar operand, at least one lane, result `<lanes x scalar>`.
//! - T16. Masked load/store, gather, scatter: the data type is a vector
//!   `<N x T>`, the mask is `<N x i1>`, the address is a scalar pointer
//!   (masked) or `<N x ptr>` (gather/scatter), the pass-through value has the
//!   data type, the result is the data type (loads).
//! - T17. Terminators: a branch condition is `i1`, a switch value an integer,
//!   a return value has the function's return type (none for `void`), a
//!   `resume` operand is not `void`.
//! - T18. `landingpad`: a non-`void` result of its type, `cleanup` or at
//!   least one clause; a `catch` clause holds a constant pointer, a `filter`
//!   clause a constant array.

use std::collections::HashSet;

use cranelift_entity::SecondaryMap;

use crate::cfg::ControlFlowGraph;
use crate::dfg::{Constant, ValueDef};
use crate::dominators::DominatorTree;
use crate::entities::{Block, Inst, Value};
use crate::function::Function;
use crate::instructions::{AtomicRmwOp, Callee, CastOp, InstData, LandingPadClause};
use crate::printer::display_inst;
use crate::types::Type;

/// One broken invariant, naming where it was found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{location}: {message}")]
pub struct VerifierError {
    /// Function, block and instruction, readable: `@f, block3 (join), inst7 (v5 = add i32 v1, v2)`.
    pub location: String,
    pub message: String,
    /// The block the error is in, if it is about a block or an instruction in one.
    pub block: Option<Block>,
    /// The instruction the error is about, if any.
    pub inst: Option<Inst>,
}

/// All errors found in one function.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("IR verification failed:\n{}", .0.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n"))]
pub struct VerifierErrors(pub Vec<VerifierError>);

impl VerifierErrors {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn iter(&self) -> std::slice::Iter<'_, VerifierError> {
        self.0.iter()
    }

    /// Whether some error's message contains `text` (for tests and tools).
    pub fn mentions(&self, text: &str) -> bool {
        self.0.iter().any(|error| error.message.contains(text))
    }
}

/// Checks every invariant of the module-level checklist and returns all
/// errors found.
pub fn verify_function(func: &Function) -> Result<(), VerifierErrors> {
    let mut verifier = Verifier::new(func);
    verifier.run();
    if verifier.errors.is_empty() {
        Ok(())
    } else {
        Err(VerifierErrors(verifier.errors))
    }
}

/// What an instruction's result must be, as derived by the type rules.
enum ExpectedResult {
    /// The instruction produces no value.
    Nothing,
    /// A value of this type.
    Value(Type),
    /// Unknown because the operands are already broken (reported elsewhere).
    Unknown,
}

struct Verifier<'f> {
    func: &'f Function,
    errors: Vec<VerifierError>,
    /// Position of each instruction in its block (valid for laid-out instructions).
    inst_position: SecondaryMap<Inst, u32>,
    /// Instructions found in the layout's block lists.
    inst_laid_out: SecondaryMap<Inst, bool>,
    /// Instructions whose per-instruction rules have run.
    inst_checked: SecondaryMap<Inst, bool>,
}

impl<'f> Verifier<'f> {
    fn new(func: &'f Function) -> Self {
        Verifier {
            func,
            errors: Vec::new(),
            inst_position: SecondaryMap::new(),
            inst_laid_out: SecondaryMap::new(),
            inst_checked: SecondaryMap::new(),
        }
    }

    fn run(&mut self) {
        self.check_signature();
        if self.func.layout.blocks().is_empty() {
            self.report_function("function has no entry block (the layout is empty)".to_owned());
            return;
        }
        self.check_layout();
        self.check_block_structure();
        let cfg = ControlFlowGraph::compute(self.func);
        let domtree = DominatorTree::compute(self.func, &cfg);
        self.check_entry(&cfg);
        self.check_exception_handling(&cfg);
        for &block in self.func.layout.blocks() {
            for &inst in self.func.layout.block_insts(block) {
                let Some(data) = self.func.dfg.insts.get(inst) else { continue };
                if std::mem::replace(&mut self.inst_checked[inst], true) {
                    continue; // Listed twice in the layout (reported already).
                }
                let result_recorded = self.check_result_record(block, inst);
                if let InstData::Phi { incoming, .. } = data {
                    self.check_phi_incoming_blocks(&cfg, block, inst, incoming);
                }
                if !self.check_operands_exist(block, inst, data) {
                    continue; // Type and dominance rules need existing operands.
                }
                self.check_types(block, inst, data, result_recorded);
                for problem in self.dominance_problems(&cfg, &domtree, block, inst, data) {
                    self.report_inst(block, inst, problem);
                }
            }
        }
    }

    // ---- Reporting ----

    fn function_location(&self) -> String {
        format!("@{}", self.func.name)
    }

    fn block_location(&self, block: Block) -> String {
        match self.func.dfg.blocks.get(block).and_then(|data| data.name.as_ref()) {
            Some(name) => format!("{}, {block} ({name})", self.function_location()),
            None => format!("{}, {block}", self.function_location()),
        }
    }

    fn report_function(&mut self, message: String) {
        let location = self.function_location();
        self.errors.push(VerifierError { location, message, block: None, inst: None });
    }

    fn report_block(&mut self, block: Block, message: String) {
        let location = self.block_location(block);
        self.errors.push(VerifierError { location, message, block: Some(block), inst: None });
    }

    fn report_inst(&mut self, block: Block, inst: Inst, message: String) {
        let location =
            format!("{}, {inst} ({})", self.block_location(block), display_inst(self.func, inst));
        self.errors.push(VerifierError { location, message, block: Some(block), inst: Some(inst) });
    }

    /// The type of a value known to exist (`void` otherwise, never a panic).
    fn ty(&self, value: Value) -> &'f Type {
        match self.func.dfg.values.get(value) {
            Some(data) => &data.ty,
            None => &Type::Void,
        }
    }

    // ---- S1 ----

    fn check_signature(&mut self) {
        for (index, param) in self.func.params.iter().enumerate() {
            let value = param.value;
            match self.func.dfg.values.get(value) {
                None => {
                    self.report_function(format!("parameter {index}: value {value} does not exist"))
                }
                Some(data) => {
                    if data.def != ValueDef::Param(index as u32) {
                        self.report_function(format!(
                            "parameter {index}: value {value} is not defined as parameter {index}"
                        ));
                    }
                    if data.ty != param.ty {
                        self.report_function(format!(
                            "parameter {index}: value {value} has type {}, the signature says {}",
                            data.ty, param.ty
                        ));
                    }
                }
            }
            if param.ty == Type::Void {
                self.report_function(format!("parameter {index} has type void"));
            }
        }
    }

    // ---- L2-L4 ----

    fn check_layout(&mut self) {
        let func = self.func;
        let mut seen_blocks = HashSet::new();
        for &block in func.layout.blocks() {
            if func.dfg.blocks.get(block).is_none() {
                self.report_block(block, format!("{block} is in the layout but does not exist"));
            }
            if !seen_blocks.insert(block) {
                self.report_block(block, format!("{block} appears twice in the layout"));
                continue;
            }
            for (position, &inst) in func.layout.block_insts(block).iter().enumerate() {
                if func.dfg.insts.get(inst).is_none() {
                    self.report_inst(block, inst, format!("{inst} does not exist"));
                    continue;
                }
                if self.inst_laid_out[inst] {
                    self.report_inst(block, inst, format!("{inst} appears twice in the layout"));
                    continue;
                }
                self.inst_laid_out[inst] = true;
                self.inst_position[inst] = position as u32;
                let mapped = func.layout.inst_block(inst);
                if mapped != Some(block) {
                    let mapped = mapped.map_or("no block".to_owned(), |other| other.to_string());
                    self.report_inst(
                        block,
                        inst,
                        format!("layout maps {inst} to {mapped}, but it is in {block}"),
                    );
                }
            }
        }
        for inst in func.dfg.insts.keys() {
            if let Some(block) = func.layout.inst_block(inst) {
                if !self.inst_laid_out[inst] || !seen_blocks.contains(&block) {
                    self.report_function(format!(
                        "layout maps {inst} to {block}, but {block} does not hold it in the layout"
                    ));
                }
            }
        }
    }

    // ---- B1-B3, B5 ----

    fn check_block_structure(&mut self) {
        let func = self.func;
        for &block in func.layout.blocks() {
            let insts = func.layout.block_insts(block);
            if insts.is_empty() {
                self.report_block(block, format!("{block} is empty (it needs a terminator)"));
                continue;
            }
            let mut seen_non_phi = false;
            for (position, &inst) in insts.iter().enumerate() {
                let Some(data) = func.dfg.insts.get(inst) else { continue };
                let is_last = position + 1 == insts.len();
                if data.is_terminator() && !is_last {
                    self.report_inst(
                        block,
                        inst,
                        format!("terminator in the middle of {block} (it must be last)"),
                    );
                }
                if is_last && !data.is_terminator() {
                    self.report_inst(
                        block,
                        inst,
                        format!("{block} does not end with a terminator"),
                    );
                }
                if matches!(data, InstData::Phi { .. }) {
                    if seen_non_phi {
                        self.report_inst(
                            block,
                            inst,
                            "phi after a non-phi instruction (phis must come first)".to_owned(),
                        );
                    }
                } else {
                    seen_non_phi = true;
                }
                if data.is_terminator() {
                    for successor in data.successors() {
                        if func.dfg.blocks.get(successor).is_none() {
                            self.report_inst(
                                block,
                                inst,
                                format!("branch to {successor}, which does not exist"),
                            );
                        } else if !func.layout.is_block_inserted(successor) {
                            self.report_inst(
                                block,
                                inst,
                                format!("branch to {successor}, which is not in the layout"),
                            );
                        }
                    }
                }
            }
        }
    }

    // ---- B4 ----

    fn check_entry(&mut self, cfg: &ControlFlowGraph) {
        let Some(entry) = cfg.entry_block() else { return };
        let preds = cfg.preds(entry);
        if !preds.is_empty() {
            let names: Vec<String> = preds.iter().map(Block::to_string).collect();
            self.report_block(
                entry,
                format!("the entry block has predecessors: {}", names.join(", ")),
            );
        }
    }

    // ---- B8 ----

    fn check_exception_handling(&mut self, cfg: &ControlFlowGraph) {
        let func = self.func;
        // The first non-phi instruction of a block, if it exists.
        let first_non_phi = |block: Block| -> Option<&InstData> {
            func.layout
                .block_insts(block)
                .iter()
                .filter_map(|inst| func.dfg.insts.get(*inst))
                .find(|data| !matches!(data, InstData::Phi { .. }))
        };
        let mut pad_type: Option<&Type> = None;
        let mut needs_personality = false;
        for &block in func.layout.blocks() {
            for (position, &inst) in func.layout.block_insts(block).iter().enumerate() {
                let Some(data) = func.dfg.insts.get(inst) else { continue };
                match data {
                    InstData::LandingPad { ty, .. } => {
                        needs_personality = true;
                        let leads = func.layout.block_insts(block)[..position].iter().all(|inst| {
                            matches!(func.dfg.insts.get(*inst), Some(InstData::Phi { .. }))
                        });
                        if !leads {
                            self.report_inst(
                                block,
                                inst,
                                "landingpad must be the first non-phi instruction of its block"
                                    .to_owned(),
                            );
                        }
                        for &pred in cfg.preds(block) {
                            let unwinds_here = func.terminator(pred).is_some_and(|term| {
                                matches!(
                                    func.dfg.inst(term),
                                    InstData::Invoke { normal_dest, unwind_dest, .. }
                                        if *unwind_dest == block && *normal_dest != block
                                )
                            });
                            if !unwinds_here {
                                self.report_inst(
                                    block,
                                    inst,
                                    format!(
                                        "{pred} enters this landing pad's block other than by the unwind edge of an invoke"
                                    ),
                                );
                            }
                        }
                        match pad_type {
                            Some(first) if first != ty => self.report_inst(
                                block,
                                inst,
                                format!("landingpad of type {ty}, another one has type {first}"),
                            ),
                            None => pad_type = Some(ty),
                            _ => {}
                        }
                    }
                    InstData::Resume { .. } => needs_personality = true,
                    InstData::Invoke { normal_dest, unwind_dest, .. } => {
                        if normal_dest == unwind_dest {
                            self.report_inst(
                                block,
                                inst,
                                "invoke has the same normal and unwind destination".to_owned(),
                            );
                        } else if func.layout.is_block_inserted(*unwind_dest)
                            && !matches!(
                                first_non_phi(*unwind_dest),
                                Some(InstData::LandingPad { .. })
                            )
                        {
                            self.report_inst(
                                block,
                                inst,
                                format!(
                                    "the unwind destination {unwind_dest} does not begin with a landingpad"
                                ),
                            );
                        }
                    }
                    _ => {}
                }
            }
        }
        for &block in func.layout.blocks() {
            for &inst in func.layout.block_insts(block) {
                let Some(InstData::Resume { value }) = func.dfg.insts.get(inst) else { continue };
                let value_ty = self.ty(*value);
                if let Some(pad_ty) = pad_type {
                    if value_ty != pad_ty {
                        self.report_inst(
                            block,
                            inst,
                            format!("resume of a {value_ty}, the landing pads have type {pad_ty}"),
                        );
                    }
                }
            }
        }
        if needs_personality && func.personality.is_none() {
            self.report_function(
                "the function has landingpad or resume but no personality function".to_owned(),
            );
        }
    }

    // ---- V1-V4 ----

    /// Checks that every operand exists and is well defined; returns whether
    /// all of them exist (the later rules need that).
    fn check_operands_exist(&mut self, block: Block, inst: Inst, data: &InstData) -> bool {
        let func = self.func;
        let mut all_exist = true;
        for value in data.operands() {
            let Some(value_data) = func.dfg.values.get(value) else {
                self.report_inst(block, inst, format!("operand {value} does not exist"));
                all_exist = false;
                continue;
            };
            match &value_data.def {
                ValueDef::Result(def_inst) => {
                    let def_inst = *def_inst;
                    if func.dfg.insts.get(def_inst).is_none() {
                        self.report_inst(
                            block,
                            inst,
                            format!(
                                "operand {value} is the result of {def_inst}, which does not exist"
                            ),
                        );
                        all_exist = false;
                    } else if func.dfg.results[def_inst] != Some(value) {
                        self.report_inst(
                            block,
                            inst,
                            format!("operand {value} claims to be the result of {def_inst}, which does not define it"),
                        );
                    } else if !self.inst_laid_out[def_inst] {
                        self.report_inst(
                            block,
                            inst,
                            format!("operand {value} is defined by {def_inst}, which is not in the layout"),
                        );
                    }
                }
                ValueDef::Param(index) => {
                    let is_our_param =
                        func.params.get(*index as usize).is_some_and(|param| param.value == value);
                    if !is_our_param {
                        self.report_inst(
                            block,
                            inst,
                            format!("operand {value} is not a parameter of this function"),
                        );
                    }
                }
                ValueDef::Const(constant) => {
                    if let Some(problem) = self.constant_problem(value, constant, &value_data.ty, 0)
                    {
                        self.report_inst(block, inst, format!("operand {value}: {problem}"));
                    }
                }
            }
        }
        all_exist
    }

    /// What is wrong with a constant of type `ty`, if anything (V4).
    fn constant_problem(
        &self,
        value: Value,
        constant: &Constant,
        ty: &Type,
        depth: u32,
    ) -> Option<String> {
        const MAX_DEPTH: u32 = 16;
        let scalar = ty.scalar_type();
        let first_class = ty.is_scalar() || ty.is_vector();
        match constant {
            Constant::Int(_) if !(first_class && scalar.is_int()) => {
                Some(format!("integer constant of type {ty}"))
            }
            Constant::Float(_) if !(first_class && scalar.is_float()) => {
                Some(format!("float constant of type {ty}"))
            }
            Constant::Null if !(first_class && scalar.is_ptr()) => {
                Some(format!("null constant of type {ty}"))
            }
            Constant::Symbol(_) if !ty.is_ptr() => Some(format!("symbol constant of type {ty}")),
            Constant::Undef | Constant::Poison | Constant::Zero if *ty == Type::Void => {
                Some("constant of type void".to_owned())
            }
            Constant::Aggregate(elements) => {
                if depth >= MAX_DEPTH {
                    return Some(format!("aggregate constant {value} nests too deeply"));
                }
                // Compare counts before looking at elements: a garbage type may
                // claim billions of lanes.
                let expected_count = match ty {
                    Type::Vector { lanes, .. } => u64::from(*lanes),
                    Type::Array { len, .. } => *len,
                    Type::Struct { fields, .. } => fields.len() as u64,
                    _ => return Some(format!("aggregate constant of type {ty}")),
                };
                if expected_count != elements.len() as u64 {
                    return Some(format!(
                        "aggregate constant of type {ty} has {} elements",
                        elements.len()
                    ));
                }
                let element_type = |position: usize| match ty {
                    Type::Vector { elem, .. } | Type::Array { elem, .. } => &**elem,
                    Type::Struct { fields, .. } => &fields[position],
                    _ => ty,
                };
                for (position, &element) in elements.iter().enumerate() {
                    let element_ty = element_type(position);
                    let Some(element_data) = self.func.dfg.values.get(element) else {
                        return Some(format!("aggregate element {element} does not exist"));
                    };
                    let ValueDef::Const(element_constant) = &element_data.def else {
                        return Some(format!("aggregate element {element} is not a constant"));
                    };
                    if element_data.ty != *element_ty {
                        return Some(format!(
                            "aggregate element {element} has type {}, expected {element_ty}",
                            element_data.ty
                        ));
                    }
                    if let Some(problem) =
                        self.constant_problem(element, element_constant, element_ty, depth + 1)
                    {
                        return Some(problem);
                    }
                }
                None
            }
            _ => None,
        }
    }

    // ---- B6 ----

    fn check_phi_incoming_blocks(
        &mut self,
        cfg: &ControlFlowGraph,
        block: Block,
        inst: Inst,
        incoming: &[(Block, Value)],
    ) {
        let preds = cfg.preds(block);
        let mut seen = Vec::with_capacity(incoming.len());
        for &(from, _) in incoming {
            if seen.contains(&from) {
                self.report_inst(block, inst, format!("phi has two incoming entries from {from}"));
                continue;
            }
            seen.push(from);
            if !preds.contains(&from) {
                self.report_inst(
                    block,
                    inst,
                    format!("phi has an incoming entry from {from}, which is not a predecessor"),
                );
            }
        }
        for &pred in preds {
            if !seen.contains(&pred) {
                self.report_inst(
                    block,
                    inst,
                    format!("phi has no incoming value from predecessor {pred}"),
                );
            }
        }
    }

    // ---- V6 ----

    /// V6: the SSA dominance problems of the operands of `inst`.
    fn dominance_problems(
        &self,
        cfg: &ControlFlowGraph,
        domtree: &DominatorTree,
        block: Block,
        inst: Inst,
        data: &InstData,
    ) -> Vec<String> {
        let func = self.func;
        let mut problems = Vec::new();
        // The defining instruction and its block, for an operand defined by a
        // laid-out instruction (other operands need no dominance check).
        let definition = |value: Value| -> Option<(Inst, Block)> {
            let def_inst = func.dfg.defining_inst(value)?;
            func.dfg.insts.get(def_inst)?;
            if !self.inst_laid_out[def_inst] {
                return None;
            }
            Some((def_inst, func.layout.inst_block(def_inst)?))
        };
        // The normal destination of an operand defined by an invoke.
        let invoke_normal_dest = |def_inst: Inst| match func.dfg.inst(def_inst) {
            InstData::Invoke { normal_dest, .. } => Some(*normal_dest),
            _ => None,
        };
        if let InstData::Phi { incoming, .. } = data {
            for &(from, value) in incoming {
                if !domtree.is_reachable(from) {
                    continue;
                }
                let Some((def_inst, def_block)) = definition(value) else { continue };
                if let Some(normal_dest) = invoke_normal_dest(def_inst) {
                    let on_normal_edge = from == def_block && block == normal_dest;
                    if !on_normal_edge
                        && (from == def_block
                            || !normal_edge_dominates(cfg, domtree, def_block, normal_dest, from))
                    {
                        problems.push(format!(
                            "{value}, the result of the invoke in {def_block}, is not available at the end of incoming block {from} (it exists on the normal edge to {normal_dest} only)"
                        ));
                    }
                    continue;
                }
                if !domtree.dominates(def_block, from) {
                    problems.push(format!(
                        "the definition of {value} (in {def_block}) does not dominate the end of incoming block {from}"
                    ));
                }
            }
            return problems;
        }
        if !domtree.is_reachable(block) {
            return problems;
        }
        for value in data.operands() {
            let Some((def_inst, def_block)) = definition(value) else { continue };
            if let Some(normal_dest) = invoke_normal_dest(def_inst) {
                if def_block == block
                    || !normal_edge_dominates(cfg, domtree, def_block, normal_dest, block)
                {
                    problems.push(if def_inst == inst {
                        format!("{value} is used by its own definition")
                    } else {
                        format!(
                            "{value}, the result of the invoke in {def_block}, is used where the normal edge to {normal_dest} does not dominate"
                        )
                    });
                }
                continue;
            }
            let dominates = if def_block == block {
                self.inst_position[def_inst] < self.inst_position[inst]
            } else {
                domtree.strictly_dominates(def_block, block)
            };
            if !dominates {
                problems.push(if def_inst == inst {
                    format!("{value} is used by its own definition")
                } else if def_block == block {
                    format!("{value} is used before its definition {def_inst}")
                } else {
                    format!("the definition of {value} (in {def_block}) does not dominate this use")
                });
            }
        }
        problems
    }

    // ---- V5, T1-T17 ----

    /// V5, first half: a recorded result value exists and is recorded as
    /// defined by `inst`. Returns whether the record is sound.
    fn check_result_record(&mut self, block: Block, inst: Inst) -> bool {
        let Some(value) = self.func.dfg.results[inst] else { return true };
        match self.func.dfg.values.get(value) {
            None => {
                self.report_inst(block, inst, format!("result {value} does not exist"));
                false
            }
            Some(result_data) if result_data.def != ValueDef::Result(inst) => {
                self.report_inst(
                    block,
                    inst,
                    format!("result {value} is not recorded as defined by {inst}"),
                );
                false
            }
            Some(_) => true,
        }
    }

    /// T-rules, and V5's second half: the result is what the rules say.
    fn check_types(&mut self, block: Block, inst: Inst, data: &InstData, result_recorded: bool) {
        let mut problems = Vec::new();
        let expected = self.type_rules(data, &mut problems);
        for problem in problems {
            self.report_inst(block, inst, problem);
        }
        if !result_recorded {
            return;
        }
        let result = self.func.dfg.results[inst];
        match (expected, result) {
            (ExpectedResult::Nothing, Some(value)) => self.report_inst(
                block,
                inst,
                format!("instruction has a result ({value}) but produces no value"),
            ),
            (ExpectedResult::Value(ty), None) => self.report_inst(
                block,
                inst,
                format!("instruction produces a {ty} but has no result value"),
            ),
            (ExpectedResult::Value(ty), Some(value)) => {
                let actual = self.ty(value);
                if *actual != ty {
                    self.report_inst(
                        block,
                        inst,
                        format!("result {value} has type {actual}, expected {ty}"),
                    );
                }
            }
            _ => {}
        }
    }

    /// Applies the type rules of `data`, pushing what is wrong to `problems`,
    /// and returns what its result must be.
    fn type_rules(&self, data: &InstData, problems: &mut Vec<String>) -> ExpectedResult {
        use ExpectedResult::{Nothing, Unknown};
        let value_result = |ty: &Type| ExpectedResult::Value(ty.clone());
        if let Some(align) = alignment(data) {
            if align != 0 && !align.is_power_of_two() {
                problems.push(format!("alignment {align} is not a power of two"));
            }
        }
        match data {
            InstData::Binary { op, lhs, rhs, .. } => {
                let (lhs_ty, rhs_ty) = (self.ty(*lhs), self.ty(*rhs));
                let mut problems_here = Vec::new();
                if lhs_ty != rhs_ty {
                    problems_here.push(format!("operand types differ: {lhs_ty} and {rhs_ty}"));
                }
                if op.is_float() && !is_float_like(lhs_ty) {
                    problems_here.push(format!(
                        "{} needs floating-point operands (or vectors of them), got {lhs_ty}",
                        op.name()
                    ));
                }
                if !op.is_float() && !is_int_like(lhs_ty) {
                    problems_here.push(format!(
                        "{} needs integer operands (or vectors of them), got {lhs_ty}",
                        op.name()
                    ));
                }
                problems.extend(problems_here);
                value_result(lhs_ty)
            }
            InstData::Unary { arg, .. } => {
                let ty = self.ty(*arg);
                if !is_float_like(ty) {
                    problems.push(format!("fneg needs a floating-point operand, got {ty}"));
                }
                value_result(ty)
            }
            InstData::Icmp { lhs, rhs, .. } => {
                let (lhs_ty, rhs_ty) = (self.ty(*lhs), self.ty(*rhs));
                if lhs_ty != rhs_ty {
                    problems.push(format!("operand types differ: {lhs_ty} and {rhs_ty}"));
                }
                if !is_int_like(lhs_ty) && !is_ptr_like(lhs_ty) {
                    problems.push(format!(
                        "icmp needs integer or pointer operands (or vectors of them), got {lhs_ty}"
                    ));
                }
                ExpectedResult::Value(bool_like(lhs_ty))
            }
            InstData::Fcmp { lhs, rhs, .. } => {
                let (lhs_ty, rhs_ty) = (self.ty(*lhs), self.ty(*rhs));
                if lhs_ty != rhs_ty {
                    problems.push(format!("operand types differ: {lhs_ty} and {rhs_ty}"));
                }
                if !is_float_like(lhs_ty) {
                    problems.push(format!(
                        "fcmp needs floating-point operands (or vectors of them), got {lhs_ty}"
                    ));
                }
                ExpectedResult::Value(bool_like(lhs_ty))
            }
            InstData::Select { cond, if_true, if_false, .. } => {
                let (cond_ty, true_ty, false_ty) =
                    (self.ty(*cond), self.ty(*if_true), self.ty(*if_false));
                if true_ty != false_ty {
                    problems
                        .push(format!("select values differ in type: {true_ty} and {false_ty}"));
                }
                let cond_ok = *cond_ty == Type::BOOL
                    || (cond_ty.is_vector()
                        && *cond_ty.scalar_type() == Type::BOOL
                        && cond_ty.lanes() == true_ty.lanes());
                if !cond_ok {
                    problems.push(format!(
                        "select condition must be i1 or <N x i1> matching the {true_ty} values, got {cond_ty}"
                    ));
                }
                if *true_ty == Type::Void {
                    problems.push("select of void values".to_owned());
                }
                value_result(true_ty)
            }
            InstData::Cast { op, arg, to, .. } => {
                if let Some(problem) = cast_problem(*op, self.ty(*arg), to) {
                    problems.push(problem);
                }
                value_result(to)
            }
            InstData::Phi { ty, incoming } => {
                for &(from, value) in incoming {
                    let value_ty = self.ty(value);
                    if value_ty != ty {
                        problems.push(format!(
                            "phi of type {ty} has incoming {value} of type {value_ty} from {from}"
                        ));
                    }
                }
                if *ty == Type::Void {
                    problems.push("phi of type void".to_owned());
                }
                value_result(ty)
            }
            InstData::Load { ty, addr, .. } => {
                self.expect_scalar_pointer("load address", *addr, problems);
                if *ty == Type::Void {
                    problems.push("load of type void".to_owned());
                }
                value_result(ty)
            }
            InstData::Store { value, addr, .. } => {
                self.expect_scalar_pointer("store address", *addr, problems);
                if *self.ty(*value) == Type::Void {
                    problems.push("store of a void value".to_owned());
                }
                Nothing
            }
            InstData::Gep { source_ty, base, indices, .. } => {
                self.gep_rules(source_ty, *base, indices, problems)
            }
            InstData::Alloca { ty, count, .. } => {
                let count_ty = self.ty(*count);
                if !count_ty.is_int() {
                    problems.push(format!("alloca count must be an integer, got {count_ty}"));
                }
                if *ty == Type::Void {
                    problems.push("alloca of type void".to_owned());
                }
                ExpectedResult::Value(Type::PTR)
            }
            InstData::ExtractValue { aggregate, indices } => {
                match aggregate_member(self.ty(*aggregate), indices) {
                    Ok(member) => value_result(member),
                    Err(problem) => {
                        problems.push(format!("extractvalue: {problem}"));
                        Unknown
                    }
                }
            }
            InstData::InsertValue { aggregate, value, indices } => {
                let aggregate_ty = self.ty(*aggregate);
                match aggregate_member(aggregate_ty, indices) {
                    Ok(member) => {
                        let value_ty = self.ty(*value);
                        if value_ty != member {
                            problems.push(format!(
                                "insertvalue of a {value_ty} into a {member} member"
                            ));
                        }
                    }
                    Err(problem) => problems.push(format!("insertvalue: {problem}")),
                }
                value_result(aggregate_ty)
            }
            InstData::ExtractElement { vector, index } => {
                let vector_ty = self.ty(*vector);
                self.expect_int_index("extractelement", *index, problems);
                match vector_ty {
                    Type::Vector { elem, .. } => value_result(elem),
                    _ => {
                        problems.push(format!("extractelement from a non-vector {vector_ty}"));
                        Unknown
                    }
                }
            }
            InstData::InsertElement { vector, value, index } => {
                let vector_ty = self.ty(*vector);
                self.expect_int_index("insertelement", *index, problems);
                match vector_ty {
                    Type::Vector { elem, .. } => {
                        let value_ty = self.ty(*value);
                        if value_ty != &**elem {
                            problems
                                .push(format!("insertelement of a {value_ty} into a {vector_ty}"));
                        }
                    }
                    _ => problems.push(format!("insertelement into a non-vector {vector_ty}")),
                }
                value_result(vector_ty)
            }
            InstData::Shuffle { lhs, rhs, mask } => {
                let (lhs_ty, rhs_ty) = (self.ty(*lhs), self.ty(*rhs));
                if lhs_ty != rhs_ty {
                    problems
                        .push(format!("shufflevector operand types differ: {lhs_ty} and {rhs_ty}"));
                }
                let Type::Vector { elem, lanes } = lhs_ty else {
                    problems.push(format!("shufflevector of a non-vector {lhs_ty}"));
                    return Unknown;
                };
                if mask.is_empty() {
                    problems.push("shufflevector mask is empty".to_owned());
                    return Unknown;
                }
                let source_lanes = i64::from(*lanes) * 2;
                for (position, &lane) in mask.iter().enumerate() {
                    if lane < -1 || i64::from(lane) >= source_lanes {
                        problems.push(format!(
                            "shufflevector mask element {position} is {lane}, outside -1..{source_lanes}"
                        ));
                    }
                }
                ExpectedResult::Value(Type::Vector { elem: elem.clone(), lanes: mask.len() as u32 })
            }
            InstData::Freeze { arg } => {
                let ty = self.ty(*arg);
                if *ty == Type::Void {
                    problems.push("freeze of a void value".to_owned());
                }
                value_result(ty)
            }
            InstData::Call { callee, args, ret_ty, .. }
            | InstData::Invoke { callee, args, ret_ty, .. } => {
                if let Callee::Indirect(pointer) = callee {
                    self.expect_scalar_pointer("indirect callee", *pointer, problems);
                }
                for (position, &arg) in args.iter().enumerate() {
                    if *self.ty(arg) == Type::Void {
                        problems.push(format!("call argument {position} ({arg}) is void"));
                    }
                }
                if *ret_ty == Type::Void {
                    Nothing
                } else {
                    value_result(ret_ty)
                }
            }
            InstData::Splat { scalar, lanes } => {
                let scalar_ty = self.ty(*scalar);
                if !scalar_ty.is_scalar() {
                    problems.push(format!("splat of a non-scalar {scalar_ty}"));
                    return Unknown;
                }
                if *lanes == 0 {
                    problems.push("splat to zero lanes".to_owned());
                }
                ExpectedResult::Value(Type::Vector {
                    elem: Box::new(scalar_ty.clone()),
                    lanes: *lanes,
                })
            }
            InstData::MaskedLoad { ty, addr, mask, passthru, .. } => {
                self.expect_scalar_pointer("masked_load address", *addr, problems);
                self.masked_data_rules("masked_load", ty, *mask, problems);
                let passthru_ty = self.ty(*passthru);
                if passthru_ty != ty {
                    problems
                        .push(format!("masked_load pass-through is {passthru_ty}, expected {ty}"));
                }
                value_result(ty)
            }
            InstData::SpeculativeLoad { ty, addr } => {
                self.expect_scalar_pointer("speculative_load address", *addr, problems);
                if !ty.fills_one_vector_register() {
                    problems.push(format!(
                        "speculative_load of {ty}, which does not fill one vector register"
                    ));
                }
                value_result(ty)
            }
            InstData::MaskedStore { value, addr, mask, .. } => {
                self.expect_scalar_pointer("masked_store address", *addr, problems);
                self.masked_data_rules("masked_store", self.ty(*value), *mask, problems);
                Nothing
            }
            InstData::Gather { ty, addrs, mask, passthru, .. } => {
                self.masked_data_rules("gather", ty, *mask, problems);
                self.expect_pointer_vector("gather", *addrs, ty.lanes(), problems);
                let passthru_ty = self.ty(*passthru);
                if passthru_ty != ty {
                    problems.push(format!("gather pass-through is {passthru_ty}, expected {ty}"));
                }
                value_result(ty)
            }
            InstData::Scatter { value, addrs, mask, .. } => {
                let value_ty = self.ty(*value);
                self.masked_data_rules("scatter", value_ty, *mask, problems);
                self.expect_pointer_vector("scatter", *addrs, value_ty.lanes(), problems);
                Nothing
            }
            InstData::AtomicRmw { op, addr, value, .. } => {
                self.expect_scalar_pointer("atomicrmw address", *addr, problems);
                let ty = self.ty(*value);
                let fits = match op {
                    AtomicRmwOp::Xchg => ty.is_int() || ty.is_float() || ty.is_ptr(),
                    op if op.is_float() => ty.is_float(),
                    _ => ty.is_int(),
                };
                if !fits {
                    problems.push(format!("atomicrmw {} of type {ty}", op.name()));
                }
                value_result(ty)
            }
            InstData::CmpXchg { addr, expected, new, .. } => {
                self.expect_scalar_pointer("cmpxchg address", *addr, problems);
                let ty = self.ty(*expected);
                if !(ty.is_int() || ty.is_ptr()) {
                    problems.push(format!("cmpxchg of type {ty}"));
                }
                if self.ty(*new) != ty {
                    problems
                        .push(format!("cmpxchg operand types differ: {ty} and {}", self.ty(*new)));
                }
                value_result(&Type::Struct { fields: vec![ty.clone(), Type::BOOL], packed: false })
            }
            InstData::LandingPad { ty, cleanup, clauses } => {
                if *ty == Type::Void {
                    problems.push("landingpad of type void".to_owned());
                }
                if !cleanup && clauses.is_empty() {
                    problems.push("landingpad without clauses must be a cleanup".to_owned());
                }
                for clause in clauses {
                    let (kind, value) = match clause {
                        LandingPadClause::Catch(value) => ("catch", *value),
                        LandingPadClause::Filter(value) => ("filter", *value),
                    };
                    let is_constant = self
                        .func
                        .dfg
                        .values
                        .get(value)
                        .is_some_and(|data| matches!(data.def, ValueDef::Const(_)));
                    let clause_ty = self.ty(value);
                    let type_fits = match clause {
                        LandingPadClause::Catch(_) => clause_ty.is_ptr(),
                        LandingPadClause::Filter(_) => matches!(clause_ty, Type::Array { .. }),
                    };
                    if !is_constant || !type_fits {
                        problems.push(format!(
                            "landingpad {kind} clause {value} must be a constant {}, got {clause_ty}",
                            if kind == "catch" { "pointer" } else { "array" }
                        ));
                    }
                }
                value_result(ty)
            }
            InstData::Resume { value } => {
                if *self.ty(*value) == Type::Void {
                    problems.push("resume of a void value".to_owned());
                }
                Nothing
            }
            InstData::Jump { .. } | InstData::Unreachable => Nothing,
            InstData::Branch { cond, .. } => {
                let cond_ty = self.ty(*cond);
                if *cond_ty != Type::BOOL {
                    problems.push(format!("branch condition must be i1, got {cond_ty}"));
                }
                Nothing
            }
            InstData::Switch { value, cases, .. } => {
                let value_ty = self.ty(*value);
                match value_ty {
                    Type::Int(bits) => {
                        let mut seen = HashSet::new();
                        for &(case, _) in cases {
                            if *bits < 128 && case >> bits != 0 {
                                problems
                                    .push(format!("switch case {case} does not fit in {value_ty}"));
                            }
                            if !seen.insert(case) {
                                problems.push(format!("switch case {case} appears twice"));
                            }
                        }
                    }
                    _ => problems.push(format!("switch on a non-integer {value_ty}")),
                }
                Nothing
            }
            InstData::Return { value } => {
                let ret_ty = &self.func.ret_ty;
                match value {
                    None if *ret_ty != Type::Void => {
                        problems.push(format!("ret void in a function returning {ret_ty}"))
                    }
                    Some(value) if *ret_ty == Type::Void => {
                        problems.push(format!("ret {value} in a function returning void"))
                    }
                    Some(value) if self.ty(*value) != ret_ty => problems.push(format!(
                        "ret of a {} in a function returning {ret_ty}",
                        self.ty(*value)
                    )),
                    _ => {}
                }
                Nothing
            }
        }
    }

    fn expect_scalar_pointer(&self, what: &str, value: Value, problems: &mut Vec<String>) {
        let ty = self.ty(value);
        if !ty.is_ptr() {
            problems.push(format!("{what} must be a pointer, got {ty}"));
        }
    }

    fn expect_int_index(&self, what: &str, index: Value, problems: &mut Vec<String>) {
        let ty = self.ty(index);
        if !ty.is_int() {
            problems.push(format!("{what} index must be an integer, got {ty}"));
        }
    }

    /// `addrs` must be `<lanes x ptr>`.
    fn expect_pointer_vector(
        &self,
        what: &str,
        addrs: Value,
        lanes: Option<u32>,
        problems: &mut Vec<String>,
    ) {
        let ty = self.ty(addrs);
        if !(ty.is_vector() && ty.scalar_type().is_ptr()) {
            problems.push(format!("{what} addresses must be a vector of pointers, got {ty}"));
        } else if lanes.is_some() && ty.lanes() != lanes {
            problems.push(format!(
                "{what} has {} addresses for {} lanes",
                ty.lanes().unwrap_or(0),
                lanes.unwrap_or(0)
            ));
        }
    }

    /// The data of a masked operation is `<N x T>` and its mask `<N x i1>`.
    fn masked_data_rules(
        &self,
        what: &str,
        data_ty: &Type,
        mask: Value,
        problems: &mut Vec<String>,
    ) {
        let Some(lanes) = data_ty.lanes() else {
            problems.push(format!("{what} data must be a vector, got {data_ty}"));
            return;
        };
        let mask_ty = self.ty(mask);
        if !(mask_ty.is_vector()
            && *mask_ty.scalar_type() == Type::BOOL
            && mask_ty.lanes() == Some(lanes))
        {
            problems.push(format!("{what} mask must be <{lanes} x i1>, got {mask_ty}"));
        }
    }

    /// T8; returns the GEP's result type.
    fn gep_rules(
        &self,
        source_ty: &Type,
        base: Value,
        indices: &[Value],
        problems: &mut Vec<String>,
    ) -> ExpectedResult {
        let base_ty = self.ty(base);
        let Type::Ptr(address_space) = base_ty.scalar_type() else {
            problems.push(format!(
                "getelementptr base must be a pointer or vector of pointers, got {base_ty}"
            ));
            return ExpectedResult::Unknown;
        };
        if base_ty.is_aggregate() {
            problems.push(format!("getelementptr base must be a pointer, got {base_ty}"));
        }
        let mut lanes = base_ty.lanes();
        for (position, &index) in indices.iter().enumerate() {
            let index_ty = self.ty(index);
            if !is_int_like(index_ty) {
                problems.push(format!(
                    "getelementptr index {position} must be an integer, got {index_ty}"
                ));
            }
            if let Some(index_lanes) = index_ty.lanes() {
                match lanes {
                    Some(existing) if existing != index_lanes => problems
                        .push(format!("getelementptr mixes {existing} and {index_lanes} lanes")),
                    _ => lanes = Some(index_lanes),
                }
            }
        }
        // Indices after the first step into the source type.
        let mut current = source_ty;
        for (position, &index) in indices.iter().enumerate().skip(1) {
            current = match current {
                Type::Array { elem, .. } | Type::Vector { elem, .. } => elem,
                Type::Struct { fields, .. } => {
                    let field = self.func.dfg.int_constant(index).and_then(|field| {
                        usize::try_from(field).ok().and_then(|field| fields.get(field))
                    });
                    match field {
                        Some(field) => field,
                        None => {
                            problems.push(format!(
                                "getelementptr index {position} into {current} must be a constant field number below {}",
                                fields.len()
                            ));
                            break;
                        }
                    }
                }
                other => {
                    problems.push(format!(
                        "getelementptr index {position} steps into {other}, which is not an array, vector or struct"
                    ));
                    break;
                }
            };
        }
        let pointer = Type::Ptr(*address_space);
        ExpectedResult::Value(match lanes {
            Some(lanes) => Type::Vector { elem: Box::new(pointer), lanes },
            None => pointer,
        })
    }
}

/// Whether the normal edge `invoke_block -> normal_dest` of an invoke
/// dominates `block` (LLVM's rule for the invoke's result): every path from
/// the entry to `block` passes through that edge, i.e. `normal_dest`
/// dominates `block` and is entered from elsewhere only over back edges
/// (predecessors it dominates) or from unreachable blocks.
fn normal_edge_dominates(
    cfg: &ControlFlowGraph,
    domtree: &DominatorTree,
    invoke_block: Block,
    normal_dest: Block,
    block: Block,
) -> bool {
    domtree.is_reachable(normal_dest)
        && domtree.dominates(normal_dest, block)
        && cfg.preds(normal_dest).iter().all(|pred| {
            *pred == invoke_block
                || !domtree.is_reachable(*pred)
                || domtree.dominates(normal_dest, *pred)
        })
}

/// The alignment operand of memory instructions.
fn alignment(data: &InstData) -> Option<u32> {
    match data {
        InstData::Load { align, .. }
        | InstData::Store { align, .. }
        | InstData::Alloca { align, .. }
        | InstData::MaskedLoad { align, .. }
        | InstData::MaskedStore { align, .. }
        | InstData::Gather { align, .. }
        | InstData::Scatter { align, .. } => Some(*align),
        InstData::AtomicRmw { attrs, .. } | InstData::CmpXchg { attrs, .. } => Some(attrs.align),
        _ => None,
    }
}

fn is_int_like(ty: &Type) -> bool {
    (ty.is_scalar() || ty.is_vector()) && ty.scalar_type().is_int()
}

fn is_float_like(ty: &Type) -> bool {
    (ty.is_scalar() || ty.is_vector()) && ty.scalar_type().is_float()
}

fn is_ptr_like(ty: &Type) -> bool {
    (ty.is_scalar() || ty.is_vector()) && ty.scalar_type().is_ptr()
}

/// `i1` for scalars, `<N x i1>` for N-lane vectors.
fn bool_like(ty: &Type) -> Type {
    match ty.lanes() {
        Some(lanes) => Type::Vector { elem: Box::new(Type::BOOL), lanes },
        None => Type::BOOL,
    }
}

/// The total size in bits of a scalar or vector type.
fn total_bits(ty: &Type) -> Option<u64> {
    let scalar_bits = u64::from(ty.scalar_type().scalar_bits()?);
    Some(scalar_bits * u64::from(ty.lanes().unwrap_or(1)))
}

/// T5: what is wrong with casting `from` to `to` with `op`, if anything.
fn cast_problem(op: CastOp, from: &Type, to: &Type) -> Option<String> {
    let name = op.name();
    let first_class =
        |ty: &Type| ty.is_scalar() || (ty.is_vector() && ty.scalar_type().is_scalar());
    if !first_class(from) || !first_class(to) {
        return Some(format!("{name} from {from} to {to}: only scalars and vectors can be cast"));
    }
    if op == CastOp::Bitcast {
        if from.scalar_type().is_ptr() || to.scalar_type().is_ptr() {
            let same_pointers =
                from.scalar_type() == to.scalar_type() && from.lanes() == to.lanes();
            return (!same_pointers).then(|| {
                format!("bitcast from {from} to {to}: pointers only cast to the same pointer type")
            });
        }
        return (total_bits(from) != total_bits(to))
            .then(|| format!("bitcast from {from} to {to} changes the size"));
    }
    if from.lanes() != to.lanes() {
        return Some(format!("{name} from {from} to {to} changes the lane count"));
    }
    let (from_scalar, to_scalar) = (from.scalar_type(), to.scalar_type());
    let from_bits = from_scalar.scalar_bits().unwrap_or(0);
    let to_bits = to_scalar.scalar_bits().unwrap_or(0);
    let ok = match op {
        CastOp::Trunc => from_scalar.is_int() && to_scalar.is_int() && to_bits < from_bits,
        CastOp::ZExt | CastOp::SExt => {
            from_scalar.is_int() && to_scalar.is_int() && to_bits > from_bits
        }
        CastOp::FPTrunc => from_scalar.is_float() && to_scalar.is_float() && to_bits < from_bits,
        CastOp::FPExt => from_scalar.is_float() && to_scalar.is_float() && to_bits > from_bits,
        CastOp::FPToUI | CastOp::FPToSI => from_scalar.is_float() && to_scalar.is_int(),
        CastOp::UIToFP | CastOp::SIToFP => from_scalar.is_int() && to_scalar.is_float(),
        CastOp::PtrToInt => from_scalar.is_ptr() && to_scalar.is_int(),
        CastOp::IntToPtr => from_scalar.is_int() && to_scalar.is_ptr(),
        CastOp::AddrSpaceCast => {
            from_scalar.is_ptr() && to_scalar.is_ptr() && from_scalar != to_scalar
        }
        CastOp::Bitcast => true,
    };
    (!ok).then(|| format!("{name} cannot convert {from} to {to}"))
}

/// T10: the type of the member of `aggregate` that `indices` name.
fn aggregate_member<'t>(aggregate: &'t Type, indices: &[u32]) -> Result<&'t Type, String> {
    if !aggregate.is_aggregate() {
        return Err(format!("operand is a {aggregate}, not an array or struct"));
    }
    if indices.is_empty() {
        return Err("no indices".to_owned());
    }
    let mut current = aggregate;
    for &index in indices {
        current = match current {
            Type::Array { elem, len } if u64::from(index) < *len => elem,
            Type::Struct { fields, .. } if (index as usize) < fields.len() => {
                &fields[index as usize]
            }
            other => return Err(format!("index {index} is out of range for {other}")),
        };
    }
    Ok(current)
}

#[cfg(test)]
mod tests;
