//! Errors: what the world reports for bad input or a stale handle, and the
//! checks that produce them.

use carom_shapes::ShapeError;
use thiserror::Error;

/// Why a world operation was refused.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum WorldError {
    /// The body handle names a body that was removed (or never belonged to this world).
    #[error("stale body handle: the body was removed or belongs to another world")]
    StaleBody,
    /// The shape handle names a shape that was removed (or never belonged to this world).
    #[error("stale shape handle: the shape was removed or belongs to another world")]
    StaleShape,
    /// A shape could not be built.
    #[error(transparent)]
    Shape(#[from] ShapeError),
    /// A setting or definition field is out of range.
    #[error("{field} {message}")]
    Invalid {
        /// The offending field, for example `"dt"` or `"material.density"`.
        field: &'static str,
        /// What is wrong with it.
        message: String,
    },
}

impl WorldError {
    pub(crate) fn invalid(field: &'static str, message: impl Into<String>) -> WorldError {
        WorldError::Invalid {
            field,
            message: message.into(),
        }
    }
}

/// Checks that a value is finite.
pub(crate) fn check_finite(field: &'static str, value: f32) -> Result<(), WorldError> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(WorldError::invalid(
            field,
            format!("must be finite, got {value}"),
        ))
    }
}

/// Checks that a value is finite and ≥ 0.
pub(crate) fn check_non_negative(field: &'static str, value: f32) -> Result<(), WorldError> {
    check_finite(field, value)?;
    if value >= 0.0 {
        Ok(())
    } else {
        Err(WorldError::invalid(
            field,
            format!("must be >= 0, got {value}"),
        ))
    }
}
