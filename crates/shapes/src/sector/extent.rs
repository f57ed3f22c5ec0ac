//! How thin and how far-reaching a sector is, for continuous collision.

use std::f32::consts::PI;

use glam::Vec2;

use super::Sector;

impl Sector {
    /// The radius of the largest disc inside the sector.
    ///
    /// - Sweep `s ≤ π`: the disc touching both edges has its centre on the
    ///   bisector at `D = ρ / sin(s/2)` from the apex; touching the arc too
    ///   means `D + ρ = r`, so `ρ = r sin(s/2) / (1 + sin(s/2))` (`r/2` at π).
    /// - `π < s < 2π`: each edge runs more than π/2 away from the bisector,
    ///   so a centre on the bisector at `D` is nearest the edges at the apex:
    ///   `ρ = min(D, r − D)`, best at `D = r/2`. No disc does better, as it
    ///   must clear the apex and stay inside the circle: `2ρ ≤ r`. So `r/2`.
    /// - `s = 2π`: the whole disc, `r`.
    pub fn min_extent(&self) -> f32 {
        if self.is_full_disc() {
            self.radius
        } else if self.sweep <= PI {
            let h = (0.5 * self.sweep).sin();
            self.radius * h / (1.0 + h)
        } else {
            0.5 * self.radius
        }
    }

    /// The largest distance from `from` to a point of the sector.
    ///
    /// Distance is convex, so its maximum over each convex piece lies at an
    /// extreme point: the apex or a point of the arc. Over the arc it peaks
    /// at the point facing directly away from `from`, `c + r (c − from)/|c − from|`,
    /// at distance `|from − c| + r` — if that direction is in the sweep;
    /// otherwise it peaks at an arc end.
    pub fn max_extent(&self, from: Vec2) -> f32 {
        let away = self.center - from;
        let to_apex = away.length();
        let to_ends = (self.start_point() - from)
            .length()
            .max((self.end_point() - from).length());
        let farthest = to_apex.max(to_ends);
        if self.covers_direction(away) {
            farthest.max(to_apex + self.radius)
        } else {
            farthest
        }
    }
}

#[cfg(test)]
mod tests {
    use std::f32::consts::{FRAC_PI_2, TAU};

    use super::*;

    fn sector(sweep: f32) -> Sector {
        Sector::new(Vec2::ZERO, 2.0, 0.0, sweep).unwrap()
    }

    #[test]
    fn inscribed_disc_of_a_quarter() {
        // sin 45° = √2/2: ρ = 2 (√2/2) / (1 + √2/2) = 2√2 / (2 + √2).
        let expected = 2.0 * 2f32.sqrt() / (2.0 + 2f32.sqrt());
        assert!((sector(FRAC_PI_2).min_extent() - expected).abs() < 1e-6);
    }

    #[test]
    fn inscribed_disc_of_half_and_wide_sectors_is_half_the_radius() {
        assert!((sector(PI).min_extent() - 1.0).abs() < 1e-6);
        assert_eq!(sector(1.5 * PI).min_extent(), 1.0);
        assert_eq!(sector(TAU - 1e-3).min_extent(), 1.0);
    }

    #[test]
    fn inscribed_disc_of_a_full_disc_is_the_disc() {
        assert_eq!(sector(TAU).min_extent(), 2.0);
    }

    #[test]
    fn thin_sliver_is_thin() {
        let thin = sector(1e-4).min_extent();
        assert!(thin > 0.0 && thin < 1e-4);
    }

    #[test]
    fn max_extent_from_the_apex_is_the_radius() {
        assert_eq!(sector(FRAC_PI_2).max_extent(Vec2::ZERO), 2.0);
        assert_eq!(sector(TAU).max_extent(Vec2::ZERO), 2.0);
    }

    #[test]
    fn max_extent_reaches_across_when_the_far_side_is_in_the_sweep() {
        // From (−1, −1) the far side faces 45°, inside a quarter sector.
        let far = sector(FRAC_PI_2).max_extent(Vec2::new(-1.0, -1.0));
        assert!((far - (2f32.sqrt() + 2.0)).abs() < 1e-6);
    }

    #[test]
    fn max_extent_stops_at_an_arc_end_otherwise() {
        // From (1, 1) the far side faces 225°, outside a quarter sector; the
        // arc ends (2, 0) and (0, 2) are both √2 away, the apex √2 too.
        let far = sector(FRAC_PI_2).max_extent(Vec2::new(1.0, 1.0));
        assert!((far - 2f32.sqrt()).abs() < 1e-6);
        // From (3, 0) the farthest is the end (0, 2): √13.
        let far = sector(FRAC_PI_2).max_extent(Vec2::new(3.0, 0.0));
        assert!((far - 13f32.sqrt()).abs() < 1e-6);
    }
}
