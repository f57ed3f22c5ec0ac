//! Manifolds of many pairs at once, rounded segments four side by side.
//!
//! Colliding two rounded segments (see [`crate::stadium`]) is a chain of
//! short dependent steps: the closest points of the cores, a square root and
//! a division for the normal, then for nearly parallel cores a clip with
//! divisions of its own. One pair at a time, each step waits on the one
//! before and the branches between the cases are a coin toss in a pile, so
//! the processor sits mostly idle. [`ManifoldBatch`] gathers such pairs and
//! works on four at once, one per SIMD lane: every case is computed in every
//! lane and each lane keeps the answer its own case calls for.
//!
//! Each lane performs the same IEEE operations in the same order as the
//! one-pair routine, so a pair gets the same bits either way (the `min` and
//! `max` here may pick a different zero where the two differ only in sign,
//! but those values are only compared). Lanes in a rare case are redone one
//! pair at a time instead: cores that cross, a core of no length, and a gap
//! too small or too large to normalise directly.

use std::mem::MaybeUninit;

use glam::Vec2;
use wide::f32x4;

use crate::capsule::PosedCapsule;
use crate::features::{END_A, END_B, SIDE};
use crate::placed::{collide_placed, PlacedShape};
use crate::stadium::collide_capsules;
use crate::tolerance::{FLAT_SIN, MIN_CLIP_LENGTH, REFERENCE_BIAS, TWO_POINT_TOLERANCE};
use crate::{ContactManifold, FeatureId, ManifoldPoint};

/// Pairs computed side by side.
const LANES: usize = 4;

/// Computes the manifolds of many pairs of placed shapes, the pairs of two
/// rounded segments four at a time; each manifold has the same bits as
/// [`collide_placed`] gives.
///
/// A pair's manifold is written at once or when a later call or
/// [`ManifoldBatch::flush`] completes its group of four, so every slot
/// named in a call holds its manifold once `flush` returns.
///
/// ```
/// use std::mem::MaybeUninit;
/// use carom_narrowphase::{collide_placed, ContactManifold, ManifoldBatch, PlacedShape};
/// use carom_narrowphase::shapes::{Shape, Stadium, Transform, Vec2};
///
/// let log: Shape = Stadium::new(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0), 0.5).unwrap().into();
/// let at = |x: f32, y: f32| PlacedShape::new(&log, &Transform::from_translation(Vec2::new(x, y))).unwrap();
/// let pairs = [(at(0.0, 0.0), at(0.5, 0.9)), (at(0.0, 0.0), at(3.0, 0.0))];
/// let mut out = [MaybeUninit::<ContactManifold>::uninit(); 2];
/// let mut batch = ManifoldBatch::new();
/// for (slot, (a, b)) in pairs.iter().enumerate() {
///     batch.collide(a, b, 0.02, slot, &mut out);
/// }
/// batch.flush(&mut out);
/// for ((a, b), m) in pairs.iter().zip(&out) {
///     // SAFETY: `flush` has written every slot named above.
///     assert_eq!(unsafe { m.assume_init() }, collide_placed(a, b, 0.02));
/// }
/// ```
#[derive(Debug, Clone)]
pub struct ManifoldBatch {
    waiting: [Waiting; LANES],
    len: usize,
}

/// A pair of rounded segments waiting for its group of four.
#[derive(Debug, Clone, Copy)]
struct Waiting {
    slot: usize,
    a: PosedCapsule,
    b: PosedCapsule,
    margin: f32,
    /// Whether the pair was given the other way round (a stadium, then a
    /// segment), so its manifold is swapped back.
    swapped: bool,
}

impl Waiting {
    /// Fills the lanes before any pair arrives. (The lanes of a group that
    /// is flushed before it is full keep earlier pairs, whose answers are
    /// dropped.)
    const IDLE: Waiting = Waiting {
        slot: 0,
        a: PosedCapsule::UNIT,
        b: PosedCapsule::UNIT,
        margin: 0.0,
        swapped: false,
    };
}

impl Default for ManifoldBatch {
    fn default() -> ManifoldBatch {
        ManifoldBatch::new()
    }
}

impl ManifoldBatch {
    /// A batch with no pair waiting.
    pub fn new() -> ManifoldBatch {
        ManifoldBatch {
            waiting: [Waiting::IDLE; LANES],
            len: 0,
        }
    }

    /// Computes `collide_placed(a, b, margin)` into `out[slot]`: now, or
    /// once three more rounded-segment pairs arrive or at
    /// [`ManifoldBatch::flush`].
    ///
    /// # Panics
    /// When `slot` is not an index of `out`.
    #[inline]
    pub fn collide(
        &mut self,
        a: &PlacedShape,
        b: &PlacedShape,
        margin: f32,
        slot: usize,
        out: &mut [MaybeUninit<ContactManifold>],
    ) {
        // `collide_placed` takes a stadium second, turning a stadium–segment
        // pair round; two segments never touch.
        let (a_core, b_core, swapped) = match (a.rounded_segment(), b.rounded_segment()) {
            (Some((a, _)), Some((b, true))) => (a, b, false),
            (Some((a, true)), Some((b, false))) => (b, a, true),
            _ => {
                out[slot].write(collide_placed(a, b, margin));
                return;
            }
        };
        assert!(slot < out.len(), "slot {slot} outside the output");
        self.waiting[self.len] = Waiting {
            slot,
            a: *a_core,
            b: *b_core,
            margin,
            swapped,
        };
        self.len += 1;
        if self.len == LANES {
            self.run(out);
        }
    }

    /// Computes the pairs still waiting.
    pub fn flush(&mut self, out: &mut [MaybeUninit<ContactManifold>]) {
        if self.len > 0 {
            self.run(out);
        }
    }

    /// Computes the waiting group and empties it.
    #[inline(never)]
    fn run(&mut self, out: &mut [MaybeUninit<ContactManifold>]) {
        collide_four(&self.waiting[..self.len], out);
        self.len = 0;
    }
}

/// Four 2D vectors, one per lane.
#[derive(Debug, Clone, Copy)]
struct V2 {
    x: f32x4,
    y: f32x4,
}

impl V2 {
    #[inline(always)]
    fn gather(lanes: &[Waiting; LANES], get: impl Fn(&Waiting) -> Vec2) -> V2 {
        let v = lanes.each_ref().map(get);
        V2 {
            x: f32x4::new(v.map(|v| v.x)),
            y: f32x4::new(v.map(|v| v.y)),
        }
    }

    #[inline(always)]
    fn add(self, o: V2) -> V2 {
        V2 {
            x: self.x + o.x,
            y: self.y + o.y,
        }
    }

    #[inline(always)]
    fn sub(self, o: V2) -> V2 {
        V2 {
            x: self.x - o.x,
            y: self.y - o.y,
        }
    }

    #[inline(always)]
    fn neg(self) -> V2 {
        V2 {
            x: -self.x,
            y: -self.y,
        }
    }

    /// `k · self`.
    #[inline(always)]
    fn scale(self, k: f32x4) -> V2 {
        V2 {
            x: k * self.x,
            y: k * self.y,
        }
    }

    #[inline(always)]
    fn dot(self, o: V2) -> f32x4 {
        self.x * o.x + self.y * o.y
    }

    #[inline(always)]
    fn perp_dot(self, o: V2) -> f32x4 {
        self.x * o.y - self.y * o.x
    }

    /// The vector turned a quarter left, `(−y, x)`.
    #[inline(always)]
    fn perp(self) -> V2 {
        V2 {
            x: -self.y,
            y: self.x,
        }
    }

    /// Per lane: `if mask { yes } else { no }`.
    #[inline(always)]
    fn select(mask: f32x4, yes: V2, no: V2) -> V2 {
        V2 {
            x: pick(mask, yes.x, no.x),
            y: pick(mask, yes.y, no.y),
        }
    }

    #[inline(always)]
    fn lane(self, k: usize) -> Vec2 {
        Vec2::new(self.x.as_array()[k], self.y.as_array()[k])
    }
}

/// Per lane: `if mask { yes } else { no }` (a mask lane is all ones or all
/// zeros).
#[inline(always)]
fn pick(mask: f32x4, yes: f32x4, no: f32x4) -> f32x4 {
    mask.select(yes, no)
}

/// A feature number as a lane value.
#[inline(always)]
fn feature(f: u8) -> f32x4 {
    f32x4::splat(f32::from(f))
}

/// A rounded segment's core, one per lane.
#[derive(Clone, Copy)]
struct Core {
    a: V2,
    b: V2,
    axis: V2,
    length: f32x4,
}

impl Core {
    /// The point of the core nearest `p` and its feature number, as
    /// `foot_on_core` of the one-pair routine finds them.
    #[inline(always)]
    fn foot(&self, p: V2) -> (V2, f32x4) {
        let along = p.sub(self.a).dot(self.axis);
        let before = along.simd_le(f32x4::ZERO);
        let beyond = along.simd_ge(self.length);
        let inside = self.a.add(self.axis.scale(along));
        let point = V2::select(before, self.a, V2::select(beyond, self.b, inside));
        let id = pick(
            before,
            feature(END_A),
            pick(beyond, feature(END_B), feature(SIDE)),
        );
        (point, id)
    }
}

/// The closest points of two cores so far, with their feature numbers.
struct Closest {
    on_a: V2,
    on_b: V2,
    id_a: f32x4,
    id_b: f32x4,
    distance_sq: f32x4,
}

impl Closest {
    /// Takes the candidate in the lanes where it is strictly nearer.
    #[inline(always)]
    fn keep_nearer(&mut self, on_a: V2, on_b: V2, id_a: f32x4, id_b: f32x4, distance_sq: f32x4) {
        let nearer = distance_sq.simd_lt(self.distance_sq);
        self.on_a = V2::select(nearer, on_a, self.on_a);
        self.on_b = V2::select(nearer, on_b, self.on_b);
        self.id_a = pick(nearer, id_a, self.id_a);
        self.id_b = pick(nearer, id_b, self.id_b);
        self.distance_sq = pick(nearer, distance_sq, self.distance_sq);
    }
}

/// The part of a segment from `from` towards `to` that lies within
/// `0..=length` along a reference face, given the ends' positions `s_from`
/// and `s_to` along it: `from` itself, or the point where the segment
/// crosses the slab's nearer boundary (`clip_to_slab` of the one-pair
/// routine).
#[inline(always)]
fn pull_in(from: V2, s_from: f32x4, to: V2, s_to: f32x4, length: f32x4) -> V2 {
    let lerp = |t: f32x4| from.scale(f32x4::ONE - t).add(to.scale(t));
    let below = lerp(-s_from / (s_to - s_from));
    let above = lerp((s_from - length) / (s_from - s_to));
    V2::select(
        s_from.simd_lt(f32x4::ZERO),
        below,
        V2::select(s_from.simd_gt(length), above, from),
    )
}

/// Writes the manifolds of `waiting` (at most four pairs of rounded
/// segments) into their slots of `out`, each as `collide_capsules` gives
/// it; the pairs of a rare case are computed by it.
fn collide_four(waiting: &[Waiting], out: &mut [MaybeUninit<ContactManifold>]) {
    // Lanes beyond the waiting pairs compute the first pair again, unused.
    let pairs: &[Waiting; LANES] =
        &std::array::from_fn(|k| waiting.get(k).copied().unwrap_or(waiting[0]));
    let zero = f32x4::ZERO;
    let half = f32x4::splat(0.5);
    let scalar = |get: fn(&Waiting) -> f32| f32x4::new(pairs.each_ref().map(get));
    let (ra, rb, margin) = (
        scalar(|w| w.a.radius),
        scalar(|w| w.b.radius),
        scalar(|w| w.margin),
    );
    // Everything relative to A's first end, as the one-pair routine works.
    let origin = V2::gather(pairs, |w| w.a.a);
    let to_origin = origin.neg();
    let core = |a: V2, b: V2, axis: V2, length: f32x4| Core {
        a: a.add(to_origin),
        b: b.add(to_origin),
        axis,
        length,
    };
    let a = core(
        origin,
        V2::gather(pairs, |w| w.a.b),
        V2::gather(pairs, |w| w.a.axis),
        scalar(|w| w.a.length),
    );
    let b = core(
        V2::gather(pairs, |w| w.b.a),
        V2::gather(pairs, |w| w.b.b),
        V2::gather(pairs, |w| w.b.axis),
        scalar(|w| w.b.length),
    );

    // Cores that properly cross: each one's ends strictly on both sides of
    // the other's line.
    let (da, db) = (a.b.sub(a.a), b.b.sub(b.a));
    let opposite = |x: f32x4, y: f32x4| {
        (x.simd_gt(zero) & y.simd_lt(zero)) | (x.simd_lt(zero) & y.simd_gt(zero))
    };
    let crossing = opposite(da.perp_dot(b.a.sub(a.a)), da.perp_dot(b.b.sub(a.a)))
        & opposite(db.perp_dot(a.a.sub(b.a)), db.perp_dot(a.b.sub(b.a)));

    // Closest points: the best of the four end-to-core feet, the first on
    // ties.
    let (on_b, id_b) = b.foot(a.a);
    let mut closest = Closest {
        on_a: a.a,
        on_b,
        id_a: feature(END_A),
        id_b,
        distance_sq: length_sq(on_b.sub(a.a)),
    };
    let (on_b, id_b) = b.foot(a.b);
    closest.keep_nearer(a.b, on_b, feature(END_B), id_b, length_sq(on_b.sub(a.b)));
    let (on_a, id_a) = a.foot(b.a);
    closest.keep_nearer(on_a, b.a, id_a, feature(END_A), length_sq(b.a.sub(on_a)));
    let (on_a, id_a) = a.foot(b.b);
    closest.keep_nearer(on_a, b.b, id_a, feature(END_B), length_sq(b.b.sub(on_a)));

    // One point, between the closest points.
    let gap = closest.on_b.sub(closest.on_a);
    let gap_sq = length_sq(gap);
    let plain = gap_sq.simd_ge(f32x4::splat(1e-30)) & gap_sq.simd_le(f32x4::splat(1e30));
    let distance = gap_sq.sqrt();
    let normal = V2 {
        x: gap.x / distance,
        y: gap.y / distance,
    };
    let separation = distance - (ra + rb);
    let point = closest
        .on_a
        .add(normal.scale(ra + half * separation))
        .add(origin);
    let apart = separation.simd_gt(margin);

    // Two points, for nearly parallel cores: the reference face is the side
    // of A or of B facing the other core, whichever the other core's ends
    // clear best (with a bias towards A).
    let flat = a
        .axis
        .perp_dot(b.axis)
        .abs()
        .simd_le(f32x4::splat(FLAT_SIN));
    let (side_a, clear_a) = facing_side(a.axis.perp(), a.a, &b);
    let (side_b, clear_b) = facing_side(b.axis.perp(), b.a, &a);
    let on_a_face = (clear_a + f32x4::splat(REFERENCE_BIAS)).simd_ge(clear_b);
    let n = V2::select(on_a_face, side_a, side_b);
    let along = V2::select(on_a_face, a.axis, b.axis);
    let length = pick(on_a_face, a.length, b.length);
    let start = V2::select(on_a_face, a.a, b.a).add(n.scale(pick(on_a_face, ra, rb)));
    let inward = n.neg();
    let incident_radius = pick(on_a_face, rb, ra);
    let x0 = V2::select(on_a_face, b.a, a.a).add(inward.scale(incident_radius));
    let x1 = V2::select(on_a_face, b.b, a.b).add(inward.scale(incident_radius));
    let s0 = x0.sub(start).dot(along);
    let s1 = x1.sub(start).dot(along);
    let overlap = s0.fast_max(s1).fast_min(length) - s0.fast_min(s1).fast_max(zero);
    let clipped = overlap.simd_ge(f32x4::splat(MIN_CLIP_LENGTH));
    let c0 = pull_in(x0, s0, x1, s1, length);
    let c1 = pull_in(x1, s1, x0, s0, length);
    let separation_0 = c0.sub(start).dot(n);
    let separation_1 = c1.sub(start).dot(n);
    let point_0 = c0.sub(n.scale(half * separation_0)).add(origin);
    let point_1 = c1.sub(n.scale(half * separation_1)).add(origin);
    let deepest = pick(
        separation_1.simd_lt(separation_0),
        separation_1,
        separation_0,
    );
    let agrees = (deepest - separation)
        .abs()
        .simd_le(f32x4::splat(TWO_POINT_TOLERANCE));
    let two = flat & clipped & agrees;

    let all = (1 << LANES) - 1;
    let not = |mask: f32x4| !mask.to_bitmask() & all;
    let masks = Masks {
        rare: crossing.to_bitmask()
            | not(plain)
            | not(a.length.simd_gt(zero))
            | not(b.length.simd_gt(zero)),
        apart: apart.to_bitmask(),
        two: two.to_bitmask(),
        on_a_face: on_a_face.to_bitmask(),
        keep_0: separation_0.simd_le(margin).to_bitmask(),
        keep_1: separation_1.simd_le(margin).to_bitmask(),
    };
    // Each manifold is written field by field into its slot: assembled
    // first and copied, it would be read back while its narrower stores
    // are still on their way, which stalls.
    for (k, w) in waiting.iter().enumerate() {
        let has = |bits: u32| bits & (1 << k) != 0;
        let m = out[w.slot].write(ContactManifold::EMPTY);
        if has(masks.rare) {
            let exact = collide_capsules(&w.a, &w.b, w.margin);
            *m = if w.swapped { exact.swapped() } else { exact };
            continue;
        }
        // A pair that was turned round gets its manifold turned back, as
        // `ContactManifold::swapped` does: the normal reversed (even an
        // empty manifold's) and the ids of its points swapped.
        let facing = |normal: Vec2| if w.swapped { -normal } else { normal };
        let turn = |id: FeatureId| if w.swapped { id.swapped() } else { id };
        if has(masks.apart) {
            m.normal = facing(Vec2::ZERO);
            continue;
        }
        if !has(masks.two) {
            let id = FeatureId::new(
                closest.id_a.as_array()[k] as u8,
                closest.id_b.as_array()[k] as u8,
            );
            m.normal = facing(normal.lane(k));
            m.points[0] = ManifoldPoint {
                point: point.lane(k),
                separation: separation.as_array()[k],
                id: turn(id),
            };
            m.count = 1;
            continue;
        }
        let on_a = has(masks.on_a_face);
        let id = |end: u8| {
            if on_a {
                FeatureId::new(SIDE, end)
            } else {
                FeatureId::new(end, SIDE)
            }
        };
        let first = ManifoldPoint {
            point: point_0.lane(k),
            separation: separation_0.as_array()[k],
            id: id(END_A),
        };
        let second = ManifoldPoint {
            point: point_1.lane(k),
            separation: separation_1.as_array()[k],
            id: id(END_B),
        };
        // Points beyond the margin are dropped, the first moving up.
        let (keep_0, keep_1) = (has(masks.keep_0), has(masks.keep_1));
        let (p0, p1) = if keep_0 {
            (first, second)
        } else {
            (second, second)
        };
        let count = usize::from(keep_0) + usize::from(keep_1);
        m.normal = facing(if on_a { n.lane(k) } else { -n.lane(k) });
        m.points[0] = ManifoldPoint {
            id: if count > 0 { turn(p0.id) } else { p0.id },
            ..p0
        };
        m.points[1] = ManifoldPoint {
            id: if count > 1 { turn(p1.id) } else { p1.id },
            ..p1
        };
        m.count = count;
    }
}

/// Per lane, one bit each: the outcomes that shape a lane's manifold.
struct Masks {
    rare: u32,
    apart: u32,
    two: u32,
    on_a_face: u32,
    keep_0: u32,
    keep_1: u32,
}

#[inline(always)]
fn length_sq(v: V2) -> f32x4 {
    v.dot(v)
}

/// Which side (`n` or `−n`) of the line through `origin` the core `other`
/// lies on, and how far its lower end clears the line on that side; ties go
/// to `n` (`facing_side` of the one-pair routine).
#[inline(always)]
fn facing_side(n: V2, origin: V2, other: &Core) -> (V2, f32x4) {
    let h0 = other.a.sub(origin).dot(n);
    let h1 = other.b.sub(origin).dot(n);
    let above = h0.fast_min(h1);
    let below = (-h0).fast_min(-h1);
    let upper = above.simd_ge(below);
    (V2::select(upper, n, n.neg()), pick(upper, above, below))
}
