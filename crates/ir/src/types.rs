//! Types of the Lanewise IR.
//!
//! The type system mirrors the part of LLVM's that a vectorizer meets in
//! scalar code produced by clang: integers of any width, half/float/double,
//! opaque pointers, fixed vectors, arrays and literal structs. Named LLVM
//! struct types are lifted structurally (their layout is all that matters).
//! Types are plain values compared structurally; they are small and cloning
//! them is cheap enough for the function sizes we handle.

use std::fmt;

/// A first-class or aggregate type.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Type {
    /// The result type of instructions without a value (store, `ret void`).
    #[default]
    Void,
    /// An integer of the given bit width (1 for booleans and masks).
    Int(u32),
    /// IEEE half precision.
    F16,
    /// IEEE single precision.
    F32,
    /// IEEE double precision.
    F64,
    /// An opaque pointer in the given address space.
    Ptr(u32),
    /// A fixed-width vector of `lanes` elements of a scalar type.
    Vector { elem: Box<Type>, lanes: u32 },
    /// An array of `len` elements.
    Array { elem: Box<Type>, len: u64 },
    /// A literal struct.
    Struct { fields: Vec<Type>, packed: bool },
}

impl Type {
    /// `i1`, the type of comparisons and of one lane of a mask.
    pub const BOOL: Type = Type::Int(1);
    /// `i8`.
    pub const I8: Type = Type::Int(8);
    /// `i32`.
    pub const I32: Type = Type::Int(32);
    /// `i64`.
    pub const I64: Type = Type::Int(64);
    /// A pointer in address space 0.
    pub const PTR: Type = Type::Ptr(0);

    /// The vector of `lanes` elements of this scalar type.
    ///
    /// Panics if `self` is not a scalar (integer, float or pointer): the
    /// widening code only ever asks for vectors of scalars.
    pub fn vector_of(&self, lanes: u32) -> Type {
        assert!(self.is_scalar(), "vector of non-scalar type {self}");
        Type::Vector { elem: Box::new(self.clone()), lanes }
    }

    /// Integers, floats and pointers.
    pub fn is_scalar(&self) -> bool {
        matches!(self, Type::Int(_) | Type::F16 | Type::F32 | Type::F64 | Type::Ptr(_))
    }

    pub fn is_int(&self) -> bool {
        matches!(self, Type::Int(_))
    }

    pub fn is_float(&self) -> bool {
        matches!(self, Type::F16 | Type::F32 | Type::F64)
    }

    pub fn is_ptr(&self) -> bool {
        matches!(self, Type::Ptr(_))
    }

    pub fn is_vector(&self) -> bool {
        matches!(self, Type::Vector { .. })
    }

    pub fn is_aggregate(&self) -> bool {
        matches!(self, Type::Array { .. } | Type::Struct { .. })
    }

    /// The element type of a vector, or the type itself for a scalar.
    pub fn scalar_type(&self) -> &Type {
        match self {
            Type::Vector { elem, .. } => elem,
            other => other,
        }
    }

    /// The number of lanes of a vector type, `None` for anything else.
    pub fn lanes(&self) -> Option<u32> {
        match self {
            Type::Vector { lanes, .. } => Some(*lanes),
            _ => None,
        }
    }

    /// Bit width of an integer type (or of the elements of an integer vector).
    pub fn int_bits(&self) -> Option<u32> {
        match self.scalar_type() {
            Type::Int(bits) => Some(*bits),
            _ => None,
        }
    }

    /// Size in bits of a scalar type, as stored in a register.
    pub fn scalar_bits(&self) -> Option<u32> {
        match self {
            Type::Int(bits) => Some(*bits),
            Type::F16 => Some(16),
            Type::F32 => Some(32),
            Type::F64 => Some(64),
            Type::Ptr(_) => Some(64),
            _ => None,
        }
    }

    /// Size in bits of a vector type (lanes x element bits), `None` for
    /// anything else.
    pub fn vector_bits(&self) -> Option<u64> {
        match self {
            Type::Vector { elem, lanes } => {
                Some(u64::from(*lanes) * u64::from(elem.scalar_bits().unwrap_or(0)))
            }
            _ => None,
        }
    }

    /// Whether a value of this type fills one SSE, AVX or AVX-512 register
    /// exactly: a vector of 8- to 64-bit integers, `float`s or `double`s of
    /// 128, 256 or 512 bits (what an [`crate::InstData::SpeculativeLoad`]
    /// may load).
    pub fn fills_one_vector_register(&self) -> bool {
        let Type::Vector { elem, .. } = self else {
            return false;
        };
        let element_ok = matches!(**elem, Type::Int(8 | 16 | 32 | 64) | Type::F32 | Type::F64);
        element_ok && matches!(self.vector_bits(), Some(128 | 256 | 512))
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Void => write!(f, "void"),
            Type::Int(bits) => write!(f, "i{bits}"),
            Type::F16 => write!(f, "half"),
            Type::F32 => write!(f, "float"),
            Type::F64 => write!(f, "double"),
            Type::Ptr(0) => write!(f, "ptr"),
            Type::Ptr(space) => write!(f, "ptr addrspace({space})"),
            Type::Vector { elem, lanes } => write!(f, "<{lanes} x {elem}>"),
            Type::Array { elem, len } => write!(f, "[{len} x {elem}]"),
            Type::Struct { fields, packed } => {
                if *packed {
                    write!(f, "<")?;
                }
                write!(f, "{{")?;
                for (index, field) in fields.iter().enumerate() {
                    if index > 0 {
                        write!(f, ",")?;
                    }
                    write!(f, " {field}")?;
                }
                write!(f, " }}")?;
                if *packed {
                    write!(f, ">")?;
                }
                Ok(())
            }
        }
    }
}

/// Sizes and alignments of types, as given by the module's data layout.
///
/// The core crates never parse LLVM data-layout strings; the bridge fills this
/// from the module (x86-64 values are the default).
#[derive(Clone, Debug)]
pub struct DataLayout {
    /// Size of a pointer in bytes.
    pub pointer_bytes: u64,
    /// ABI alignment of `i64` and `double` in bytes.
    pub i64_align: u64,
}

impl Default for DataLayout {
    fn default() -> Self {
        DataLayout { pointer_bytes: 8, i64_align: 8 }
    }
}

impl DataLayout {
    /// The allocation size of `ty` in bytes (what a GEP steps over).
    pub fn alloc_size(&self, ty: &Type) -> u64 {
        let size = self.store_size(ty);
        let align = self.abi_align(ty);
        size.div_ceil(align) * align
    }

    /// The number of bytes a load or store of `ty` touches.
    pub fn store_size(&self, ty: &Type) -> u64 {
        match ty {
            Type::Void => 0,
            Type::Int(bits) => u64::from(*bits).div_ceil(8),
            Type::F16 => 2,
            Type::F32 => 4,
            Type::F64 => 8,
            Type::Ptr(_) => self.pointer_bytes,
            Type::Vector { elem, lanes } => {
                (u64::from(*lanes) * u64::from(elem.scalar_bits().unwrap_or(8))).div_ceil(8)
            }
            Type::Array { elem, len } => self.alloc_size(elem) * len,
            Type::Struct { fields, packed } => {
                let mut offset: u64 = 0;
                for field in fields {
                    if !packed {
                        let align = self.abi_align(field);
                        offset = offset.div_ceil(align) * align;
                    }
                    offset += self.alloc_size(field);
                }
                if !packed {
                    let align = self.abi_align(ty);
                    offset = offset.div_ceil(align) * align;
                }
                offset
            }
        }
    }

    /// The ABI alignment of `ty` in bytes.
    pub fn abi_align(&self, ty: &Type) -> u64 {
        match ty {
            Type::Void => 1,
            Type::Int(bits) => match bits {
                0..=8 => 1,
                9..=16 => 2,
                17..=32 => 4,
                33..=64 => self.i64_align,
                _ => 16,
            },
            Type::F16 => 2,
            Type::F32 => 4,
            Type::F64 => self.i64_align,
            Type::Ptr(_) => self.pointer_bytes,
            Type::Vector { .. } => self.store_size(ty).next_power_of_two(),
            Type::Array { elem, .. } => self.abi_align(elem),
            Type::Struct { fields, packed } => {
                if *packed {
                    1
                } else {
                    fields.iter().map(|field| self.abi_align(field)).max().unwrap_or(1)
                }
            }
        }
    }

    /// Byte offset of field `index` in a struct type.
    pub fn field_offset(&self, fields: &[Type], packed: bool, index: usize) -> u64 {
        let mut offset: u64 = 0;
        for (position, field) in fields.iter().enumerate() {
            if !packed {
                let align = self.abi_align(field);
                offset = offset.div_ceil(align) * align;
            }
            if position == index {
                return offset;
            }
            offset += self.alloc_size(field);
        }
        offset
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn struct_layout_follows_the_c_rules() {
        let layout = DataLayout::default();
        let fields = vec![Type::I8, Type::F64, Type::I32];
        let ty = Type::Struct { fields: fields.clone(), packed: false };
        assert_eq!(layout.field_offset(&fields, false, 1), 8);
        assert_eq!(layout.field_offset(&fields, false, 2), 16);
        assert_eq!(layout.alloc_size(&ty), 24);
        assert_eq!(layout.alloc_size(&Type::Int(1)), 1);
        assert_eq!(layout.alloc_size(&Type::Array { elem: Box::new(Type::F32), len: 3 }), 12);
    }

    #[test]
    fn types_print_like_llvm() {
        assert_eq!(Type::F32.vector_of(8).to_string(), "<8 x float>");
        let ty = Type::Struct { fields: vec![Type::I32, Type::PTR], packed: false };
        assert_eq!(ty.to_string(), "{ i32, ptr }");
    }
}
