//! Length and angle tolerances shared by the contact routines.
//!
//! carom works in metres; these values suit bodies from a few centimetres to
//! a few tens of metres across.

/// The length below which two positions count as the same for contact
/// purposes: 5 mm.
pub(crate) const LINEAR_SLOP: f32 = 0.005;

/// How much better B's face must separate the pair than A's before B becomes
/// the reference face of a two-point manifold. The bias keeps the choice from
/// flip-flopping between steps when both faces are equally good, which would
/// change the feature ids and spoil warm starting.
pub(crate) const REFERENCE_BIAS: f32 = 0.1 * LINEAR_SLOP;

/// A two-point manifold is used only when its deepest point agrees with the
/// exact single-point separation to within this length.
pub(crate) const TWO_POINT_TOLERANCE: f32 = 0.1 * LINEAR_SLOP;

/// The sine of the largest angle between two straight features that still
/// counts as lying flat against each other (about 5.7°).
pub(crate) const FLAT_SIN: f32 = 0.1;

/// The sine of the largest angle between a sector's two edges for them to be
/// treated as one straight diameter (a half disc).
pub(crate) const COLLINEAR_SIN: f32 = 1e-4;

/// The shortest overlap of two flat features that yields two points; a
/// shorter overlap would put the two points on top of each other.
pub(crate) const MIN_CLIP_LENGTH: f32 = LINEAR_SLOP;
