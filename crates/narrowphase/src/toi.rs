//! Continuous collision: when two moving shapes first come within a target
//! distance of each other during a step.
//!
//! Each body's motion over the step is a [`Sweep`]: its centre of mass
//! moves in a straight line and its angle changes linearly, as the fraction
//! `t` of the step goes from 0 to 1.
//!
//! **Conservative advancement.** At the current `t`, [`shape_distance`]
//! gives the separation `s` and the normal `n`. No point of B can approach
//! A along `n` faster than `−Δv·n + |Δθ_A|·extent_A + |Δθ_B|·extent_B` per
//! unit of `t` (`Δv` is B's displacement over the step minus A's, `Δθ` each
//! body's turn and `extent` the furthest any of its points lies from its
//! centre of mass). For convex shapes the separation is at least the gap
//! along any fixed direction, so the shapes cannot come within `target`
//! before `t + (s − target) / bound`, and `t` can jump there. The loop stops
//! when the separation is within a small tolerance of the target (a hit),
//! when the bound shows they never get that close (separated), or after 30
//! steps (failed, with the last safe `t`). A sector wider than π is not
//! convex, so for pairs with one the full relative speed `|Δv|` replaces
//! `−Δv·n`.
//!
//! **Exact path.** A circle and a circle, segment or stadium that both move
//! without turning are solved in closed form: the circle's centre moves along
//! a straight line relative to the other shape, and it first comes within
//! `target` when that line enters the other's core inflated by both radii
//! and the target (the segment–circle offset again, swept).

use std::f32::consts::PI;

use carom_shapes::{Rot, Shape, Transform};
use glam::Vec2;

use crate::distance::shape_distance;
use crate::ray_capsule::ray_cast_capsule;
use crate::segment_circle::segment_circle_offset;
use crate::tolerance::LINEAR_SLOP;

/// The most distance evaluations conservative advancement makes.
const MAX_ITERATIONS: usize = 30;

/// How close above the target the separation must come to count as a hit.
const TOLERANCE: f32 = 0.25 * LINEAR_SLOP;

/// A body's motion over one step, for continuous collision.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Sweep {
    /// The centre of mass in the body's own frame.
    pub local_center: Vec2,
    /// World centre of mass at the start of the step.
    pub c1: Vec2,
    /// World centre of mass at the end of the step.
    pub c2: Vec2,
    /// Angle at the start of the step.
    pub a1: f32,
    /// Angle at the end of the step.
    pub a2: f32,
}

impl Sweep {
    /// The body's transform at fraction `t` of the step: rotation by the
    /// interpolated angle, placed so that the centre of mass sits at the
    /// interpolated centre (translation `c − R·local_center`).
    pub fn transform_at(&self, t: f32) -> Transform {
        let rotation = Rot::from_angle((1.0 - t) * self.a1 + t * self.a2);
        let center = (1.0 - t) * self.c1 + t * self.c2;
        Transform {
            translation: center - rotation.rotate(self.local_center),
            rotation,
        }
    }
}

/// How a time-of-impact query ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToiState {
    /// The shapes come within the target at `fraction`.
    Hit,
    /// The shapes stay further apart than the target for the whole step;
    /// `fraction` is 1.
    Separated,
    /// The shapes already overlap at the start; `fraction` is 0.
    Overlapped,
    /// The iteration limit was reached first; `fraction` is the furthest
    /// time known to be safe.
    Failed,
}

/// The result of [`time_of_impact`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeOfImpact {
    /// Fraction of the step, in [0, 1].
    pub fraction: f32,
    /// How the query ended.
    pub state: ToiState,
}

/// The first fraction of the step at which shapes `a` and `b`, moving along
/// their sweeps, come within `target` (clamped to ≥ 0) of each other.
///
/// Two segments are walls, which never collide: they are always
/// [`ToiState::Separated`].
///
/// The shapes never overlap by more than the tolerance below the target at
/// the fraction returned. The result is deterministic: the same input gives
/// the same fraction, bit for bit.
pub fn time_of_impact(
    a: &Shape,
    sweep_a: &Sweep,
    b: &Shape,
    sweep_b: &Sweep,
    target: f32,
) -> TimeOfImpact {
    if let (Shape::Segment(_), Shape::Segment(_)) = (a, b) {
        // Walls never collide with walls.
        return TimeOfImpact {
            fraction: 1.0,
            state: ToiState::Separated,
        };
    }
    let target = target.max(0.0);
    translating_circle(a, sweep_a, b, sweep_b, target)
        .unwrap_or_else(|| conservative_advancement(a, sweep_a, b, sweep_b, target))
}

/// The closed-form answer for a circle against a circle, segment or stadium
/// when neither turns; `None` for any other case.
fn translating_circle(
    a: &Shape,
    sweep_a: &Sweep,
    b: &Shape,
    sweep_b: &Sweep,
    target: f32,
) -> Option<TimeOfImpact> {
    if sweep_a.a1 != sweep_a.a2 || sweep_b.a1 != sweep_b.a2 {
        return None;
    }
    let (circle, circle_sweep, other, other_sweep) = match (a, b) {
        (Shape::Circle(c), _) => (c, sweep_a, b, sweep_b),
        (_, Shape::Circle(c)) => (c, sweep_b, a, sweep_a),
        _ => return None,
    };
    let (core, core_radius) = rounded_core(other, &other_sweep.transform_at(0.0))?;
    let center = circle_sweep.transform_at(0.0).apply(circle.center());
    let reach = core_radius + circle.radius();
    let start = segment_circle_offset(core[0], core[1], center, reach);
    let at = |fraction, state| Some(TimeOfImpact { fraction, state });
    if start.separation < 0.0 {
        return at(0.0, ToiState::Overlapped);
    }
    if start.separation <= target {
        return at(0.0, ToiState::Hit);
    }
    let motion = (circle_sweep.c2 - circle_sweep.c1) - (other_sweep.c2 - other_sweep.c1);
    match ray_cast_capsule(center, motion, core[0], core[1], reach + target) {
        Some(fraction) => at(fraction, ToiState::Hit),
        None => at(1.0, ToiState::Separated),
    }
}

/// A circle, segment or stadium as its world core and radius.
fn rounded_core(shape: &Shape, xf: &Transform) -> Option<([Vec2; 2], f32)> {
    match shape {
        Shape::Circle(c) => {
            let center = xf.apply(c.center());
            Some(([center, center], c.radius()))
        }
        Shape::Segment(s) => Some(([xf.apply(s.a()), xf.apply(s.b())], 0.0)),
        Shape::Stadium(s) => Some(([xf.apply(s.a()), xf.apply(s.b())], s.radius())),
        Shape::Sector(_) => None,
    }
}

fn conservative_advancement(
    a: &Shape,
    sweep_a: &Sweep,
    b: &Shape,
    sweep_b: &Sweep,
    target: f32,
) -> TimeOfImpact {
    let relative_motion = (sweep_b.c2 - sweep_b.c1) - (sweep_a.c2 - sweep_a.c1);
    let turning = (sweep_a.a2 - sweep_a.a1).abs() * max_extent(a, sweep_a.local_center)
        + (sweep_b.a2 - sweep_b.a1).abs() * max_extent(b, sweep_b.local_center);
    let convex = is_convex(a) && is_convex(b);
    let mut t = 0.0;
    for iteration in 0..MAX_ITERATIONS {
        let distance = shape_distance(a, &sweep_a.transform_at(t), b, &sweep_b.transform_at(t));
        if iteration == 0 && distance.separation < 0.0 {
            return TimeOfImpact {
                fraction: 0.0,
                state: ToiState::Overlapped,
            };
        }
        if distance.separation <= target + TOLERANCE {
            return TimeOfImpact {
                fraction: t,
                state: ToiState::Hit,
            };
        }
        let linear = if convex {
            -relative_motion.dot(distance.normal)
        } else {
            relative_motion.length()
        };
        let closing = linear + turning;
        if closing <= 0.0 {
            break;
        }
        t += (distance.separation - target) / closing;
        if t >= 1.0 {
            break;
        }
        if iteration + 1 == MAX_ITERATIONS {
            return TimeOfImpact {
                fraction: t,
                state: ToiState::Failed,
            };
        }
    }
    TimeOfImpact {
        fraction: 1.0,
        state: ToiState::Separated,
    }
}

/// The furthest any point of `shape` lies from `center` (in the shape's frame).
fn max_extent(shape: &Shape, center: Vec2) -> f32 {
    match shape {
        Shape::Circle(c) => (c.center() - center).length() + c.radius(),
        Shape::Segment(s) => (s.a() - center).length().max((s.b() - center).length()),
        Shape::Stadium(s) => (s.a() - center).length().max((s.b() - center).length()) + s.radius(),
        Shape::Sector(s) => (s.center() - center).length() + s.radius(),
    }
}

/// Whether the shape is convex: everything but a sector wider than π and
/// narrower than a full turn.
fn is_convex(shape: &Shape) -> bool {
    match shape {
        Shape::Sector(s) => s.sweep() <= PI || s.sweep() >= std::f32::consts::TAU,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use carom_shapes::{Circle, Sector, Segment, Stadium};

    use super::*;

    fn still(at: Vec2) -> Sweep {
        Sweep {
            c1: at,
            c2: at,
            ..Sweep::default()
        }
    }

    fn bullet() -> Shape {
        Circle::new(Vec2::ZERO, 0.1).unwrap().into()
    }

    fn thin_wall() -> Shape {
        Segment::new(Vec2::new(3.0, -1.0), Vec2::new(3.0, 1.0))
            .unwrap()
            .into()
    }

    /// A circle at 300 m/s over a 1/60 s step: 5 m, towards a wall 3 m away.
    fn fast_sweep(turn: f32) -> Sweep {
        Sweep {
            local_center: Vec2::ZERO,
            c1: Vec2::ZERO,
            c2: Vec2::new(300.0 / 60.0, 0.0),
            a1: 0.0,
            a2: turn,
        }
    }

    #[test]
    fn fast_circle_hits_a_thin_wall_exactly() {
        let target = 0.005;
        let toi = time_of_impact(
            &bullet(),
            &fast_sweep(0.0),
            &thin_wall(),
            &still(Vec2::ZERO),
            target,
        );
        assert_eq!(toi.state, ToiState::Hit);
        // Centre stops at 3 − 0.1 − 0.005 = 2.895 m of 5 m.
        assert!((toi.fraction - 0.579).abs() < 1e-3, "{}", toi.fraction);
        // The same from the wall's side.
        let toi = time_of_impact(
            &thin_wall(),
            &still(Vec2::ZERO),
            &bullet(),
            &fast_sweep(0.0),
            target,
        );
        assert!((toi.fraction - 0.579).abs() < 1e-3);
    }

    #[test]
    fn fast_spinning_circle_hits_by_advancement() {
        let target = 0.005;
        let toi = time_of_impact(
            &bullet(),
            &fast_sweep(3.0),
            &thin_wall(),
            &still(Vec2::ZERO),
            target,
        );
        assert_eq!(toi.state, ToiState::Hit);
        assert!((toi.fraction - 0.579).abs() < 1e-3, "{}", toi.fraction);
        let xf = fast_sweep(3.0).transform_at(toi.fraction);
        let d = shape_distance(&bullet(), &xf, &thin_wall(), &Transform::IDENTITY);
        assert!(d.separation >= target - 1e-4 && d.separation <= target + TOLERANCE);
    }

    #[test]
    fn passing_by_is_separated() {
        let high = Sweep {
            c1: Vec2::new(0.0, 1.5),
            c2: Vec2::new(5.0, 1.5),
            ..Sweep::default()
        };
        let toi = time_of_impact(&bullet(), &high, &thin_wall(), &still(Vec2::ZERO), 0.0);
        assert_eq!(
            toi,
            TimeOfImpact {
                fraction: 1.0,
                state: ToiState::Separated
            }
        );
        let spinning = Sweep { a2: 1.0, ..high };
        let toi = time_of_impact(&bullet(), &spinning, &thin_wall(), &still(Vec2::ZERO), 0.0);
        assert_eq!(toi.state, ToiState::Separated);
    }

    #[test]
    fn overlapping_at_the_start() {
        let toi = time_of_impact(
            &bullet(),
            &still(Vec2::new(3.05, 0.0)),
            &thin_wall(),
            &still(Vec2::ZERO),
            0.0,
        );
        assert_eq!(
            toi,
            TimeOfImpact {
                fraction: 0.0,
                state: ToiState::Overlapped
            }
        );
    }

    #[test]
    fn swinging_stadium_hits_a_ball() {
        // A 2 m stick turning about its centre by a quarter turn; a ball sits
        // where the stick's tip passes after 30°.
        let stick: Shape = Stadium::new(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0), 0.05)
            .unwrap()
            .into();
        let swing = Sweep {
            a2: PI / 2.0,
            ..Sweep::default()
        };
        let angle = PI / 6.0;
        let ball_at =
            0.8 * Vec2::new(angle.cos(), angle.sin()) + 0.16 * Vec2::new(-angle.sin(), angle.cos());
        let ball: Shape = Circle::new(Vec2::ZERO, 0.1).unwrap().into();
        let toi = time_of_impact(&stick, &swing, &ball, &still(ball_at), 0.0);
        assert_eq!(toi.state, ToiState::Hit);
        // The stick's side reaches the ball when the angle to it is asin(0.15/√(0.8²+0.16²)) short of 30° + atan(0.2).
        let ball_angle = angle + (0.16f32 / 0.8).atan();
        let contact_angle = ball_angle - (0.15 / ball_at.length()).asin();
        assert!(
            (toi.fraction - contact_angle / (PI / 2.0)).abs() < 2e-3,
            "{}",
            toi.fraction
        );
    }

    #[test]
    fn runaway_spin_gives_up_safely() {
        // A 10 m stick spinning 20 rad past a ball its tip never reaches.
        let stick: Shape = Stadium::new(Vec2::new(-5.0, 0.0), Vec2::new(5.0, 0.0), 0.1)
            .unwrap()
            .into();
        let spin = Sweep {
            a2: 20.0,
            ..Sweep::default()
        };
        let ball: Shape = Circle::new(Vec2::ZERO, 0.5).unwrap().into();
        let ball_sweep = still(Vec2::new(6.2, 0.0));
        let toi = time_of_impact(&stick, &spin, &ball, &ball_sweep, 0.0);
        assert_eq!(toi.state, ToiState::Failed);
        assert!(toi.fraction > 0.0 && toi.fraction < 1.0);
        let d = shape_distance(
            &stick,
            &spin.transform_at(toi.fraction),
            &ball,
            &ball_sweep.transform_at(0.0),
        );
        assert!(d.separation > 0.0);
    }

    #[test]
    fn sweep_places_the_centre_of_mass() {
        let sweep = Sweep {
            local_center: Vec2::new(1.0, 0.0),
            c1: Vec2::new(0.0, 0.0),
            c2: Vec2::new(2.0, 0.0),
            a1: 0.0,
            a2: PI,
        };
        let xf = sweep.transform_at(0.5);
        assert!((xf.apply(Vec2::new(1.0, 0.0)) - Vec2::new(1.0, 0.0)).length() < 1e-6);
        assert!((xf.rotation.angle() - PI / 2.0).abs() < 1e-6);
        assert!((xf.apply(Vec2::ZERO) - Vec2::new(1.0, -1.0)).length() < 1e-6);
    }

    #[test]
    fn non_convex_sector_uses_the_full_speed() {
        let pacman: Shape = Sector::new(Vec2::ZERO, 1.0, 0.25 * PI, 1.5 * PI)
            .unwrap()
            .into();
        assert!(!is_convex(&pacman));
        let incoming = Sweep {
            c1: Vec2::new(-4.0, 0.0),
            c2: Vec2::new(0.0, 0.0),
            ..Sweep::default()
        };
        let toi = time_of_impact(&pacman, &still(Vec2::ZERO), &bullet(), &incoming, 0.0);
        assert_eq!(toi.state, ToiState::Hit);
        // The ball meets the back of the arc at x = −1.1.
        assert!((toi.fraction - 2.9 / 4.0).abs() < 1e-3, "{}", toi.fraction);
    }
}
