//! Eight `f32` lanes, for routines that work on eight items side by side:
//! the narrowphase's batches of capsule pairs ([`ManifoldBatch`]), and
//! carom's solver, whose AVX2 path builds on [`Avx8`] and
//! [`align_stack_frame`] (so they are public; the rest of this module is
//! the narrowphase's own).
//!
//! [`ManifoldBatch`]: crate::ManifoldBatch
//!
//! [`Lanes`] names the few operations those routines use. Two types have
//! them: `wide::f32x8`, which on the baseline x86-64 target (SSE2) works as
//! two 128-bit halves, and on x86-64 processors with AVX2 [`Avx8`], the same
//! eight lanes in one 256-bit register (half the instructions). Both perform
//! the same IEEE operations, so they give the same bits: `neg` and `abs`
//! touch only the sign bit, `min` and `max` follow the `minps`/`maxps` rule
//! (`a < b ? a : b`), and comparisons are false for NaN, as `<` is.

use std::ops::{Add, Div, Mul, Neg, Sub};

use wide::f32x8;

/// Lanes per value.
pub const LANES: usize = 8;

/// Eight `f32` lanes and the operations the batched routines use. A
/// comparison gives a mask: a lane of all ones where it holds, all zeros
/// elsewhere.
pub trait Lanes:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// `v` in every lane.
    fn splat(v: f32) -> Self;
    /// Lane `k` from `v[k]`.
    fn from_array(v: [f32; LANES]) -> Self;
    /// The lanes in order.
    fn to_array(self) -> [f32; LANES];
    /// The square root of each lane, correctly rounded.
    fn sqrt(self) -> Self;
    /// Each lane with its sign bit cleared.
    fn abs(self) -> Self;
    /// `self < other ? self : other` per lane.
    fn min(self, other: Self) -> Self;
    /// `self > other ? self : other` per lane.
    fn max(self, other: Self) -> Self;
    /// The mask of `self < other`.
    fn lt(self, other: Self) -> Self;
    /// The mask of `self <= other`.
    fn le(self, other: Self) -> Self;
    /// The mask of `self > other`.
    fn gt(self, other: Self) -> Self;
    /// The mask of `self >= other`.
    fn ge(self, other: Self) -> Self;
    /// Of two masks, the lanes set in both.
    fn and(self, other: Self) -> Self;
    /// Of two masks, the lanes set in either.
    fn or(self, other: Self) -> Self;
    /// Per lane of the mask `self`: `if self { yes } else { no }`.
    fn select(self, yes: Self, no: Self) -> Self;
    /// One bit per lane of the mask `self`, lane `k` in bit `k`.
    fn bits(self) -> u32;
    /// Eight records of eight numbers turned into eight values: value `j`
    /// holds number `j` of every record, record `k` in lane `k`.
    fn transpose(records: [&[f32; LANES]; LANES]) -> [Self; LANES];
}

impl Lanes for f32x8 {
    #[inline(always)]
    fn splat(v: f32) -> f32x8 {
        f32x8::splat(v)
    }
    #[inline(always)]
    fn from_array(v: [f32; LANES]) -> f32x8 {
        f32x8::new(v)
    }
    #[inline(always)]
    fn to_array(self) -> [f32; LANES] {
        f32x8::to_array(self)
    }
    #[inline(always)]
    fn sqrt(self) -> f32x8 {
        f32x8::sqrt(self)
    }
    #[inline(always)]
    fn abs(self) -> f32x8 {
        f32x8::abs(self)
    }
    #[inline(always)]
    fn min(self, other: f32x8) -> f32x8 {
        self.fast_min(other)
    }
    #[inline(always)]
    fn max(self, other: f32x8) -> f32x8 {
        self.fast_max(other)
    }
    #[inline(always)]
    fn lt(self, other: f32x8) -> f32x8 {
        self.simd_lt(other)
    }
    #[inline(always)]
    fn le(self, other: f32x8) -> f32x8 {
        self.simd_le(other)
    }
    #[inline(always)]
    fn gt(self, other: f32x8) -> f32x8 {
        self.simd_gt(other)
    }
    #[inline(always)]
    fn ge(self, other: f32x8) -> f32x8 {
        self.simd_ge(other)
    }
    #[inline(always)]
    fn and(self, other: f32x8) -> f32x8 {
        self & other
    }
    #[inline(always)]
    fn or(self, other: f32x8) -> f32x8 {
        self | other
    }
    #[inline(always)]
    fn select(self, yes: f32x8, no: f32x8) -> f32x8 {
        wide::Select::select(self, yes, no)
    }
    #[inline(always)]
    fn bits(self) -> u32 {
        self.to_bitmask()
    }
    #[inline(always)]
    fn transpose(records: [&[f32; LANES]; LANES]) -> [f32x8; LANES] {
        std::array::from_fn(|j| f32x8::new(records.map(|r| r[j])))
    }
}

/// Makes the function this is inlined into realign its stack frame to a
/// cache line, so that the 256-bit values it spills sit in aligned slots.
/// Every AVX2 routine calls it first.
///
/// The x86-64 calling convention aligns the stack to 16 bytes only, and a
/// function whose frame is not realigned spills `__m256` registers with
/// unaligned moves. Where its slots then fall depends on how deep the
/// caller's stack happens to be: at some depths a slot used every batch
/// straddles two cache lines or two pages. Measured on the solver, such
/// depths ran up to 40 % slower than the others (an embedding program
/// cannot choose its depth, and a build that moved a frame by 16 bytes
/// could lose or win that much). A local aligned to 64 bytes makes the
/// compiler realign the frame, and every spill slot then gets its natural
/// alignment.
#[inline(always)]
pub fn align_stack_frame() {
    #[repr(C, align(64))]
    struct CacheLine([u8; 64]);
    let mut line = std::mem::MaybeUninit::<CacheLine>::uninit();
    // Taking the address keeps the local, and so the realignment.
    std::hint::black_box(&mut line);
}

#[cfg(target_arch = "x86_64")]
pub use avx::Avx8;

#[cfg(target_arch = "x86_64")]
mod avx {
    use std::arch::x86_64::*;
    use std::ops::{Add, Div, Mul, Neg, Sub};

    use super::{Lanes, LANES};

    /// Eight lanes in one AVX register, laid out as `wide::f32x8` is (so a
    /// record of either can be viewed as the other).
    ///
    /// Values may be made only inside functions compiled with
    /// `#[target_feature(enable = "avx2")]` and entered after run-time
    /// detection; that is what makes the intrinsic calls below sound.
    #[derive(Clone, Copy)]
    #[repr(transparent)]
    pub struct Avx8(pub __m256);

    impl Add for Avx8 {
        type Output = Avx8;
        #[inline(always)]
        fn add(self, o: Avx8) -> Avx8 {
            // SAFETY (this and every intrinsic below): AVX is available,
            // see the type's documentation.
            Avx8(unsafe { _mm256_add_ps(self.0, o.0) })
        }
    }

    impl Sub for Avx8 {
        type Output = Avx8;
        #[inline(always)]
        fn sub(self, o: Avx8) -> Avx8 {
            Avx8(unsafe { _mm256_sub_ps(self.0, o.0) })
        }
    }

    impl Mul for Avx8 {
        type Output = Avx8;
        #[inline(always)]
        fn mul(self, o: Avx8) -> Avx8 {
            Avx8(unsafe { _mm256_mul_ps(self.0, o.0) })
        }
    }

    impl Div for Avx8 {
        type Output = Avx8;
        #[inline(always)]
        fn div(self, o: Avx8) -> Avx8 {
            Avx8(unsafe { _mm256_div_ps(self.0, o.0) })
        }
    }

    impl Neg for Avx8 {
        type Output = Avx8;
        #[inline(always)]
        fn neg(self) -> Avx8 {
            Avx8(unsafe { _mm256_xor_ps(self.0, _mm256_set1_ps(-0.0)) })
        }
    }

    impl Lanes for Avx8 {
        #[inline(always)]
        fn splat(v: f32) -> Avx8 {
            Avx8(unsafe { _mm256_set1_ps(v) })
        }
        #[inline(always)]
        fn from_array(v: [f32; LANES]) -> Avx8 {
            Avx8(unsafe { _mm256_loadu_ps(v.as_ptr()) })
        }
        #[inline(always)]
        fn to_array(self) -> [f32; LANES] {
            let mut v = [0.0; LANES];
            unsafe { _mm256_storeu_ps(v.as_mut_ptr(), self.0) };
            v
        }
        #[inline(always)]
        fn sqrt(self) -> Avx8 {
            Avx8(unsafe { _mm256_sqrt_ps(self.0) })
        }
        #[inline(always)]
        fn abs(self) -> Avx8 {
            Avx8(unsafe { _mm256_andnot_ps(_mm256_set1_ps(-0.0), self.0) })
        }
        #[inline(always)]
        fn min(self, other: Avx8) -> Avx8 {
            Avx8(unsafe { _mm256_min_ps(self.0, other.0) })
        }
        #[inline(always)]
        fn max(self, other: Avx8) -> Avx8 {
            Avx8(unsafe { _mm256_max_ps(self.0, other.0) })
        }
        #[inline(always)]
        fn lt(self, other: Avx8) -> Avx8 {
            Avx8(unsafe { _mm256_cmp_ps::<_CMP_LT_OQ>(self.0, other.0) })
        }
        #[inline(always)]
        fn le(self, other: Avx8) -> Avx8 {
            Avx8(unsafe { _mm256_cmp_ps::<_CMP_LE_OQ>(self.0, other.0) })
        }
        #[inline(always)]
        fn gt(self, other: Avx8) -> Avx8 {
            Avx8(unsafe { _mm256_cmp_ps::<_CMP_GT_OQ>(self.0, other.0) })
        }
        #[inline(always)]
        fn ge(self, other: Avx8) -> Avx8 {
            Avx8(unsafe { _mm256_cmp_ps::<_CMP_GE_OQ>(self.0, other.0) })
        }
        #[inline(always)]
        fn and(self, other: Avx8) -> Avx8 {
            Avx8(unsafe { _mm256_and_ps(self.0, other.0) })
        }
        #[inline(always)]
        fn or(self, other: Avx8) -> Avx8 {
            Avx8(unsafe { _mm256_or_ps(self.0, other.0) })
        }
        #[inline(always)]
        fn select(self, yes: Avx8, no: Avx8) -> Avx8 {
            Avx8(unsafe { _mm256_blendv_ps(no.0, yes.0, self.0) })
        }
        #[inline(always)]
        fn bits(self) -> u32 {
            (unsafe { _mm256_movemask_ps(self.0) }) as u32
        }
        /// One 256-bit load per record and an 8×8 transpose: pairs of rows
        /// interleaved, then quads of them, then the 128-bit halves swapped
        /// into place.
        #[inline(always)]
        fn transpose(records: [&[f32; LANES]; LANES]) -> [Avx8; LANES] {
            unsafe {
                let r = records.map(|r| _mm256_loadu_ps(r.as_ptr()));
                let lo = |i: usize| _mm256_unpacklo_ps(r[i], r[i + 1]);
                let hi = |i: usize| _mm256_unpackhi_ps(r[i], r[i + 1]);
                let t = [lo(0), hi(0), lo(2), hi(2), lo(4), hi(4), lo(6), hi(6)];
                // Numbers 0–3 (and 4–7 in the upper halves) of records 0–3,
                // then of records 4–7.
                let s = [
                    _mm256_shuffle_ps::<0x44>(t[0], t[2]),
                    _mm256_shuffle_ps::<0xEE>(t[0], t[2]),
                    _mm256_shuffle_ps::<0x44>(t[1], t[3]),
                    _mm256_shuffle_ps::<0xEE>(t[1], t[3]),
                    _mm256_shuffle_ps::<0x44>(t[4], t[6]),
                    _mm256_shuffle_ps::<0xEE>(t[4], t[6]),
                    _mm256_shuffle_ps::<0x44>(t[5], t[7]),
                    _mm256_shuffle_ps::<0xEE>(t[5], t[7]),
                ];
                std::array::from_fn(|j| {
                    let (first, second) = (s[j % 4], s[j % 4 + 4]);
                    Avx8(if j < 4 {
                        _mm256_permute2f128_ps::<0x20>(first, second)
                    } else {
                        _mm256_permute2f128_ps::<0x31>(first, second)
                    })
                })
            }
        }
    }
}
