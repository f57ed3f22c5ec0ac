//! World settings: gravity, time step and substeps, contact softness and
//! speeds, continuous collision and sleeping, validated field by field.

use glam::Vec2;

use crate::collider::MAX_SHAPE_REACH;
use crate::error::{check_finite, check_non_negative, WorldError};

/// How a world steps. Every field has a documented default
/// ([`WorldSettings::default`]); units are SI.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorldSettings {
    /// Acceleration applied to every dynamic body, m/s². Default (0, −10).
    pub gravity: Vec2,
    /// The fixed step, seconds. Default 1/60.
    pub dt: f32,
    /// Solver substeps per step, 1..=64. Default 4.
    pub substeps: u32,
    /// Stiffness of contacts as a spring frequency, Hz. Default 60. It is
    /// capped at a quarter of the substep rate to stay stable; contacts with
    /// static or kinematic bodies use twice this frequency. A contact
    /// carrying a load `F` settles at an overlap of about `F / (m ω²)` with
    /// `ω = 2πf`, so a stiffer contact keeps deep piles from sinking into
    /// each other.
    pub contact_hertz: f32,
    /// Damping ratio of the contact spring (dimensionless). Default 10:
    /// strongly over-damped, so overlap is removed without bounce.
    pub contact_damping_ratio: f32,
    /// Largest speed, m/s, at which overlap is pushed out. Default 3.
    pub contact_push_speed: f32,
    /// Approach speed, m/s, below which restitution is ignored. Default 1.
    pub restitution_threshold: f32,
    /// Pairs closer than this, m, get speculative contact points so that a
    /// body stops exactly at contact within the step. Default 0.02; at most
    /// [`MAX_SHAPE_REACH`](crate::MAX_SHAPE_REACH).
    pub speculative_distance: f32,
    /// Linear speed clamp, m/s, a guard against blow-ups. Default 400.
    pub max_linear_speed: f32,
    /// Whether fast dynamic bodies are swept against static and kinematic
    /// shapes so that they cannot tunnel. Default true.
    pub continuous: bool,
    /// Whether bodies at rest may sleep. Default true. A group of dynamic
    /// bodies connected by touching contacts (an island) falls asleep when
    /// every body in it has moved slower than the sleep speeds for
    /// `time_to_sleep`; a sleeping body costs nothing in the solver and is
    /// woken when a moving body touches it or the program changes it.
    pub sleep: bool,
    /// Seconds an island must stay slow before it sleeps. Default 0.5.
    pub time_to_sleep: f32,
    /// A body moving faster than this, m/s, is not at rest. Default 0.05.
    pub sleep_linear_speed: f32,
    /// A body turning faster than this, rad/s, is not at rest. Default 0.05
    /// (about 3°/s).
    pub sleep_angular_speed: f32,
    /// Most fixed steps one [`crate::World::advance`] call may run, so that a
    /// slow frame cannot make the next one slower (the spiral of death).
    /// Default 8.
    pub max_steps_per_advance: u32,
}

impl Default for WorldSettings {
    fn default() -> Self {
        WorldSettings {
            gravity: Vec2::new(0.0, -10.0),
            dt: 1.0 / 60.0,
            substeps: 4,
            contact_hertz: 60.0,
            contact_damping_ratio: 10.0,
            contact_push_speed: 3.0,
            restitution_threshold: 1.0,
            speculative_distance: 0.02,
            max_linear_speed: 400.0,
            continuous: true,
            sleep: true,
            time_to_sleep: 0.5,
            sleep_linear_speed: 0.05,
            sleep_angular_speed: 0.05,
            max_steps_per_advance: 8,
        }
    }
}

/// Most a body may turn in one substep, radians: the solver's clamp on
/// spin, as `max_linear_speed` is on speed. A body turning faster is
/// blowing up; the rotation series a substep turns bodies by is also only
/// accurate up to about this angle.
pub(crate) const MAX_TURN_PER_SUBSTEP: f32 = 0.25 * std::f32::consts::PI;

impl WorldSettings {
    /// The angular speed clamp, rad/s: a turn of π/4 per substep, the most
    /// the solver lets a body turn in one (188 rad/s at the default 1/60 s
    /// and 4 substeps).
    pub fn max_angular_speed(&self) -> f32 {
        MAX_TURN_PER_SUBSTEP * self.substeps as f32 / self.dt
    }

    /// Checks every field; the world refuses settings that would make it
    /// produce NaN or hang.
    pub fn validate(&self) -> Result<(), WorldError> {
        check_finite("gravity.x", self.gravity.x)?;
        check_finite("gravity.y", self.gravity.y)?;
        check_finite("dt", self.dt)?;
        if self.dt <= 0.0 {
            return Err(WorldError::invalid(
                "dt",
                format!("must be > 0, got {}", self.dt),
            ));
        }
        if !(1..=64).contains(&self.substeps) {
            return Err(WorldError::invalid(
                "substeps",
                format!("must lie in 1..=64, got {}", self.substeps),
            ));
        }
        check_positive("contact_hertz", self.contact_hertz)?;
        check_non_negative("contact_damping_ratio", self.contact_damping_ratio)?;
        check_positive("contact_push_speed", self.contact_push_speed)?;
        check_non_negative("restitution_threshold", self.restitution_threshold)?;
        check_non_negative("speculative_distance", self.speculative_distance)?;
        // Half of it widens every box; beyond the reach of any shape it
        // means nothing, and near f32::MAX the boxes overflow.
        if self.speculative_distance > MAX_SHAPE_REACH {
            return Err(WorldError::invalid(
                "speculative_distance",
                format!(
                    "must be at most {MAX_SHAPE_REACH:e} m, the farthest a shape may reach, got {:e}",
                    self.speculative_distance
                ),
            ));
        }
        check_positive("max_linear_speed", self.max_linear_speed)?;
        check_non_negative("time_to_sleep", self.time_to_sleep)?;
        check_non_negative("sleep_linear_speed", self.sleep_linear_speed)?;
        check_non_negative("sleep_angular_speed", self.sleep_angular_speed)?;
        if self.max_steps_per_advance == 0 {
            return Err(WorldError::invalid(
                "max_steps_per_advance",
                "must be >= 1, got 0",
            ));
        }
        Ok(())
    }
}

fn check_positive(field: &'static str, value: f32) -> Result<(), WorldError> {
    check_finite(field, value)?;
    if value > 0.0 {
        Ok(())
    } else {
        Err(WorldError::invalid(
            field,
            format!("must be > 0, got {value}"),
        ))
    }
}
