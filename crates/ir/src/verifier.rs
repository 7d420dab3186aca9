//! The IR verifier.

use crate::function::Function;

/// One broken invariant, naming where it was found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{location}: {message}")]
pub struct VerifierError {
    pub location: String,
    pub message: String,
}

/// All errors found in one function.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("IR verification failed:\n{}", .0.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n"))]
pub struct VerifierErrors(pub Vec<VerifierError>);

pub fn verify_function(_func: &Function) -> Result<(), VerifierErrors> {
    Ok(())
}
