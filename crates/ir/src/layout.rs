//! The layout: the order of blocks in a function and of instructions in a block.
//!
//! A block's instructions are a `Vec`: our functions are kernels of at most a
//! few thousand instructions, so positional insertion is cheap, and a `Vec` is
//! easier to read and to debug than Cranelift's intrusive lists. The reverse
//! map (instruction to block) is kept in step by every mutator here.

use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;

use crate::entities::{Block, Inst};

#[derive(Clone, Debug, Default)]
pub struct Layout {
    blocks: Vec<Block>,
    block_insts: SecondaryMap<Block, Vec<Inst>>,
    inst_block: SecondaryMap<Inst, PackedOption<Block>>,
    in_layout: SecondaryMap<Block, bool>,
}

impl Layout {
    pub fn new() -> Self {
        Self::default()
    }

    /// Blocks in layout order; the first is the entry block.
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    pub fn entry_block(&self) -> Option<Block> {
        self.blocks.first().copied()
    }

    pub fn is_block_inserted(&self, block: Block) -> bool {
        self.in_layout[block]
    }

    /// Appends `block` at the end of the function.
    pub fn append_block(&mut self, block: Block) {
        assert!(!self.in_layout[block], "{block} is already in the layout");
        self.blocks.push(block);
        self.in_layout[block] = true;
    }

    /// Inserts `block` right after `after` in the block order.
    pub fn insert_block_after(&mut self, block: Block, after: Block) {
        assert!(!self.in_layout[block], "{block} is already in the layout");
        let position = self.block_position(after) + 1;
        self.blocks.insert(position, block);
        self.in_layout[block] = true;
    }

    /// Removes an empty-or-not block from the order; its instructions leave
    /// the layout with it.
    pub fn remove_block(&mut self, block: Block) {
        let position = self.block_position(block);
        self.blocks.remove(position);
        for inst in std::mem::take(&mut self.block_insts[block]) {
            self.inst_block[inst] = None.into();
        }
        self.in_layout[block] = false;
    }

    /// Replaces the whole block order (for passes that re-sort blocks).
    /// The set of blocks must stay the same.
    pub fn set_block_order(&mut self, order: Vec<Block>) {
        debug_assert_eq!(order.len(), self.blocks.len());
        self.blocks = order;
    }

    fn block_position(&self, block: Block) -> usize {
        self.blocks
            .iter()
            .position(|candidate| *candidate == block)
            .unwrap_or_else(|| panic!("{block} is not in the layout"))
    }

    /// The instructions of `block`, in order.
    pub fn block_insts(&self, block: Block) -> &[Inst] {
        &self.block_insts[block]
    }

    /// The block holding `inst`, if it is in the layout.
    pub fn inst_block(&self, inst: Inst) -> Option<Block> {
        self.inst_block[inst].expand()
    }

    /// The last instruction of `block` (its terminator once the block is complete).
    pub fn last_inst(&self, block: Block) -> Option<Inst> {
        self.block_insts[block].last().copied()
    }

    /// Appends `inst` at the end of `block`.
    pub fn append_inst(&mut self, inst: Inst, block: Block) {
        assert!(self.inst_block[inst].is_none(), "{inst} is already in the layout");
        self.block_insts[block].push(inst);
        self.inst_block[inst] = block.into();
    }

    /// Inserts `inst` right before `before`, in the same block.
    /// Takes every instruction out of `block` (which stays in the layout),
    /// in one step: for passes that rebuild a block's order.
    pub fn clear_block_insts(&mut self, block: Block) -> Vec<Inst> {
        let insts = std::mem::take(&mut self.block_insts[block]);
        for inst in &insts {
            self.inst_block[*inst] = None.into();
        }
        insts
    }

    pub fn insert_inst_before(&mut self, inst: Inst, before: Inst) {
        let block = self.inst_block(before).expect("insertion point not in layout");
        let position = self.inst_position(before, block);
        self.block_insts[block].insert(position, inst);
        self.inst_block[inst] = block.into();
    }

    /// Inserts `inst` at `position` within `block` (0 is the first slot).
    pub fn insert_inst_at(&mut self, inst: Inst, block: Block, position: usize) {
        assert!(self.inst_block[inst].is_none(), "{inst} is already in the layout");
        self.block_insts[block].insert(position, inst);
        self.inst_block[inst] = block.into();
    }

    /// Takes `inst` out of the layout (its data stays in the DFG).
    pub fn remove_inst(&mut self, inst: Inst) {
        let block = self.inst_block(inst).expect("removing an instruction not in the layout");
        let position = self.inst_position(inst, block);
        self.block_insts[block].remove(position);
        self.inst_block[inst] = None.into();
    }

    fn inst_position(&self, inst: Inst, block: Block) -> usize {
        self.block_insts[block]
            .iter()
            .position(|candidate| *candidate == inst)
            .expect("layout maps are out of step")
    }

    /// All instructions in layout order.
    pub fn insts(&self) -> impl Iterator<Item = Inst> + '_ {
        self.blocks.iter().flat_map(move |block| self.block_insts[*block].iter().copied())
    }
}
