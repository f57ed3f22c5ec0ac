//! A body's mass properties summed over its shapes, and the check that a
//! dynamic body's can be inverted.
//!
//! The solver works with `1/m` and `1/I`, so a dynamic body whose mass or
//! inertia is infinite, zero by underflow, or subnormal (whose inverse is
//! infinite) would turn the first contact it meets into NaN. Such values
//! come from finite, positive inputs at the ends of `f32`'s range (a
//! density of 1e-40, a circle of radius 1e-30 or 1e10 of density 1e38), so
//! they are refused where a body gets its shapes rather than found later.

use carom_shapes::Shape;
use glam::{DVec2, Vec2};

use crate::error::WorldError;

/// Mass, centre of mass (in the body frame) and inertia about that centre
/// of a body's shapes together.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct BodyMass {
    /// kg.
    pub mass: f32,
    pub local_center: Vec2,
    /// kg·m², about `local_center`.
    pub inertia: f32,
    /// Whether some shape has area and a density above zero: the body is
    /// meant to have mass, so a mass of zero is an underflow, not a body of
    /// segments or of zero density.
    massive: bool,
}

impl BodyMass {
    /// Sums the shapes, each with its density in kg/m². Mass and first
    /// moment add up; each shape's inertia moves from its own centroid `c_i`
    /// to the body's centre of mass `c` by the parallel-axis theorem,
    /// `I = Σ (I_i + m_i |c_i − c|²)`. The sums are taken in `f64`, so that
    /// a first moment beyond `f32` (1e30 kg at 1e15 m) still gives the
    /// centre, which is finite; only the totals are rounded to `f32`.
    pub fn of(shapes: &[(Shape, f32)]) -> BodyMass {
        let parts: Vec<_> = shapes
            .iter()
            .map(|&(shape, density)| {
                let part = shape.mass_properties(density);
                let center = part.center.as_dvec2();
                (f64::from(part.mass), center, f64::from(part.inertia))
            })
            .collect();
        let mass: f64 = parts.iter().map(|&(mass, _, _)| mass).sum();
        let first_moment: DVec2 = parts.iter().map(|&(mass, center, _)| mass * center).sum();
        let local_center = if mass > 0.0 {
            first_moment / mass
        } else {
            DVec2::ZERO
        };
        let inertia: f64 = parts
            .iter()
            .map(|&(mass, center, inertia)| {
                inertia + mass * (center - local_center).length_squared()
            })
            .sum();
        let massive = shapes
            .iter()
            .any(|&(shape, density)| density > 0.0 && !matches!(shape, Shape::Segment(_)));
        BodyMass {
            mass: mass as f32,
            local_center: local_center.as_vec2(),
            inertia: inertia as f32,
            massive,
        }
    }

    /// Whether a dynamic body with these properties can be simulated: when
    /// it is meant to have mass, its mass and inertia must be finite and at
    /// least `f32::MIN_POSITIVE`, so that their inverses are finite too. (A
    /// body of segments or of zero density has none; the world gives it
    /// 1 kg and no rotation.) The error names `material.density`, the
    /// value that scales both, and says which way it is off.
    pub fn check_dynamic(&self) -> Result<(), WorldError> {
        if !self.massive {
            return Ok(());
        }
        let field = "material.density";
        // What sets each: the density and the shapes' sizes, and for the
        // inertia also how far apart the shapes lie.
        for (what, value, unit, scale) in [
            ("mass", self.mass, "kg", "the shapes' size"),
            (
                "moment of inertia",
                self.inertia,
                "kg·m²",
                "the shapes' size and spread",
            ),
        ] {
            if !value.is_finite() {
                return Err(WorldError::invalid(
                    field,
                    format!(
                        "gives this dynamic body a {what} beyond f32's range \
                         ({value} {unit}): lower the density or {scale}"
                    ),
                ));
            }
            if value < f32::MIN_POSITIVE {
                return Err(WorldError::invalid(
                    field,
                    format!(
                        "gives this dynamic body a {what} too small to invert \
                         ({} {unit}): raise the density or {scale}",
                        shown(value)
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// A tiny value in scientific notation (`3.1e-40`), zero as `0`.
fn shown(value: f32) -> String {
    if value == 0.0 {
        String::from("0")
    } else {
        format!("{value:e}")
    }
}

#[cfg(test)]
mod tests {
    use carom_shapes::{Circle, Segment, Stadium};
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn what_the_check_passes_the_solver_can_invert(
            radius_power in -40i32..20,
            density_power in -45i32..39,
            x_power in -10i32..16,
            two in any::<bool>(),
        ) {
            // Discs and densities across f32's range, one disc or two
            // apart: whatever passes has a finite mass and inertia with
            // finite inverses.
            let (radius, density) = (10f32.powi(radius_power), 10f32.powi(density_power));
            prop_assume!(radius > 0.0 && density > 0.0 && radius.is_finite() && density.is_finite());
            let Ok(circle) = Circle::new(Vec2::ZERO, radius) else { return Ok(()) };
            let mut shapes = vec![(Shape::from(circle), density)];
            if two {
                let far = Circle::new(Vec2::new(10f32.powi(x_power), 0.0), radius).unwrap();
                shapes.push((far.into(), density));
            }
            let body = BodyMass::of(&shapes);
            if body.check_dynamic().is_ok() {
                for value in [body.mass, body.inertia] {
                    prop_assert!(value.is_finite() && (1.0 / value).is_finite(), "{:?}", body);
                }
            } else {
                let bad = |v: f32| !v.is_finite() || v < f32::MIN_POSITIVE;
                prop_assert!(bad(body.mass) || bad(body.inertia), "{:?}", body);
            }
        }
    }

    fn disc(x: f32, radius: f32) -> Shape {
        Circle::new(Vec2::new(x, 0.0), radius).unwrap().into()
    }

    #[test]
    fn two_discs_add_up_by_the_parallel_axis_theorem() {
        // Two unit discs of density 1 at x = ±2: m = 2π, centre 0, and
        // I = 2 (½ π · 1² + π · 2²) = 9π.
        let body = BodyMass::of(&[(disc(-2.0, 1.0), 1.0), (disc(2.0, 1.0), 1.0)]);
        let pi = std::f32::consts::PI;
        assert!((body.mass - 2.0 * pi).abs() < 1e-5);
        assert!(body.local_center.abs().max_element() < 1e-6);
        assert!((body.inertia - 9.0 * pi).abs() < 1e-4, "{}", body.inertia);
        assert_eq!(body.check_dynamic(), Ok(()));
    }

    #[test]
    fn bodies_without_mass_pass_and_keep_zero() {
        let wall: Shape = Segment::new(Vec2::ZERO, Vec2::X).unwrap().into();
        for shapes in [vec![(wall, 1.0)], vec![(disc(0.0, 1.0), 0.0)]] {
            let body = BodyMass::of(&shapes);
            assert_eq!((body.mass, body.inertia), (0.0, 0.0));
            assert_eq!(body.check_dynamic(), Ok(()));
        }
    }

    #[test]
    fn masses_beyond_f32_are_refused() {
        let tiny = Vec2::new(1e-20, 0.0);
        let pill: Shape = Stadium::new(Vec2::ZERO, tiny, 1e-20).unwrap().into();
        let cases = [
            // The mass underflows to a subnormal number, or to zero.
            ((disc(0.0, 1.0), 1e-40), "mass too small"),
            ((disc(0.0, 1e-30), 1.0), "mass too small"),
            // The mass is fine but the inertia, m r² / 2, underflows.
            ((disc(0.0, 1e-17), 1.0), "inertia too small"),
            ((pill, 1.0), "mass too small"),
            // The mass overflows, or only the inertia does.
            ((disc(0.0, 1e10), 1e38), "mass beyond"),
            ((disc(0.0, 1e15), 1.0), "inertia beyond"),
        ];
        for ((shape, density), expected) in cases {
            let error = BodyMass::of(&[(shape, density)])
                .check_dynamic()
                .unwrap_err();
            let WorldError::Invalid { field, message } = &error else {
                panic!("{error}")
            };
            assert_eq!(*field, "material.density");
            let (what, how) = expected.split_once(' ').unwrap();
            assert!(message.contains(what) && message.contains(how), "{message}");
        }
    }

    #[test]
    fn a_shape_far_out_keeps_the_centre_finite() {
        // m·c overflows f32 for the far disc; its centre does not. Of a
        // unit disc at 3e38 and one at 1e38, the centre lies halfway.
        let body = BodyMass::of(&[(disc(3e38, 1.0), 1.0), (disc(1e38, 1.0), 1.0)]);
        assert_eq!(body.local_center, Vec2::new(2e38, 0.0));
        assert!(!body.inertia.is_finite() && body.check_dynamic().is_err());
    }

    #[test]
    fn a_far_shape_overflows_the_inertia_about_the_centre() {
        // Each disc is fine alone; 1e20 m apart, m d² overflows.
        let body = BodyMass::of(&[(disc(-1e20, 1.0), 1.0), (disc(1e20, 1.0), 1.0)]);
        assert!(body.mass.is_finite() && !body.inertia.is_finite());
        assert!(body.check_dynamic().is_err());
    }
}
