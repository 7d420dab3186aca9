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
mod tests {
    use super::*;
    use crate::builder::FunctionBuilder;
    use crate::instructions::*;
    use crate::test_functions::{counting_loop, diamond, invoke_with_landing_pad, several_returns};
    use cranelift_entity::EntityRef;

    /// Asserts that `func` is rejected with an error whose message contains
    /// `expected`, and returns all errors.
    #[track_caller]
    fn assert_rejected(func: &Function, expected: &str) -> VerifierErrors {
        match verify_function(func) {
            Ok(()) => panic!("expected an error containing {expected:?}, function passed:\n{func}"),
            Err(errors) => {
                assert!(
                    errors.mentions(expected),
                    "expected an error containing {expected:?}, got:\n{errors}"
                );
                errors
            }
        }
    }

    #[track_caller]
    fn assert_valid(func: &Function) {
        if let Err(errors) = verify_function(func) {
            panic!("{errors}\n{}", crate::printer::display_function_with_errors(func, &errors));
        }
    }

    /// A function with the given parameters and one block to append to.
    fn one_block(params: Vec<Type>, ret_ty: Type) -> (Function, Block) {
        let mut func = Function::new("f", params, ret_ty);
        let block = func.dfg.make_block(None);
        func.layout.append_block(block);
        (func, block)
    }

    /// Appends `data` and a `ret void` to a fresh one-block function with
    /// parameters `params`, where `data` is built from the parameter values.
    #[test]
    fn atomics_have_the_types_of_their_memory() {
        let attrs = AtomicAttrs {
            ordering: AtomicOrdering::SeqCst,
            scope: SyncScope::System,
            align: 4,
            volatile: false,
        };
        let rmw = |op: AtomicRmwOp, ty: Type, result: Type| {
            with_inst(vec![Type::PTR, ty], result, |_, values| InstData::AtomicRmw {
                op,
                addr: values[0],
                value: values[1],
                attrs,
            })
        };
        assert_valid(&rmw(AtomicRmwOp::Add, Type::I32, Type::I32));
        assert_valid(&rmw(AtomicRmwOp::FAdd, Type::F32, Type::F32));
        assert_rejected(
            &rmw(AtomicRmwOp::Add, Type::F32, Type::F32),
            "atomicrmw add of type float",
        );
        assert_rejected(
            &rmw(AtomicRmwOp::Xchg, Type::I32, Type::I64),
            "has type i64, expected i32",
        );
        let pair = Type::Struct { fields: vec![Type::I32, Type::BOOL], packed: false };
        let cmpxchg = |new_ty: Type, result: Type| {
            with_inst(vec![Type::PTR, Type::I32, new_ty], result, |_, values| InstData::CmpXchg {
                addr: values[0],
                expected: values[1],
                new: values[2],
                attrs,
                failure_ordering: AtomicOrdering::Monotonic,
                weak: false,
            })
        };
        assert_valid(&cmpxchg(Type::I32, pair.clone()));
        assert_rejected(&cmpxchg(Type::I64, pair), "cmpxchg operand types differ");
        assert_rejected(&cmpxchg(Type::I32, Type::I32), "has type i32, expected { i32, i1 }");
    }

    fn with_inst(
        params: Vec<Type>,
        result_ty: Type,
        build: impl FnOnce(&mut Function, &[Value]) -> InstData,
    ) -> Function {
        let (mut func, block) = one_block(params, Type::Void);
        let values: Vec<Value> = func.params.iter().map(|param| param.value).collect();
        let data = build(&mut func, &values);
        func.append(block, data, result_ty);
        func.append(block, InstData::Return { value: None }, Type::Void);
        func
    }

    fn block(index: usize) -> Block {
        Block::new(index)
    }

    #[test]
    fn valid_functions_pass() {
        assert_valid(&diamond());
        assert_valid(&counting_loop());
        assert_valid(&several_returns());
    }

    #[test]
    fn valid_vector_instructions_pass() {
        let f32x8 = Type::F32.vector_of(8);
        let params = vec![
            Type::F32,
            Type::PTR,
            f32x8.clone(),
            Type::BOOL.vector_of(8),
            Type::PTR.vector_of(8),
            Type::I64.vector_of(8),
        ];
        let (mut func, entry) = one_block(params, f32x8.clone());
        let mut b = FunctionBuilder::new(&mut func);
        b.switch_to_block(entry);
        let values: Vec<Value> = b.func.params.iter().map(|param| param.value).collect();
        let (scalar, pointer, vector, mask, pointers, offsets) =
            (values[0], values[1], values[2], values[3], values[4], values[5]);
        let splat = b.splat(scalar, 8);
        let loaded = b.ins_value(
            InstData::MaskedLoad {
                ty: f32x8.clone(),
                addr: pointer,
                mask,
                passthru: splat,
                align: 4,
            },
            f32x8.clone(),
        );
        b.ins(InstData::MaskedStore { value: loaded, addr: pointer, mask, align: 4 }, Type::Void);
        let addresses = b.gep(Type::F32, pointer, vec![offsets]);
        let gathered = b.ins_value(
            InstData::Gather {
                ty: f32x8.clone(),
                addrs: addresses,
                mask,
                passthru: vector,
                align: 4,
            },
            f32x8.clone(),
        );
        b.ins(InstData::Scatter { value: gathered, addrs: pointers, mask, align: 4 }, Type::Void);
        let sum = b.binary(BinaryOp::FAdd, gathered, loaded);
        let less = b.fcmp(FloatPredicate::Olt, sum, vector);
        let chosen = b.select(less, sum, vector);
        let lane = b.iconst(Type::I32, 2);
        let element = b.extract_element(chosen, lane);
        let updated = b.insert_element(chosen, element, lane);
        let halves = Type::F32.vector_of(4);
        b.ins(InstData::Shuffle { lhs: updated, rhs: vector, mask: vec![0, 1, 8, -1] }, halves);
        b.cast(CastOp::Bitcast, updated, Type::I64.vector_of(4));
        let call = b.call(
            Callee::Direct("_ZGVdN8v_sinf".to_owned()),
            vec![updated],
            f32x8.clone(),
            CallEffects::Pure,
        );
        let sine = b.func.dfg.result(call).unwrap();
        b.ret(Some(sine));
        assert_valid(&func);
    }

    #[test]
    fn errors_name_function_block_and_instruction() {
        let mut func = diamond();
        // Return the entry's comparison (an i1) from a function returning i32.
        let join = block(3);
        let ret = func.layout.last_inst(join).unwrap();
        let comparison = func.dfg.result(func.layout.block_insts(block(0))[0]).unwrap();
        *func.dfg.inst_mut(ret) = InstData::Return { value: Some(comparison) };
        let errors = assert_rejected(&func, "ret of a i1 in a function returning i32");
        assert_eq!(errors.len(), 1);
        let error = &errors.0[0];
        assert_eq!(error.location, format!("@diamond, block3 (join), {ret} (ret i1 v2)"));
        assert_eq!(error.block, Some(join));
        assert_eq!(error.inst, Some(ret));
        assert_eq!(
            error.to_string(),
            format!("@diamond, block3 (join), {ret} (ret i1 v2): ret of a i1 in a function returning i32")
        );
        let text = crate::printer::display_function_with_errors(&func, &errors);
        assert!(
            text.contains("  ret i1 v2\n; error: ret of a i1 in a function returning i32\n"),
            "{text}"
        );
    }

    #[test]
    fn all_errors_are_collected() {
        let func = with_inst(vec![Type::F32, Type::I32], Type::F32, |_, values| InstData::Binary {
            op: BinaryOp::Add,
            lhs: values[0],
            rhs: values[1],
            flags: ArithFlags::default(),
        });
        let errors = assert_rejected(&func, "operand types differ: float and i32");
        assert!(errors.mentions("add needs integer operands (or vectors of them), got float"));
        assert_eq!(errors.len(), 2);
    }

    // ---- Signature and layout ----

    #[test]
    fn s1_parameter_types_match_the_signature() {
        let mut func = diamond();
        func.params[0].ty = Type::F32;
        assert_rejected(&func, "parameter 0: value v0 has type i32, the signature says float");
    }

    #[test]
    fn l1_there_is_an_entry_block() {
        let func = Function::new("empty", vec![], Type::Void);
        assert_rejected(&func, "function has no entry block");
    }

    #[test]
    fn l2_layout_blocks_exist() {
        let mut func = diamond();
        func.layout.append_block(block(50));
        assert_rejected(&func, "block50 is in the layout but does not exist");
    }

    #[test]
    fn l3_layout_instructions_exist() {
        let mut func = diamond();
        func.layout.insert_inst_at(Inst::new(99), block(1), 0);
        assert_rejected(&func, "inst99 does not exist");
    }

    #[test]
    fn l4_layout_maps_agree() {
        let mut func = diamond();
        let detached = func.dfg.make_block(None);
        let stray = func.dfg.make_inst(InstData::Unreachable, Type::Void);
        func.layout.append_inst(stray, detached);
        assert_rejected(&func, "does not hold it in the layout");
    }

    // ---- Blocks and control flow ----

    #[test]
    fn b1_blocks_are_not_empty() {
        let mut func = diamond();
        let empty = func.dfg.make_block(None);
        func.layout.append_block(empty);
        assert_rejected(&func, "block4 is empty");
    }

    #[test]
    fn b1_blocks_end_with_a_terminator() {
        let mut func = diamond();
        let ret = func.layout.last_inst(block(3)).unwrap();
        func.layout.remove_inst(ret);
        assert_rejected(&func, "block3 does not end with a terminator");
    }

    #[test]
    fn b2_no_terminator_in_the_middle() {
        let mut func = diamond();
        let early_exit = func.dfg.make_inst(InstData::Unreachable, Type::Void);
        func.layout.insert_inst_at(early_exit, block(1), 0);
        assert_rejected(&func, "terminator in the middle of block1");
    }

    #[test]
    fn b3_successors_exist_and_are_in_the_layout() {
        let mut func = diamond();
        let jump = func.layout.last_inst(block(1)).unwrap();
        *func.dfg.inst_mut(jump) = InstData::Jump { dest: block(1000) };
        assert_rejected(&func, "branch to block1000, which does not exist");

        let mut func = diamond();
        let detached = func.dfg.make_block(None);
        let jump = func.layout.last_inst(block(2)).unwrap();
        *func.dfg.inst_mut(jump) = InstData::Jump { dest: detached };
        assert_rejected(&func, "branch to block4, which is not in the layout");
    }

    #[test]
    fn b4_entry_has_no_predecessors() {
        let mut func = diamond();
        let jump = func.layout.last_inst(block(1)).unwrap();
        *func.dfg.inst_mut(jump) = InstData::Jump { dest: block(0) };
        assert_rejected(&func, "the entry block has predecessors: block1");
    }

    #[test]
    fn b5_phis_come_first() {
        let mut func = diamond();
        // Put a non-phi (`v0 + 0`) before the phi of the join block.
        let zero = func.dfg.int_const(Type::I32, 0);
        let arg = func.params[0].value;
        let copy = func.dfg.make_inst(
            InstData::Binary {
                op: BinaryOp::Add,
                lhs: arg,
                rhs: zero,
                flags: ArithFlags::default(),
            },
            Type::I32,
        );
        func.layout.insert_inst_at(copy, block(3), 0);
        assert_rejected(&func, "phi after a non-phi instruction");
    }

    #[test]
    fn b6_phi_entries_match_predecessors() {
        let phi_of = |func: &Function| func.layout.block_insts(block(3))[0];

        let mut func = diamond();
        let phi = phi_of(&func);
        if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi) {
            incoming.pop();
        }
        assert_rejected(&func, "phi has no incoming value from predecessor block2");

        let mut func = diamond();
        let phi = phi_of(&func);
        let arg = func.params[0].value;
        if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi) {
            incoming.push((block(0), arg));
        }
        assert_rejected(&func, "phi has an incoming entry from block0, which is not a predecessor");

        let mut func = diamond();
        let phi = phi_of(&func);
        if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi) {
            let first = incoming[0];
            incoming.push(first);
        }
        assert_rejected(&func, "phi has two incoming entries from block1");
    }

    #[test]
    fn b7_switch_cases_are_distinct_and_fit() {
        let make = |cases: Vec<(u128, Block)>| {
            let (mut func, entry) = one_block(vec![Type::I8], Type::Void);
            let value = func.params[0].value;
            func.append(entry, InstData::Switch { value, default: entry, cases }, Type::Void);
            func
        };
        // The entry jumping to itself is reported too; the case errors are what we look for.
        assert_rejected(&make(vec![(1, block(0)), (1, block(0))]), "switch case 1 appears twice");
        assert_rejected(&make(vec![(256, block(0))]), "switch case 256 does not fit in i8");
    }

    // ---- Values and SSA ----

    #[test]
    fn v1_operands_exist() {
        let func = with_inst(vec![Type::I32], Type::I32, |_, values| InstData::Binary {
            op: BinaryOp::Add,
            lhs: values[0],
            rhs: Value::new(999),
            flags: ArithFlags::default(),
        });
        assert_rejected(&func, "operand v999 does not exist");
    }

    #[test]
    fn v2_defining_instruction_is_in_the_layout() {
        let func = with_inst(vec![Type::I32], Type::I32, |func, values| {
            let detached = func.dfg.make_inst(InstData::Freeze { arg: values[0] }, Type::I32);
            let detached_value = func.dfg.result(detached).unwrap();
            InstData::Freeze { arg: detached_value }
        });
        assert_rejected(&func, "operand v1 is defined by inst0, which is not in the layout");
    }

    #[test]
    fn v3_parameters_belong_to_the_function() {
        let func = with_inst(vec![Type::I32], Type::I32, |func, _| {
            let foreign = func.dfg.make_param(3, Type::I32);
            InstData::Freeze { arg: foreign }
        });
        assert_rejected(&func, "operand v1 is not a parameter of this function");
    }

    #[test]
    fn v4_constants_match_their_type() {
        let func = with_inst(vec![], Type::F32, |func, _| {
            let wrong = func.dfg.make_const(Type::F32, Constant::Int(1));
            InstData::Freeze { arg: wrong }
        });
        assert_rejected(&func, "operand v0: integer constant of type float");

        let func = with_inst(vec![], Type::I32.vector_of(4), |func, _| {
            let one = func.dfg.int_const(Type::I32, 1);
            let short = func.dfg.make_const(Type::I32.vector_of(4), Constant::Aggregate(vec![one]));
            InstData::Freeze { arg: short }
        });
        assert_rejected(&func, "aggregate constant of type <4 x i32> has 1 elements");

        // A cyclic aggregate (garbage) terminates.
        let func = with_inst(vec![], Type::I32.vector_of(1), |func, _| {
            let next = Value::new(func.dfg.values.len());
            let cyclic =
                func.dfg.make_const(Type::I32.vector_of(1), Constant::Aggregate(vec![next]));
            InstData::Freeze { arg: cyclic }
        });
        assert!(verify_function(&func).is_err());
        let _ = func.to_string();
    }

    #[test]
    fn v5_results_exist_iff_the_instruction_produces_a_value() {
        let func =
            with_inst(vec![Type::I32], Type::Void, |_, values| InstData::Freeze { arg: values[0] });
        assert_rejected(&func, "instruction produces a i32 but has no result value");

        let func = with_inst(vec![Type::I32, Type::PTR], Type::I32, |_, values| InstData::Store {
            value: values[0],
            addr: values[1],
            align: 4,
            volatile: false,
        });
        assert_rejected(&func, "instruction has a result (v2) but produces no value");

        let func =
            with_inst(vec![Type::I32], Type::I64, |_, values| InstData::Freeze { arg: values[0] });
        assert_rejected(&func, "result v1 has type i64, expected i32");
    }

    #[test]
    fn v6_definitions_dominate_uses() {
        // block2 uses v4, defined in block1.
        let mut func = diamond();
        let add = func.layout.block_insts(block(2))[0];
        let negated = func.dfg.result(func.layout.block_insts(block(1))[0]).unwrap();
        if let InstData::Binary { lhs, .. } = func.dfg.inst_mut(add) {
            *lhs = negated;
        }
        assert_rejected(&func, "the definition of v4 (in block1) does not dominate this use");
    }

    #[test]
    fn v6_definitions_come_first_within_a_block() {
        let (mut func, entry) = one_block(vec![Type::I32], Type::I32);
        let arg = func.params[0].value;
        let first = func.append(entry, InstData::Freeze { arg }, Type::I32);
        let second = func.append(entry, InstData::Freeze { arg }, Type::I32);
        let second_value = func.dfg.result(second).unwrap();
        let first_value = func.dfg.result(first).unwrap();
        *func.dfg.inst_mut(first) = InstData::Freeze { arg: second_value };
        func.append(entry, InstData::Return { value: Some(first_value) }, Type::Void);
        assert_rejected(&func, "v2 is used before its definition inst1");

        let (mut func, entry) = one_block(vec![Type::I32], Type::I32);
        let own = func.append(entry, InstData::Freeze { arg }, Type::I32);
        let own_value = func.dfg.result(own).unwrap();
        *func.dfg.inst_mut(own) = InstData::Freeze { arg: own_value };
        func.append(entry, InstData::Return { value: Some(own_value) }, Type::Void);
        assert_rejected(&func, "v1 is used by its own definition");
    }

    #[test]
    fn v6_phi_values_dominate_the_end_of_their_incoming_block() {
        // The phi takes v6 (defined in block2) as the value coming from block1.
        let mut func = diamond();
        let phi = func.layout.block_insts(block(3))[0];
        let incremented = func.dfg.result(func.layout.block_insts(block(2))[0]).unwrap();
        if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi) {
            incoming[0].1 = incremented;
        }
        assert_rejected(
            &func,
            "the definition of v6 (in block2) does not dominate the end of incoming block block1",
        );
        // The loop's phi uses a value defined later in the latch: fine.
        assert_valid(&counting_loop());
    }

    #[test]
    fn v6_unreachable_blocks_are_exempt() {
        // block6 is unreachable: let it return a value defined in block1.
        let mut func = several_returns();
        let five = func.dfg.int_const(Type::I32, 5);
        let frozen = func.dfg.make_inst(InstData::Freeze { arg: five }, Type::I32);
        let block1_ret = func.layout.last_inst(block(1)).unwrap();
        func.layout.insert_inst_before(frozen, block1_ret);
        let frozen_value = func.dfg.result(frozen).unwrap();
        let dead_ret = func.layout.last_inst(block(6)).unwrap();
        *func.dfg.inst_mut(dead_ret) = InstData::Return { value: Some(frozen_value) };
        assert_valid(&func);
    }

    // ---- Types ----

    #[test]
    fn t1_binary_operands() {
        let func = with_inst(vec![Type::I32, Type::I32], Type::I32, |_, values| InstData::Binary {
            op: BinaryOp::FMul,
            lhs: values[0],
            rhs: values[1],
            flags: ArithFlags::default(),
        });
        assert_rejected(&func, "fmul needs floating-point operands (or vectors of them), got i32");
    }

    #[test]
    fn t2_fneg_operand() {
        let func = with_inst(vec![Type::I32], Type::I32, |_, values| InstData::Unary {
            op: UnaryOp::FNeg,
            arg: values[0],
            flags: ArithFlags::default(),
        });
        assert_rejected(&func, "fneg needs a floating-point operand, got i32");
    }

    #[test]
    fn t3_comparisons() {
        let func = with_inst(vec![Type::F32, Type::F32], Type::BOOL, |_, values| InstData::Icmp {
            pred: IntPredicate::Eq,
            lhs: values[0],
            rhs: values[1],
        });
        assert_rejected(&func, "icmp needs integer or pointer operands");

        let vector = Type::I32.vector_of(4);
        let func = with_inst(vec![vector.clone(), vector], Type::BOOL, |_, values| {
            InstData::Icmp { pred: IntPredicate::Eq, lhs: values[0], rhs: values[1] }
        });
        assert_rejected(&func, "result v2 has type i1, expected <4 x i1>");

        let func = with_inst(vec![Type::I32, Type::I32], Type::BOOL, |_, values| InstData::Fcmp {
            pred: FloatPredicate::Oeq,
            lhs: values[0],
            rhs: values[1],
            flags: FastMathFlags::default(),
        });
        assert_rejected(&func, "fcmp needs floating-point operands");
    }

    #[test]
    fn t4_select_condition() {
        let vector = Type::F32.vector_of(4);
        let params = vec![Type::BOOL.vector_of(8), vector.clone(), vector.clone()];
        let func = with_inst(params, vector.clone(), |_, values| InstData::Select {
            cond: values[0],
            if_true: values[1],
            if_false: values[2],
            flags: FastMathFlags::default(),
        });
        assert_rejected(
            &func,
            "select condition must be i1 or <N x i1> matching the <4 x float> values, got <8 x i1>",
        );
        // A scalar condition selects whole vectors.
        let func =
            with_inst(vec![Type::BOOL, vector.clone(), vector.clone()], vector, |_, values| {
                InstData::Select {
                    cond: values[0],
                    if_true: values[1],
                    if_false: values[2],
                    flags: FastMathFlags::default(),
                }
            });
        assert_valid(&func);
    }

    #[test]
    fn t5_casts() {
        let cast = |op: CastOp, from: Type, to: Type| {
            with_inst(vec![from], to.clone(), |_, values| InstData::Cast {
                op,
                arg: values[0],
                to,
                flags: CastFlags::default(),
            })
        };
        assert_rejected(
            &cast(CastOp::Trunc, Type::I32, Type::I64),
            "trunc cannot convert i32 to i64",
        );
        assert_rejected(
            &cast(CastOp::ZExt, Type::I32.vector_of(4), Type::I64.vector_of(8)),
            "zext from <4 x i32> to <8 x i64> changes the lane count",
        );
        assert_rejected(
            &cast(CastOp::SIToFP, Type::F32, Type::F64),
            "sitofp cannot convert float to double",
        );
        assert_rejected(
            &cast(CastOp::Bitcast, Type::I32.vector_of(8), Type::I64.vector_of(8)),
            "bitcast from <8 x i32> to <8 x i64> changes the size",
        );
        assert_rejected(
            &cast(CastOp::Bitcast, Type::PTR, Type::I64),
            "pointers only cast to the same pointer type",
        );
        assert_rejected(
            &cast(CastOp::AddrSpaceCast, Type::PTR, Type::PTR),
            "addrspacecast cannot convert ptr to ptr",
        );
        assert_valid(&cast(CastOp::Bitcast, Type::I32.vector_of(8), Type::I64.vector_of(4)));
        assert_valid(&cast(CastOp::FPExt, Type::F32.vector_of(4), Type::F64.vector_of(4)));
        assert_valid(&cast(CastOp::PtrToInt, Type::PTR.vector_of(4), Type::I64.vector_of(4)));
    }

    #[test]
    fn t6_phi_incoming_types() {
        let mut func = diamond();
        let phi = func.layout.block_insts(block(3))[0];
        let half = func.dfg.make_const(Type::F32, Constant::Float(0));
        if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi) {
            incoming[1].1 = half;
        }
        assert_rejected(&func, "phi of type i32 has incoming v8 of type float from block2");
    }

    #[test]
    fn t7_memory_addresses_and_alignment() {
        let func = with_inst(vec![Type::I64], Type::F32, |_, values| InstData::Load {
            ty: Type::F32,
            addr: values[0],
            align: 4,
            volatile: false,
        });
        assert_rejected(&func, "load address must be a pointer, got i64");
        let func = with_inst(vec![Type::F32, Type::PTR], Type::Void, |_, values| InstData::Store {
            value: values[0],
            addr: values[1],
            align: 3,
            volatile: false,
        });
        assert_rejected(&func, "alignment 3 is not a power of two");
    }

    #[test]
    fn t8_getelementptr() {
        let func = with_inst(vec![Type::PTR, Type::F32], Type::PTR, |_, values| InstData::Gep {
            source_ty: Type::F32,
            base: values[0],
            indices: vec![values[1]],
            inbounds: false,
        });
        assert_rejected(&func, "getelementptr index 0 must be an integer, got float");

        let pair = Type::Struct { fields: vec![Type::I32, Type::F32], packed: false };
        let func = with_inst(vec![Type::PTR, Type::I32], Type::PTR, |_, values| InstData::Gep {
            source_ty: pair,
            base: values[0],
            indices: vec![values[1], values[1]],
            inbounds: true,
        });
        assert_rejected(
            &func,
            "getelementptr index 1 into { i32, float } must be a constant field number below 2",
        );

        let func = with_inst(vec![Type::PTR, Type::I64.vector_of(4)], Type::PTR, |_, values| {
            InstData::Gep {
                source_ty: Type::F32,
                base: values[0],
                indices: vec![values[1]],
                inbounds: true,
            }
        });
        assert_rejected(&func, "result v2 has type ptr, expected <4 x ptr>");
    }

    #[test]
    fn t9_alloca_count() {
        let func = with_inst(vec![Type::F32], Type::PTR, |_, values| InstData::Alloca {
            ty: Type::I32,
            count: values[0],
            align: 4,
        });
        assert_rejected(&func, "alloca count must be an integer, got float");
    }

    #[test]
    fn t10_aggregate_members() {
        let pair = Type::Struct { fields: vec![Type::I32, Type::F32], packed: false };
        let func = with_inst(vec![pair.clone()], Type::I32, |_, values| InstData::ExtractValue {
            aggregate: values[0],
            indices: vec![2],
        });
        assert_rejected(&func, "extractvalue: index 2 is out of range for { i32, float }");
        let func = with_inst(vec![pair.clone(), Type::I32], pair, |_, values| {
            InstData::InsertValue { aggregate: values[0], value: values[1], indices: vec![1] }
        });
        assert_rejected(&func, "insertvalue of a i32 into a float member");
    }

    #[test]
    fn t11_vector_elements() {
        let func = with_inst(vec![Type::F32, Type::I32], Type::F32, |_, values| {
            InstData::ExtractElement { vector: values[0], index: values[1] }
        });
        assert_rejected(&func, "extractelement from a non-vector float");
        let vector = Type::F32.vector_of(4);
        let func = with_inst(vec![vector.clone(), Type::F64, Type::I32], vector, |_, values| {
            InstData::InsertElement { vector: values[0], value: values[1], index: values[2] }
        });
        assert_rejected(&func, "insertelement of a double into a <4 x float>");
    }

    #[test]
    fn t12_shuffle_mask() {
        let vector = Type::F32.vector_of(4);
        let func =
            with_inst(vec![vector.clone(), vector.clone()], Type::F32.vector_of(2), |_, values| {
                InstData::Shuffle { lhs: values[0], rhs: values[1], mask: vec![0, 8] }
            });
        assert_rejected(&func, "shufflevector mask element 1 is 8, outside -1..8");
        let func = with_inst(vec![vector.clone(), vector.clone()], vector, |_, values| {
            InstData::Shuffle { lhs: values[0], rhs: values[1], mask: vec![0, 1] }
        });
        assert_rejected(&func, "result v2 has type <4 x float>, expected <2 x float>");
    }

    #[test]
    fn t14_call_result_matches_ret_ty() {
        let func = with_inst(vec![Type::F32], Type::F64, |_, values| InstData::Call {
            callee: Callee::Direct("sinf".to_owned()),
            args: vec![values[0]],
            ret_ty: Type::F32,
            effects: CallEffects::Pure,
            flags: FastMathFlags::default(),
        });
        assert_rejected(&func, "result v1 has type double, expected float");
        let func = with_inst(vec![Type::F32], Type::Void, |_, values| InstData::Call {
            callee: Callee::Indirect(values[0]),
            args: vec![],
            ret_ty: Type::Void,
            effects: CallEffects::SideEffects,
            flags: FastMathFlags::default(),
        });
        assert_rejected(&func, "indirect callee must be a pointer, got float");
    }

    #[test]
    fn t15_splat_type() {
        let func = with_inst(vec![Type::F32], Type::F32.vector_of(4), |_, values| {
            InstData::Splat { scalar: values[0], lanes: 8 }
        });
        assert_rejected(&func, "result v1 has type <4 x float>, expected <8 x float>");
        let vector = Type::F32.vector_of(4);
        let func = with_inst(vec![vector.clone()], vector, |_, values| InstData::Splat {
            scalar: values[0],
            lanes: 4,
        });
        assert_rejected(&func, "splat of a non-scalar <4 x float>");
    }

    #[test]
    fn t16_masked_memory_operations() {
        let f32x8 = Type::F32.vector_of(8);
        let params = vec![Type::PTR.vector_of(4), Type::BOOL.vector_of(8), f32x8.clone()];
        let func = with_inst(params, f32x8.clone(), |_, values| InstData::Gather {
            ty: Type::F32.vector_of(8),
            addrs: values[0],
            mask: values[1],
            passthru: values[2],
            align: 4,
        });
        assert_rejected(&func, "gather has 4 addresses for 8 lanes");

        let params = vec![f32x8.clone(), Type::PTR, Type::BOOL.vector_of(4)];
        let func = with_inst(params, Type::Void, |_, values| InstData::MaskedStore {
            value: values[0],
            addr: values[1],
            mask: values[2],
            align: 4,
        });
        assert_rejected(&func, "masked_store mask must be <8 x i1>, got <4 x i1>");

        let params = vec![Type::PTR.vector_of(8), Type::BOOL.vector_of(8), f32x8.clone()];
        let func = with_inst(params, f32x8.clone(), |_, values| InstData::MaskedLoad {
            ty: Type::F32.vector_of(8),
            addr: values[0],
            mask: values[1],
            passthru: values[2],
            align: 4,
        });
        assert_rejected(&func, "masked_load address must be a pointer, got <8 x ptr>");

        let params = vec![Type::F32, Type::PTR.vector_of(8), Type::BOOL.vector_of(8)];
        let func = with_inst(params, Type::Void, |_, values| InstData::Scatter {
            value: values[0],
            addrs: values[1],
            mask: values[2],
            align: 4,
        });
        assert_rejected(&func, "scatter data must be a vector, got float");
    }

    #[test]
    fn t17_terminators() {
        let mut func = diamond();
        let branch = func.layout.last_inst(block(0)).unwrap();
        let arg = func.params[0].value;
        if let InstData::Branch { cond, .. } = func.dfg.inst_mut(branch) {
            *cond = arg;
        }
        assert_rejected(&func, "branch condition must be i1, got i32");

        let (mut func, entry) = one_block(vec![Type::F32], Type::Void);
        func.append(
            entry,
            InstData::Switch { value: func.params[0].value, default: entry, cases: vec![] },
            Type::Void,
        );
        assert_rejected(&func, "switch on a non-integer float");

        let (mut func, entry) = one_block(vec![], Type::I32);
        func.append(entry, InstData::Return { value: None }, Type::Void);
        assert_rejected(&func, "ret void in a function returning i32");
    }

    #[test]
    fn exception_handling_passes() {
        assert_valid(&invoke_with_landing_pad());
    }

    /// The landing pad, its block and the value it defines in
    /// [`invoke_with_landing_pad`].
    fn landing_pad(func: &Function) -> (Block, Inst, Value) {
        let pad = func.layout.block_insts(block(2))[0];
        (block(2), pad, func.dfg.result(pad).unwrap())
    }

    #[test]
    fn b8_landing_pads_lead_blocks_entered_by_unwind_edges() {
        let mut func = invoke_with_landing_pad();
        let (lpad, _, _) = landing_pad(&func);
        let pointer = func.params[0].value;
        let early = func.dfg.make_inst(
            InstData::Call {
                callee: Callee::Direct("log".to_owned()),
                args: vec![pointer],
                ret_ty: Type::Void,
                effects: CallEffects::SideEffects,
                flags: FastMathFlags::default(),
            },
            Type::Void,
        );
        func.layout.insert_inst_at(early, lpad, 0);
        assert_rejected(&func, "landingpad must be the first non-phi instruction");
        assert_rejected(&func, "does not begin with a landingpad");
        func.layout.remove_inst(early);
        assert_valid(&func);

        // A plain branch into the landing pad's block.
        let invoke = func.layout.last_inst(block(0)).unwrap();
        let InstData::Invoke { unwind_dest: unwind, .. } = *func.dfg.inst(invoke) else {
            panic!("block0 ends in the invoke")
        };
        let detour = func.dfg.make_block(None);
        func.layout.append_block(detour);
        func.append(detour, InstData::Jump { dest: unwind }, Type::Void);
        if let InstData::Invoke { unwind_dest, .. } = func.dfg.inst_mut(invoke) {
            *unwind_dest = detour;
        }
        assert_rejected(&func, "enters this landing pad's block other than by the unwind edge");
        assert_rejected(&func, &format!("the unwind destination {detour} does not begin"));

        let mut func = invoke_with_landing_pad();
        if let InstData::Invoke { normal_dest, .. } = func.dfg.inst_mut(invoke) {
            *normal_dest = unwind;
        }
        assert_rejected(&func, "invoke has the same normal and unwind destination");

        let mut func = invoke_with_landing_pad();
        func.personality = None;
        assert_rejected(&func, "no personality function");

        let mut func = invoke_with_landing_pad();
        let (lpad, _, _) = landing_pad(&func);
        let resume = func.layout.last_inst(lpad).unwrap();
        let wrong = func.dfg.make_const(Type::I32, Constant::Zero);
        *func.dfg.inst_mut(resume) = InstData::Resume { value: wrong };
        assert_rejected(&func, "resume of a i32, the landing pads have type { ptr, i32 }");
    }

    #[test]
    fn v6_invoke_results_exist_on_the_normal_edge_only() {
        // Used in the landing pad: not defined on the unwind edge.
        let mut func = invoke_with_landing_pad();
        let invoke = func.layout.last_inst(block(0)).unwrap();
        let result = func.dfg.result(invoke).unwrap();
        let pointer = func.params[0].value;
        let (lpad, _, _) = landing_pad(&func);
        let store = func.dfg.make_inst(
            InstData::Store { value: result, addr: pointer, align: 4, volatile: false },
            Type::Void,
        );
        func.layout.insert_inst_at(store, lpad, 1);
        assert_rejected(&func, "is used where the normal edge to block1 does not dominate");

        // A phi of the landing pad's block may not take it from the invoke.
        let mut func = invoke_with_landing_pad();
        let phi = func.dfg.make_inst(
            InstData::Phi { ty: Type::I32, incoming: vec![(block(0), result)] },
            Type::I32,
        );
        func.layout.insert_inst_at(phi, lpad, 0);
        assert_rejected(&func, "is not available at the end of incoming block block0");

        // The normal destination may: a phi there takes it over the normal edge.
        let mut func = invoke_with_landing_pad();
        let ok = block(1);
        let phi = func.dfg.make_inst(
            InstData::Phi { ty: Type::I32, incoming: vec![(block(0), result)] },
            Type::I32,
        );
        func.layout.insert_inst_at(phi, ok, 0);
        assert_valid(&func);

        // A normal destination entered from elsewhere too: the result may not
        // be there.
        let mut func = invoke_with_landing_pad();
        let flag = func.dfg.make_param(1, Type::BOOL);
        func.params.push(crate::function::Param { ty: Type::BOOL, value: flag });
        // A new entry block branches to the invoke's block or straight to
        // its normal destination.
        let entry = func.dfg.make_block(None);
        func.layout.append_block(entry);
        let branch = InstData::Branch { cond: flag, then_dest: block(0), else_dest: ok };
        func.append(entry, branch, Type::Void);
        func.layout.set_block_order(vec![entry, block(0), block(1), block(2)]);
        assert_rejected(&func, "is used where the normal edge to block1 does not dominate");
    }

    #[test]
    fn t18_landing_pad_clauses() {
        let mut func = invoke_with_landing_pad();
        let (_, pad, _) = landing_pad(&func);
        let pointer = func.params[0].value;
        if let InstData::LandingPad { clauses, cleanup, .. } = func.dfg.inst_mut(pad) {
            clauses.clear();
            *cleanup = false;
        }
        assert_rejected(&func, "landingpad without clauses must be a cleanup");
        if let InstData::LandingPad { clauses, .. } = func.dfg.inst_mut(pad) {
            clauses.push(LandingPadClause::Catch(pointer));
        }
        assert_rejected(&func, "landingpad catch clause v0 must be a constant pointer, got ptr");
        let null = func.dfg.make_const(Type::PTR, Constant::Null);
        if let InstData::LandingPad { clauses, .. } = func.dfg.inst_mut(pad) {
            *clauses = vec![LandingPadClause::Filter(null)];
        }
        assert_rejected(&func, "landingpad filter clause");
        let empty =
            func.dfg.make_const(Type::Array { elem: Box::new(Type::PTR), len: 0 }, Constant::Zero);
        if let InstData::LandingPad { clauses, .. } = func.dfg.inst_mut(pad) {
            *clauses = vec![LandingPadClause::Filter(empty), LandingPadClause::Catch(null)];
        }
        assert_valid(&func);
    }

    #[test]
    fn garbage_never_panics() {
        let (mut func, entry) = one_block(vec![Type::I32], Type::Void);
        func.append(entry, InstData::Freeze { arg: Value::new(500) }, Type::Void);
        let phi = func.dfg.make_inst(
            InstData::Phi { ty: Type::I32, incoming: vec![(block(77), Value::new(400))] },
            Type::I32,
        );
        func.layout.append_inst(phi, entry);
        func.layout.append_inst(Inst::new(300), entry);
        func.append(entry, InstData::Jump { dest: block(1000) }, Type::Void);
        func.dfg.results[Inst::new(0)] = Some(Value::new(600));
        func.layout.append_block(block(40));
        func.params.push(crate::Param { ty: Type::Void, value: Value::new(900) });
        // A constant whose type claims four billion lanes.
        let huge = func.dfg.make_const(Type::I32.vector_of(u32::MAX), Constant::Aggregate(vec![]));
        let first = func.layout.block_insts(entry)[0];
        *func.dfg.inst_mut(first) = InstData::Freeze { arg: huge };
        let errors = verify_function(&func).unwrap_err();
        assert!(errors.mentions("result v600 does not exist"), "{errors}");
        assert!(errors.mentions("has 0 elements"), "{errors}");
        assert!(errors.mentions("phi has an incoming entry from block77"), "{errors}");
        assert!(errors.mentions("operand v400 does not exist"), "{errors}");
        assert!(errors.mentions("branch to block1000, which does not exist"), "{errors}");
        assert!(errors.mentions("block40 is empty"), "{errors}");
        assert!(errors.mentions("parameter 1: value v900 does not exist"), "{errors}");
        let text = crate::printer::display_function_with_errors(&func, &errors);
        assert!(text.contains("; error: "), "{text}");
    }
}
