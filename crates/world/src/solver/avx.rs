//! Eight lanes in one 256-bit AVX register, for processors with AVX2.
//!
//! `wide::f32x8` is compiled for the baseline x86-64 target (SSE2), so it
//! works as two 128-bit halves even inside a function compiled for AVX2.
//! [`Avx8`] is the same eight lanes in one `__m256`: half the arithmetic
//! instructions, and records (body states, contacts, masses) moved in and
//! out of lanes with 4×4 transposes of 16-byte quads instead of one scalar
//! load per lane and field. The constraint passes, the preparing of
//! constraints and the integration of velocities and positions run on it.
//!
//! Every operation matches its `f32x8` counterpart bit for bit: the same
//! IEEE add, subtract and multiply, `neg` as a sign flip, `max`/`min` with
//! the `maxps`/`minps` rule, and selects on `> 0`. So a batch gives the same
//! result on either path, which the tests check.
//!
//! Values of [`Avx8`] are only made inside functions compiled with
//! `#[target_feature(enable = "avx2")]`, which are entered only after
//! run-time detection (see [`super::Isa`]); that is what makes the
//! intrinsic calls below sound.

use std::arch::x86_64::*;

// Not `use`d by name: its methods would clash with `Lane`'s.
use carom_narrowphase::lanes as narrow;
pub(crate) use carom_narrowphase::lanes::{align_stack_frame, Avx8};
use glam::Vec2;
use wide::f32x8;

use super::batch::PrepareView;
use super::integrate::{
    cut_to_speed, integrate_position, integrate_velocity, BodyMotion, MotionLimits,
};
use super::lanes::{Lane, PairL, StateL, V2};
use super::wide::{PointLanes, PrepareLanes, WideBounce, WideConstraint, WideLane, LANES};
use super::StatesPtr;
use crate::contacts::{layout, Contact};

// `WideConstraint<N, Avx8>` is a view of `WideConstraint<N, f32x8>`.
const _: () = {
    assert!(std::mem::size_of::<Avx8>() == std::mem::size_of::<f32x8>());
    assert!(std::mem::align_of::<Avx8>() == std::mem::align_of::<f32x8>());
};

/// A type stored in `f32x8` lanes that has a twin in [`Avx8`] lanes of the
/// same layout: `repr(C)` and generic only in its lane type.
///
/// # Safety
/// `Self` and `Self::Avx` must differ only in their lane type.
pub(crate) unsafe trait AvxTwin: Sized {
    type Avx;
}

// SAFETY: both are `repr(C)` and generic only in their lane type.
unsafe impl<const N: usize> AvxTwin for WideConstraint<N> {
    type Avx = WideConstraint<N, Avx8>;
}

// SAFETY: as above.
unsafe impl<const N: usize> AvxTwin for WideBounce<N> {
    type Avx = WideBounce<N, Avx8>;
}

/// Views items stored in `f32x8` lanes (batches, their bounce lanes) as
/// their [`Avx8`] twins.
#[inline(always)]
pub(crate) fn as_avx<T: AvxTwin>(items: &mut [T]) -> &mut [T::Avx] {
    // SAFETY: the twins are `repr(C)` and generic only in their lane type
    // (`AvxTwin`); `f32x8` and `Avx8` are both eight `f32` in lane order
    // with the same size and alignment (asserted above), and every bit
    // pattern is valid for both.
    unsafe { std::slice::from_raw_parts_mut(items.as_mut_ptr().cast::<T::Avx>(), items.len()) }
}

/// Moves an item prepared in [`Avx8`] lanes into its `f32x8` storage.
#[inline(always)]
pub(crate) fn to_storage<T: AvxTwin>(item: T::Avx) -> T {
    // SAFETY: same layout, see `as_avx`.
    unsafe { std::ptr::read((&item as *const T::Avx).cast()) }
}

// The arithmetic, `sqrt`, `abs`, `min`, `max` and the comparisons are the
// narrowphase's (`carom_narrowphase::lanes`), which the capsule batches use
// too; the solver adds what its own lane trait asks for.
impl Lane for Avx8 {
    #[inline(always)]
    fn splat(v: f32) -> Avx8 {
        narrow::Lanes::splat(v)
    }
    /// `self > other ? self : other` per lane.
    #[inline(always)]
    fn max(self, other: Avx8) -> Avx8 {
        narrow::Lanes::max(self, other)
    }
    /// `self < other ? self : other` per lane.
    #[inline(always)]
    fn min(self, other: Avx8) -> Avx8 {
        narrow::Lanes::min(self, other)
    }
    #[inline(always)]
    fn if_positive(self, yes: Avx8, no: Avx8) -> Avx8 {
        if_greater(self, narrow::Lanes::splat(0.0), yes, no)
    }
}

/// Transposes four rows of two 4-lane halves each, within each half: row
/// `r` of the input holds `(x_r0, x_r1, x_r2, x_r3 | y_r0, …, y_r3)`, and
/// output `k` holds `(x_0k, x_1k, x_2k, x_3k | y_0k, …, y_3k)`. Applied to
/// the halves of eight body states this gives one field of all eight bodies
/// per output; applied again it gives the states back.
#[inline(always)]
fn transpose_halves(rows: [__m256; 4]) -> [__m256; 4] {
    unsafe {
        let t0 = _mm256_unpacklo_ps(rows[0], rows[1]);
        let t1 = _mm256_unpackhi_ps(rows[0], rows[1]);
        let t2 = _mm256_unpacklo_ps(rows[2], rows[3]);
        let t3 = _mm256_unpackhi_ps(rows[2], rows[3]);
        [
            _mm256_shuffle_ps::<0x44>(t0, t2),
            _mm256_shuffle_ps::<0xEE>(t0, t2),
            _mm256_shuffle_ps::<0x44>(t1, t3),
            _mm256_shuffle_ps::<0xEE>(t1, t3),
        ]
    }
}

/// Loads the four `f32` at byte `offset` of each of eight records and
/// transposes them: output `k` holds float `k` of the eight records, in
/// lane order. Row `r` pairs record `r` with record `r + 4`, so one in-half
/// transpose lays the lanes out in order.
///
/// # Safety
/// Each record must have 16 readable bytes at `offset`.
#[inline(always)]
unsafe fn load_quads(records: &[*const u8; LANES], offset: usize) -> [__m256; 4] {
    // SAFETY: the caller vouches for the 16 bytes.
    unsafe {
        let half = |k: usize| _mm_loadu_ps(records[k].add(offset).cast::<f32>());
        transpose_halves(std::array::from_fn(|r| {
            _mm256_insertf128_ps::<1>(_mm256_castps128_ps256(half(r)), half(r + 4))
        }))
    }
}

/// Reads what preparing a batch needs straight from the contacts, masses and
/// velocities, with transposed loads; lanes past `contacts` are padding with
/// the values the portable path gives them (zeros and the null body).
///
/// # Safety
/// The indices in `contacts` and their bodies must index the view's arrays,
/// and `masses` and `states` must hold the null body.
#[inline(always)]
pub(crate) unsafe fn prepare_lanes<const N: usize>(
    view: &PrepareView,
    contacts: &[u32],
    null_body: u32,
) -> PrepareLanes<N, Avx8> {
    let padding = Contact::NONE;
    let lanes: [&Contact; LANES] = std::array::from_fn(|k| {
        contacts
            .get(k)
            .map_or(&padding, |&i| &view.contacts[i as usize])
    });
    let bodies: [[u32; 2]; LANES] = std::array::from_fn(|k| {
        contacts
            .get(k)
            .map_or([null_body; 2], |&i| view.slots(i as usize))
    });
    let a = bodies.map(|[a, _]| a);
    let b = bodies.map(|[_, b]| b);
    let records = lanes.map(|c| (c as *const Contact).cast::<u8>());
    let mass_of = |i: u32| (&view.masses[i as usize] as *const super::BodyMass).cast::<u8>();
    let state_of = |i: u32| (&view.states[i as usize] as *const super::BodyState).cast::<u8>();
    // SAFETY: every record is a whole `Contact`, `BodyMass` or `BodyState`
    // and each offset leaves 16 bytes inside it (see `contacts::layout`).
    unsafe {
        let [nx, ny, p0x, p0y] = load_quads(&records, layout::NORMAL);
        let [sep0, _, p1x, p1y] = load_quads(&records, layout::FIRST_SEPARATION);
        let [imp0n, imp0t, imp1n, imp1t] = load_quads(&records, layout::IMPULSES);
        let [_, _, friction, restitution] = load_quads(&records, layout::SECOND_IMPULSE);
        let sep1 = if N > 1 {
            load_quads(&records, layout::SECOND_SEPARATION)[0]
        } else {
            _mm256_setzero_ps()
        };
        let [cax, cay, ima, iia] = load_quads(&a.map(mass_of), 0);
        let [cbx, cby, imb, iib] = load_quads(&b.map(mass_of), 0);
        // Velocities only where a lane can bounce (see
        // `WideConstraint::prepare`, which reads them only then).
        let bouncy = Avx8(restitution).any_positive();
        let ([vax, vay, wa, _], [vbx, vby, wb, _]) = if bouncy {
            (
                load_quads(&a.map(state_of), 0),
                load_quads(&b.map(state_of), 0),
            )
        } else {
            ([_mm256_setzero_ps(); 4], [_mm256_setzero_ps(); 4])
        };
        let v2 = |x, y| V2 {
            x: Avx8(x),
            y: Avx8(y),
        };
        let points = std::array::from_fn(|k| {
            let (x, y, separation, normal, tangent) = if k == 0 {
                (p0x, p0y, sep0, imp0n, imp0t)
            } else {
                (p1x, p1y, sep1, imp1n, imp1t)
            };
            PointLanes {
                position: v2(x, y),
                separation: Avx8(separation),
                normal_impulse: Avx8(normal),
                tangent_impulse: Avx8(tangent),
            }
        });
        PrepareLanes {
            a,
            b,
            pair: PairL {
                inv_mass_a: Avx8(ima),
                inv_inertia_a: Avx8(iia),
                inv_mass_b: Avx8(imb),
                inv_inertia_b: Avx8(iib),
                normal: v2(nx, ny),
            },
            center_a: v2(cax, cay),
            center_b: v2(cbx, cby),
            velocity_a: v2(vax, vay),
            spin_a: Avx8(wa),
            velocity_b: v2(vbx, vby),
            spin_b: Avx8(wb),
            friction: Avx8(friction),
            restitution: Avx8(restitution),
            points,
        }
    }
}

/// Per lane: `if a > b { yes } else { no }`.
#[inline(always)]
fn if_greater(a: Avx8, b: Avx8, yes: Avx8, no: Avx8) -> Avx8 {
    narrow::Lanes::select(narrow::Lanes::gt(a, b), yes, no)
}

/// Whether `a > b` in any lane.
#[inline(always)]
fn any_greater(a: Avx8, b: Avx8) -> bool {
    narrow::Lanes::bits(narrow::Lanes::gt(a, b)) != 0
}

/// `±1` with the sign of `a` (`f32::signum` for non-zero lanes).
#[inline(always)]
fn signum(a: Avx8) -> Avx8 {
    // SAFETY: AVX is available wherever an `Avx8` is made.
    unsafe {
        let sign = _mm256_and_ps(a.0, _mm256_set1_ps(-0.0));
        Avx8(_mm256_or_ps(sign, _mm256_set1_ps(1.0)))
    }
}

/// Transposes four field lanes back into the quads at byte `offset` of the
/// eight states `indices`, and stores the quads of the lanes marked in
/// `store`.
///
/// # Safety
/// The marked indices must be states of the buffer, owned by the caller.
#[inline(always)]
unsafe fn store_quads(
    states: StatesPtr,
    indices: &[u32; LANES],
    store: &[bool; LANES],
    offset: usize,
    fields: [Avx8; 4],
) {
    let rows = transpose_halves(fields.map(|f| f.0));
    // SAFETY: see above; a state has 16 bytes at offsets 0 and 16.
    unsafe {
        for (r, row) in rows.iter().enumerate() {
            for (k, half) in [
                (r, _mm256_castps256_ps128(*row)),
                (r + 4, _mm256_extractf128_ps::<1>(*row)),
            ] {
                if store[k] {
                    _mm_storeu_ps(states.at(indices[k]).cast::<u8>().add(offset).cast(), half);
                }
            }
        }
    }
}

/// Calls `eight` for each run of eight bodies of `range` of which at least
/// one moves, with their indices and whether each moves; the tail that
/// does not fill eight lanes is left to `tail`, one body at a time.
#[inline(always)]
fn for_each_eight(
    motions: &[BodyMotion],
    range: std::ops::Range<usize>,
    mut eight: impl FnMut([u32; LANES], [bool; LANES]),
    mut tail: impl FnMut(usize),
) {
    let mut i = range.start;
    while i + LANES <= range.end {
        let moves: [bool; LANES] = std::array::from_fn(|k| motions[i + k].moves);
        if moves.contains(&true) {
            eight(std::array::from_fn(|k| (i + k) as u32), moves);
        }
        i += LANES;
    }
    for j in i..range.end {
        tail(j);
    }
}

/// [`integrate_velocity`] for the moving bodies of `range`, eight at a time,
/// with the same operations in the same order.
///
/// # Safety
/// The processor must support AVX2; `range` must index `states` and
/// `motions`, and its states must be the caller's alone.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn integrate_velocities(
    states: StatesPtr,
    motions: &[BodyMotion],
    range: std::ops::Range<usize>,
    h: f32,
) {
    align_stack_frame();
    let h8 = Avx8::splat(h);
    for_each_eight(
        motions,
        range,
        |indices, moves| {
            let records = indices.map(|i| states.at(i).cast::<u8>().cast_const());
            let motion =
                |k: usize| (&motions[indices[k] as usize] as *const BodyMotion).cast::<u8>();
            // SAFETY: whole states and motions (see the function's docs).
            unsafe {
                let [vx, vy, w, dpx] = load_quads(&records, 0).map(Avx8);
                let [gx, gy, linear, angular] =
                    load_quads(&std::array::from_fn(motion), 0).map(Avx8);
                // v ← h·g + v / (1 + h·c), ω ← ω / (1 + h·c), as in the scalar code.
                let fields = [
                    h8 * gx + linear * vx,
                    h8 * gy + linear * vy,
                    w * angular,
                    dpx,
                ];
                store_quads(states, &indices, &moves, 0, fields);
            }
        },
        |j| {
            if motions[j].moves {
                // SAFETY: the caller owns the state.
                integrate_velocity(unsafe { &mut *states.at(j as u32) }, &motions[j], h);
            }
        },
    );
}

/// [`integrate_position`] for the moving bodies of `range`, eight at a time,
/// with the same operations in the same order.
///
/// # Safety
/// As for [`integrate_velocities`].
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn integrate_positions(
    states: StatesPtr,
    motions: &[BodyMotion],
    range: std::ops::Range<usize>,
    limits: &MotionLimits,
    h: f32,
) {
    align_stack_frame();
    let h8 = Avx8::splat(h);
    let max_speed = Avx8::splat(limits.max_linear_speed);
    let max_rotation = Avx8::splat(limits.max_rotation);
    for_each_eight(
        motions,
        range,
        |indices, moves| {
            let records = indices.map(|i| states.at(i).cast::<u8>().cast_const());
            // SAFETY: whole states (see the function's docs).
            unsafe {
                let [mut vx, mut vy, mut w, dpx] = load_quads(&records, 0).map(Avx8);
                let [dpy, qc, qs, da] = load_quads(&records, 16).map(Avx8);
                let speed_sq = vx * vx + vy * vy;
                let limit_sq = max_speed * max_speed;
                // The square root and division only when a lane is too fast
                // (rarely): the lanes that are not keep their velocity.
                if any_greater(speed_sq, limit_sq) {
                    let scale = max_speed / narrow::Lanes::sqrt(speed_sq);
                    let (mut cut_x, mut cut_y) = (vx * scale, vy * scale);
                    if any_greater(speed_sq, Avx8::splat(f32::MAX)) {
                        // A squared speed that overflowed: lane by lane, as
                        // the scalar path does it.
                        let limit = limits.max_linear_speed;
                        [cut_x, cut_y] = cut_lanes_to_speed([vx, vy], speed_sq, limit);
                    }
                    vx = if_greater(speed_sq, limit_sq, cut_x, vx);
                    vy = if_greater(speed_sq, limit_sq, cut_y, vy);
                }
                let turn_size = narrow::Lanes::abs(h8 * w);
                w = if_greater(turn_size, max_rotation, signum(w) * max_rotation / h8, w);
                let dpx = dpx + h8 * vx;
                let dpy = dpy + h8 * vy;
                let turn = h8 * w;
                let (rc, rs) = small_rotation(turn);
                let qc2 = rc * qc - rs * qs;
                let qs2 = rs * qc + rc * qs;
                store_quads(states, &indices, &moves, 0, [vx, vy, w, dpx]);
                store_quads(states, &indices, &moves, 16, [dpy, qc2, qs2, da + turn]);
            }
        },
        |j| {
            if motions[j].moves {
                // SAFETY: the caller owns the state.
                integrate_position(unsafe { &mut *states.at(j as u32) }, limits, h);
            }
        },
    );
}

/// [`cut_to_speed`] in each lane (where the speed is above the limit: the
/// caller keeps the others' velocities).
#[inline(never)]
fn cut_lanes_to_speed(v: [Avx8; 2], speed_sq: Avx8, max: f32) -> [Avx8; 2] {
    let [x, y] = v.map(narrow::Lanes::to_array);
    let speed_sq = narrow::Lanes::to_array(speed_sq);
    let cut: [Vec2; 8] =
        std::array::from_fn(|i| cut_to_speed(Vec2::new(x[i], y[i]), speed_sq[i], max));
    [cut.map(|v| v.x), cut.map(|v| v.y)].map(narrow::Lanes::from_array)
}

/// `integrate::small_rotation` on lanes, operation for operation.
#[inline(always)]
fn small_rotation(theta: Avx8) -> (Avx8, Avx8) {
    let k = Avx8::splat;
    let one = k(1.0);
    let t2 = theta * theta;
    let c = one - t2 * (k(0.5) - t2 * (k(1.0 / 24.0) - t2 * k(1.0 / 720.0)));
    let s = theta * (one - t2 * (k(1.0 / 6.0) - t2 * (k(1.0 / 120.0) - t2 * k(1.0 / 5040.0))));
    let inv_len = one / narrow::Lanes::sqrt(c * c + s * s);
    (c * inv_len, s * inv_len)
}

impl WideLane for Avx8 {
    #[inline(always)]
    fn any_positive(self) -> bool {
        unsafe {
            let positive = _mm256_cmp_ps::<_CMP_GT_OQ>(self.0, _mm256_setzero_ps());
            _mm256_movemask_ps(positive) != 0
        }
    }

    /// Loads each state as two 16-byte halves and transposes them (see
    /// [`load_quads`]).
    #[inline(always)]
    unsafe fn gather(states: StatesPtr, indices: &[u32; LANES]) -> StateL<Avx8> {
        let records = indices.map(|i| states.at(i).cast::<u8>().cast_const());
        // SAFETY: the caller passes indices of the buffer; a state is eight
        // `f32` (see `BodyState`).
        let ([vx, vy, w, dpx], [dpy, dq_c, dq_s, _]) =
            unsafe { (load_quads(&records, 0), load_quads(&records, 16)) };
        StateL {
            v: V2 {
                x: Avx8(vx),
                y: Avx8(vy),
            },
            w: Avx8(w),
            dp: V2 {
                x: Avx8(dpx),
                y: Avx8(dpy),
            },
            dq_c: Avx8(dq_c),
            dq_s: Avx8(dq_s),
        }
    }

    /// Writes back the first half of each dynamic state, `(v.x, v.y, w,
    /// dp.x)`; `dp.x` is unchanged since the gather.
    #[inline(always)]
    unsafe fn scatter(
        states: StatesPtr,
        indices: &[u32; LANES],
        dynamic: &[bool],
        lanes: &StateL<Avx8>,
    ) {
        let owned = indices.map(|i| dynamic[i as usize]);
        let fields = [lanes.v.x, lanes.v.y, lanes.w, lanes.dp.x];
        // SAFETY: the caller owns the dynamic bodies' states.
        unsafe { store_quads(states, indices, &owned, 0, fields) };
    }
}

#[cfg(test)]
mod tests {
    use carom_shapes::Rot;
    use glam::Vec2;

    use super::*;
    use crate::settings::MAX_TURN_PER_SUBSTEP;
    use crate::solver::integrate::BodyState;

    /// States and motions of 21 bodies (two full batches and a tail): fast,
    /// slow, spinning past the turn limit, at rest, and some that do not
    /// move at all.
    fn bodies() -> (Vec<BodyState>, Vec<BodyMotion>) {
        let mut seed = 12345u32;
        let mut next = move || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0
        };
        let mut states = Vec::new();
        let mut motions = Vec::new();
        for i in 0..21 {
            // Some so fast that their squared speed overflows f32.
            let speed = match i % 3 {
                0 if i % 2 == 0 => 1e30,
                0 => 500.0,
                _ => 5.0,
            };
            let spin = if i % 4 == 0 { 900.0 } else { 3.0 };
            let turned = 2.0 * next();
            states.push(BodyState {
                v: Vec2::new(next(), next()) * speed,
                w: next() * spin,
                dp: Vec2::new(next(), next()),
                dq: Rot::from_angle(turned),
                da: turned,
            });
            motions.push(BodyMotion {
                gravity: Vec2::new(0.1 * next(), -10.0),
                linear_damping: 1.0 / (1.0 + 0.01 * next().abs()),
                angular_damping: 1.0 / (1.0 + 0.05 * next().abs()),
                moves: i % 5 != 2,
            });
        }
        (states, motions)
    }

    #[test]
    fn integration_on_eight_lanes_gives_the_scalar_bits() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            eprintln!("this processor has no AVX2: nothing to compare");
            return;
        }
        let (states, motions) = bodies();
        let limits = MotionLimits {
            max_linear_speed: 100.0,
            max_rotation: MAX_TURN_PER_SUBSTEP,
        };
        let h = 1.0 / 240.0;
        let mut scalar = states.clone();
        for (s, m) in scalar.iter_mut().zip(&motions) {
            if m.moves {
                integrate_velocity(s, m, h);
                integrate_position(s, &limits, h);
            }
        }
        let mut lanes = states.clone();
        let ptr = StatesPtr(lanes.as_mut_ptr());
        // SAFETY: the processor has AVX2 and the states are this test's.
        unsafe {
            integrate_velocities(ptr, &motions, 0..lanes.len(), h);
            integrate_positions(ptr, &motions, 0..lanes.len(), &limits, h);
        }
        for (i, (got, want)) in lanes.iter().zip(&scalar).enumerate() {
            let bits = |s: &BodyState| {
                [s.v.x, s.v.y, s.w, s.dp.x, s.dp.y, s.dq.c, s.dq.s, s.da].map(f32::to_bits)
            };
            assert_eq!(bits(got), bits(want), "body {i}");
        }
        // The clamps were exercised: some bodies were slowed to the limits.
        assert!(scalar.iter().any(|s| (s.v.length() - 100.0).abs() < 1e-3));
        assert!(scalar
            .iter()
            .any(|s| (s.w.abs() * h - limits.max_rotation).abs() < 1e-6));
    }
}
