//! Manifolds of many pairs at once, rounded segments eight side by side.
//!
//! Colliding two rounded segments (see [`crate::stadium`]) is a chain of
//! short dependent steps: the closest points of the cores, a square root and
//! a division for the normal, then for nearly parallel cores a clip with
//! divisions of its own. One pair at a time, each step waits on the one
//! before and the branches between the cases are a coin toss in a pile, so
//! the processor sits mostly idle. [`ManifoldBatch`] gathers such pairs and
//! works on eight at once, one per SIMD lane (see [`crate::lanes`]): every
//! case is computed in every lane and each lane keeps the answer its own
//! case calls for.
//!
//! Each lane performs the same IEEE operations in the same order as the
//! one-pair routine, so a pair gets the same bits either way (the `min` and
//! `max` here may pick a different zero where the two differ only in sign,
//! but those values are only compared). Lanes in a rare case are redone one
//! pair at a time instead: cores that cross, a core of no length, and a gap
//! too small or too large to normalise directly.

use std::mem::MaybeUninit;

use glam::Vec2;
use wide::f32x8;

use crate::capsule::PosedCapsule;
use crate::features::{END_A, END_B, SIDE};
#[cfg(target_arch = "x86_64")]
use crate::lanes::Avx8;
use crate::lanes::{Lanes, LANES};
use crate::placed::{collide_placed, PlacedShape};
use crate::stadium::collide_capsules;
use crate::tolerance::{FLAT_SIN, MIN_CLIP_LENGTH, REFERENCE_BIAS, TWO_POINT_TOLERANCE};
use crate::{ContactManifold, FeatureId, ManifoldPoint};

/// Computes the manifolds of many pairs of placed shapes, the pairs of two
/// rounded segments eight at a time; each manifold has the same bits as
/// [`collide_placed`] gives.
///
/// A pair's manifold is written at once or when a later call or
/// [`ManifoldBatch::flush`] completes its group of eight, so every slot
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
pub struct ManifoldBatch<'a> {
    waiting: [Waiting<'a>; LANES],
    len: usize,
    /// Whether the processor has AVX2, for eight lanes in one register.
    avx2: bool,
}

/// A pair of rounded segments waiting for its group of eight.
#[derive(Debug, Clone, Copy)]
struct Waiting<'a> {
    slot: usize,
    a: &'a PosedCapsule,
    b: &'a PosedCapsule,
    margin: f32,
    /// Whether the pair was given the other way round (a stadium, then a
    /// segment), so its manifold is swapped back.
    swapped: bool,
}

impl Waiting<'_> {
    /// Fills the batch's places before any pair arrives; only waiting pairs
    /// are ever computed (a group flushed before it is full repeats its
    /// first pair in the spare lanes, and drops their answers).
    const IDLE: Waiting<'static> = Waiting {
        slot: 0,
        a: &PosedCapsule::UNIT,
        b: &PosedCapsule::UNIT,
        margin: 0.0,
        swapped: false,
    };
}

impl Default for ManifoldBatch<'_> {
    fn default() -> Self {
        ManifoldBatch::new()
    }
}

impl<'a> ManifoldBatch<'a> {
    /// A batch with no pair waiting.
    pub fn new() -> Self {
        ManifoldBatch {
            waiting: [Waiting::IDLE; LANES],
            len: 0,
            #[cfg(target_arch = "x86_64")]
            avx2: std::arch::is_x86_feature_detected!("avx2"),
            #[cfg(not(target_arch = "x86_64"))]
            avx2: false,
        }
    }

    /// Computes `collide_placed(a, b, margin)` into `out[slot]`: now, or
    /// once seven more rounded-segment pairs arrive or at
    /// [`ManifoldBatch::flush`].
    ///
    /// # Panics
    /// When `slot` is not an index of `out`.
    #[inline]
    pub fn collide(
        &mut self,
        a: &'a PlacedShape,
        b: &'a PlacedShape,
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
            a: a_core,
            b: b_core,
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
        let waiting = &self.waiting[..self.len];
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            // SAFETY: the processor has AVX2.
            unsafe { collide_group_avx2(waiting, out) };
            self.len = 0;
            return;
        }
        collide_group::<f32x8>(waiting, out);
        self.len = 0;
    }
}

/// Eight 2D vectors, one per lane.
#[derive(Clone, Copy)]
struct V2<L> {
    x: L,
    y: L,
}

impl<L: Lanes> V2<L> {
    #[inline(always)]
    fn add(self, o: V2<L>) -> V2<L> {
        V2 {
            x: self.x + o.x,
            y: self.y + o.y,
        }
    }

    #[inline(always)]
    fn sub(self, o: V2<L>) -> V2<L> {
        V2 {
            x: self.x - o.x,
            y: self.y - o.y,
        }
    }

    #[inline(always)]
    fn neg(self) -> V2<L> {
        V2 {
            x: -self.x,
            y: -self.y,
        }
    }

    /// `k · self`.
    #[inline(always)]
    fn scale(self, k: L) -> V2<L> {
        V2 {
            x: k * self.x,
            y: k * self.y,
        }
    }

    #[inline(always)]
    fn dot(self, o: V2<L>) -> L {
        self.x * o.x + self.y * o.y
    }

    #[inline(always)]
    fn perp_dot(self, o: V2<L>) -> L {
        self.x * o.y - self.y * o.x
    }

    /// The vector turned a quarter left, `(−y, x)`.
    #[inline(always)]
    fn perp(self) -> V2<L> {
        V2 {
            x: -self.y,
            y: self.x,
        }
    }

    #[inline(always)]
    fn length_sq(self) -> L {
        self.dot(self)
    }

    /// Per lane of `mask`: `if mask { yes } else { no }`.
    #[inline(always)]
    fn select(mask: L, yes: V2<L>, no: V2<L>) -> V2<L> {
        V2 {
            x: mask.select(yes.x, no.x),
            y: mask.select(yes.y, no.y),
        }
    }

    /// All lanes, as vectors.
    #[inline(always)]
    fn to_array(self) -> [Vec2; LANES] {
        let (x, y) = (self.x.to_array(), self.y.to_array());
        std::array::from_fn(|k| Vec2::new(x[k], y[k]))
    }
}

/// A feature number as a lane value.
#[inline(always)]
fn feature<L: Lanes>(f: u8) -> L {
    L::splat(f32::from(f))
}

/// A rounded segment's core, one per lane.
#[derive(Clone, Copy)]
struct Core<L> {
    a: V2<L>,
    b: V2<L>,
    axis: V2<L>,
    length: L,
}

impl<L: Lanes> Core<L> {
    /// The point of the core nearest `p` and its feature number, as
    /// `foot_on_core` of the one-pair routine finds them.
    #[inline(always)]
    fn foot(&self, p: V2<L>) -> (V2<L>, L) {
        let along = p.sub(self.a).dot(self.axis);
        let before = along.le(L::splat(0.0));
        let beyond = along.ge(self.length);
        let inside = self.a.add(self.axis.scale(along));
        let point = V2::select(before, self.a, V2::select(beyond, self.b, inside));
        let id = before.select(feature(END_A), beyond.select(feature(END_B), feature(SIDE)));
        (point, id)
    }
}

/// The closest points of two cores so far, with their feature numbers.
struct Closest<L> {
    on_a: V2<L>,
    on_b: V2<L>,
    id_a: L,
    id_b: L,
    distance_sq: L,
}

impl<L: Lanes> Closest<L> {
    /// The closest points of cores `a` and `b` that do not cross: the best
    /// of the four end-to-core feet, the first on ties (the one-pair
    /// routine's order).
    #[inline(always)]
    fn of(a: &Core<L>, b: &Core<L>) -> Closest<L> {
        let (on_b, id_b) = b.foot(a.a);
        let mut closest = Closest {
            on_a: a.a,
            on_b,
            id_a: feature(END_A),
            id_b,
            distance_sq: on_b.sub(a.a).length_sq(),
        };
        let (on_b, id_b) = b.foot(a.b);
        let d = on_b.sub(a.b).length_sq();
        closest.keep_nearer(a.b, on_b, feature(END_B), id_b, d);
        let (on_a, id_a) = a.foot(b.a);
        let d = b.a.sub(on_a).length_sq();
        closest.keep_nearer(on_a, b.a, id_a, feature(END_A), d);
        let (on_a, id_a) = a.foot(b.b);
        let d = b.b.sub(on_a).length_sq();
        closest.keep_nearer(on_a, b.b, id_a, feature(END_B), d);
        closest
    }

    /// Takes the candidate in the lanes where it is strictly nearer.
    #[inline(always)]
    fn keep_nearer(&mut self, on_a: V2<L>, on_b: V2<L>, id_a: L, id_b: L, distance_sq: L) {
        let nearer = distance_sq.lt(self.distance_sq);
        self.on_a = V2::select(nearer, on_a, self.on_a);
        self.on_b = V2::select(nearer, on_b, self.on_b);
        self.id_a = nearer.select(id_a, self.id_a);
        self.id_b = nearer.select(id_b, self.id_b);
        self.distance_sq = nearer.select(distance_sq, self.distance_sq);
    }
}

/// The part of a segment from `from` towards `to` that lies within
/// `0..=length` along a reference face, given the ends' positions `s_from`
/// and `s_to` along it: `from` itself, or the point where the segment
/// crosses the slab's nearer boundary (`clip_to_slab` of the one-pair
/// routine). The fraction's numerator and denominator are picked before
/// dividing, which gives the same quotient as dividing both ways and
/// picking after, with one division instead of two.
#[inline(always)]
fn pull_in<L: Lanes>(from: V2<L>, s_from: L, to: V2<L>, s_to: L, length: L) -> V2<L> {
    let below = s_from.lt(L::splat(0.0));
    let above = s_from.gt(length);
    let t = below.select(-s_from, s_from - length) / below.select(s_to - s_from, s_from - s_to);
    let moved = from.scale(L::splat(1.0) - t).add(to.scale(t));
    V2::select(below.or(above), moved, from)
}

/// [`collide_group`] on AVX registers.
///
/// # Safety
/// The processor must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn collide_group_avx2(waiting: &[Waiting], out: &mut [MaybeUninit<ContactManifold>]) {
    crate::lanes::align_stack_frame();
    collide_group::<Avx8>(waiting, out);
}

/// Writes the manifolds of `waiting` (at most eight pairs of rounded
/// segments) into their slots of `out`, each as `collide_capsules` gives
/// it; the pairs of a rare case are computed by it.
#[inline(always)]
fn collide_group<L: Lanes>(waiting: &[Waiting], out: &mut [MaybeUninit<ContactManifold>]) {
    // Lanes beyond the waiting pairs compute the first pair again, unused.
    let pairs: &[Waiting; LANES] =
        &std::array::from_fn(|k| waiting.get(k).copied().unwrap_or(waiting[0]));
    let zero = L::splat(0.0);
    let half = L::splat(0.5);
    let margin = L::from_array(pairs.each_ref().map(|w| w.margin));
    // Each capsule's eight numbers into lanes (see `PosedCapsule::as_floats`).
    let [aax, aay, abx, aby, ra, a_axis_x, a_axis_y, a_length] =
        L::transpose(pairs.each_ref().map(|w| w.a.as_floats()));
    let [bax, bay, bbx, bby, rb, b_axis_x, b_axis_y, b_length] =
        L::transpose(pairs.each_ref().map(|w| w.b.as_floats()));
    // Everything relative to A's first end, as the one-pair routine works.
    let origin = V2 { x: aax, y: aay };
    let to_origin = origin.neg();
    let core = |a: V2<L>, b: V2<L>, axis: V2<L>, length: L| Core {
        a: a.add(to_origin),
        b: b.add(to_origin),
        axis,
        length,
    };
    let a = core(
        origin,
        V2 { x: abx, y: aby },
        V2 {
            x: a_axis_x,
            y: a_axis_y,
        },
        a_length,
    );
    let b = core(
        V2 { x: bax, y: bay },
        V2 { x: bbx, y: bby },
        V2 {
            x: b_axis_x,
            y: b_axis_y,
        },
        b_length,
    );

    let crossing = crossing(&a, &b);
    let closest = Closest::of(&a, &b);

    // One point, between the closest points.
    let gap = closest.on_b.sub(closest.on_a);
    let gap_sq = gap.length_sq();
    let plain = gap_sq.ge(L::splat(1e-30)).and(gap_sq.le(L::splat(1e30)));
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
    let apart = separation.gt(margin);

    let flat = FlatLanes::of(&a, &b, ra, rb, origin, separation);

    let all = (1 << LANES) - 1;
    let not = |mask: L| !mask.bits() & all;
    let masks = Masks {
        rare: crossing.bits() | not(plain) | not(a.length.gt(zero)) | not(b.length.gt(zero)),
        apart: apart.bits(),
        two: flat.kept.bits(),
        on_a_face: flat.on_a_face.bits(),
        keep_0: flat.separations[0].le(margin).bits(),
        keep_1: flat.separations[1].le(margin).bits(),
    };
    let one = OnePoint {
        normal: normal.to_array(),
        point: point.to_array(),
        separation: separation.to_array(),
        id_a: closest.id_a.to_array(),
        id_b: closest.id_b.to_array(),
    };
    let two = TwoPoints {
        normal: flat.normal.to_array(),
        points: flat.points.map(V2::to_array),
        separations: flat.separations.map(L::to_array),
    };
    write_manifolds(waiting, &masks, &one, &two, out);
}

/// Per lane, whether the cores properly cross: each one's ends strictly on
/// both sides of the other's line.
#[inline(always)]
fn crossing<L: Lanes>(a: &Core<L>, b: &Core<L>) -> L {
    let zero = L::splat(0.0);
    let (da, db) = (a.b.sub(a.a), b.b.sub(b.a));
    let opposite = |x: L, y: L| (x.gt(zero).and(y.lt(zero))).or(x.lt(zero).and(y.gt(zero)));
    opposite(da.perp_dot(b.a.sub(a.a)), da.perp_dot(b.b.sub(a.a))).and(opposite(
        db.perp_dot(a.a.sub(b.a)),
        db.perp_dot(a.b.sub(b.a)),
    ))
}

/// The two-point contact of each lane's cores, as the one-pair routine's
/// flat contact computes it, and whether it applies.
struct FlatLanes<L> {
    /// Where the cores are nearly parallel, the clipped overlap is long
    /// enough and the deeper point agrees with the exact separation.
    kept: L,
    /// Whether the reference face is A's side.
    on_a_face: L,
    /// The reference face's outward normal.
    normal: V2<L>,
    points: [V2<L>; 2],
    separations: [L; 2],
}

impl<L: Lanes> FlatLanes<L> {
    /// The reference face is the side of A or of B facing the other core,
    /// whichever the other core's ends clear best (with a bias towards A);
    /// the other core's facing side is clipped to it, and each clipped end
    /// is a point, moved back by `origin`. `exact` is the one-point
    /// separation the deeper point must reproduce.
    #[inline(always)]
    fn of(a: &Core<L>, b: &Core<L>, ra: L, rb: L, origin: V2<L>, exact: L) -> FlatLanes<L> {
        let half = L::splat(0.5);
        let flat = a.axis.perp_dot(b.axis).abs().le(L::splat(FLAT_SIN));
        let (side_a, clear_a) = facing_side(a.axis.perp(), a.a, b);
        let (side_b, clear_b) = facing_side(b.axis.perp(), b.a, a);
        let on_a_face = (clear_a + L::splat(REFERENCE_BIAS)).ge(clear_b);
        let n = V2::select(on_a_face, side_a, side_b);
        let along = V2::select(on_a_face, a.axis, b.axis);
        let length = on_a_face.select(a.length, b.length);
        let start = V2::select(on_a_face, a.a, b.a).add(n.scale(on_a_face.select(ra, rb)));
        let inward = n.neg();
        let incident_radius = on_a_face.select(rb, ra);
        let x0 = V2::select(on_a_face, b.a, a.a).add(inward.scale(incident_radius));
        let x1 = V2::select(on_a_face, b.b, a.b).add(inward.scale(incident_radius));
        let s0 = x0.sub(start).dot(along);
        let s1 = x1.sub(start).dot(along);
        let overlap = s0.max(s1).min(length) - s0.min(s1).max(L::splat(0.0));
        let clipped = overlap.ge(L::splat(MIN_CLIP_LENGTH));
        let ends = [
            pull_in(x0, s0, x1, s1, length),
            pull_in(x1, s1, x0, s0, length),
        ];
        let separations = ends.map(|c| c.sub(start).dot(n));
        let points = [0, 1].map(|k| {
            let c = ends[k];
            c.sub(n.scale(half * separations[k])).add(origin)
        });
        let [s_0, s_1] = separations;
        let deepest = s_1.lt(s_0).select(s_1, s_0);
        let agrees = (deepest - exact).abs().le(L::splat(TWO_POINT_TOLERANCE));
        FlatLanes {
            kept: flat.and(clipped).and(agrees),
            on_a_face,
            normal: n,
            points,
            separations,
        }
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

/// Per lane, the one-point contact.
struct OnePoint {
    normal: [Vec2; LANES],
    point: [Vec2; LANES],
    separation: [f32; LANES],
    id_a: [f32; LANES],
    id_b: [f32; LANES],
}

/// Per lane, the two-point contact: the reference face's outward normal
/// and the two clipped points.
struct TwoPoints {
    normal: [Vec2; LANES],
    points: [[Vec2; LANES]; 2],
    separations: [[f32; LANES]; 2],
}

/// Writes each waiting pair's manifold into its slot of `out`, from what
/// its lane came to.
///
/// Each manifold is written field by field into its slot: assembled first
/// and copied, it would be read back while its narrower stores are still on
/// their way, which stalls.
#[inline(always)]
fn write_manifolds(
    waiting: &[Waiting],
    masks: &Masks,
    one: &OnePoint,
    two: &TwoPoints,
    out: &mut [MaybeUninit<ContactManifold>],
) {
    for (k, w) in waiting.iter().enumerate() {
        let has = |bits: u32| bits & (1 << k) != 0;
        let m = out[w.slot].write(ContactManifold::EMPTY);
        if has(masks.rare) {
            let exact = collide_capsules(w.a, w.b, w.margin);
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
            let id = FeatureId::new(one.id_a[k] as u8, one.id_b[k] as u8);
            m.normal = facing(one.normal[k]);
            m.points[0] = ManifoldPoint {
                point: one.point[k],
                separation: one.separation[k],
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
        let [first, second] = [END_A, END_B].map(|end| {
            let i = usize::from(end == END_B);
            ManifoldPoint {
                point: two.points[i][k],
                separation: two.separations[i][k],
                id: id(end),
            }
        });
        // Points beyond the margin are dropped, the first moving up.
        let (keep_0, keep_1) = (has(masks.keep_0), has(masks.keep_1));
        let (p0, p1) = if keep_0 {
            (first, second)
        } else {
            (second, second)
        };
        let count = usize::from(keep_0) + usize::from(keep_1);
        m.normal = facing(if on_a { two.normal[k] } else { -two.normal[k] });
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

/// Which side (`n` or `−n`) of the line through `origin` the core `other`
/// lies on, and how far its lower end clears the line on that side; ties go
/// to `n` (`facing_side` of the one-pair routine).
#[inline(always)]
fn facing_side<L: Lanes>(n: V2<L>, origin: V2<L>, other: &Core<L>) -> (V2<L>, L) {
    let h0 = other.a.sub(origin).dot(n);
    let h1 = other.b.sub(origin).dot(n);
    let above = h0.min(h1);
    let below = (-h0).min(-h1);
    let upper = above.ge(below);
    (V2::select(upper, n, n.neg()), upper.select(above, below))
}

#[cfg(test)]
mod tests {
    use carom_shapes::{Segment, Shape, Stadium, Transform};

    use super::*;

    /// Pairs of capsules and segments placed by a simple generator: crossed,
    /// lying on each other (exactly and nearly parallel), end to end, apart.
    fn pairs() -> Vec<(PlacedShape, PlacedShape)> {
        let mut seed = 0x2545_f491_u32;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            (seed as f32 / u32::MAX as f32) * 2.0 - 1.0
        };
        let mut pairs = Vec::new();
        for k in 0..4000 {
            let length = 0.2 + next().abs();
            let shape: Shape = if k % 7 == 0 {
                Segment::new(Vec2::ZERO, Vec2::new(3.0 * length, 0.0))
                    .unwrap()
                    .into()
            } else {
                Stadium::new(Vec2::new(-length, 0.0), Vec2::new(length, 0.0), 0.3)
                    .unwrap()
                    .into()
            };
            let turn = match k % 3 {
                0 => 0.0,
                1 => 0.05 * next(),
                _ => 3.0 * next(),
            };
            let at = Transform::new(Vec2::new(next(), next()), next());
            let apart = Vec2::new(next(), 0.6 * next());
            let near = Transform::new(at.apply(apart), at.rotation.angle() + turn);
            let place = |s: &Shape, xf: &Transform| PlacedShape::new(s, xf).unwrap();
            let other: Shape = Stadium::new(Vec2::new(-0.4, 0.0), Vec2::new(0.4, 0.0), 0.25)
                .unwrap()
                .into();
            pairs.push((place(&shape, &at), place(&other, &near)));
        }
        pairs
    }

    /// Every manifold of `pairs` batched, with or without AVX2 lanes.
    fn batched(pairs: &[(PlacedShape, PlacedShape)], avx2: bool) -> Vec<ContactManifold> {
        let mut out = vec![MaybeUninit::uninit(); 2 * pairs.len()];
        let mut batch = ManifoldBatch {
            avx2,
            ..ManifoldBatch::new()
        };
        // Each pair both ways round, so that stadium–segment pairs are
        // turned round and back.
        for (k, (a, b)) in pairs.iter().enumerate() {
            batch.collide(a, b, 0.1, 2 * k, &mut out);
            batch.collide(b, a, 0.1, 2 * k + 1, &mut out);
        }
        batch.flush(&mut out);
        // SAFETY: every slot was named above, and `flush` has run.
        out.iter().map(|m| unsafe { m.assume_init() }).collect()
    }

    #[test]
    fn both_lane_types_give_each_pair_its_one_pair_bits() {
        let pairs = pairs();
        let alone: Vec<ContactManifold> = pairs
            .iter()
            .flat_map(|(a, b)| [collide_placed(a, b, 0.1), collide_placed(b, a, 0.1)])
            .collect();
        let bits = |m: &ContactManifold| {
            let points = m.points.map(|p| {
                let (x, y, s) = (p.point.x, p.point.y, p.separation);
                [x.to_bits(), y.to_bits(), s.to_bits(), u32::from(p.id.0)]
            });
            (m.normal.x.to_bits(), m.normal.y.to_bits(), points, m.count)
        };
        let counts: Vec<usize> = (0..3)
            .map(|n| alone.iter().filter(|m| m.count == n).count())
            .collect();
        assert!(counts.iter().all(|&c| c > 500), "cases {counts:?}");
        let mut paths = vec![false];
        if cfg!(target_arch = "x86_64") && ManifoldBatch::new().avx2 {
            paths.push(true);
        }
        for avx2 in paths {
            for (k, (m, expected)) in batched(&pairs, avx2).iter().zip(&alone).enumerate() {
                assert_eq!(bits(m), bits(expected), "pair {k}, avx2 {avx2}");
            }
        }
    }
}
