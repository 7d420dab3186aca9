/* lanewise/rv.h: SPMD builtins for code vectorized by Lanewise.
 *
 * Same names and meaning as the RV vectorizer's builtins (cdl-saarland/rv),
 * with the differences named below (the lanes combined are the active ones;
 * rv_insert of a uniform value; rv_load/rv_store run only when a lane reaches
 * them and rv_store refuses a varying value). In a function vectorized to W
 * lanes, each call combines or moves values across the lanes that are active
 * at the call (the lanes whose control flow reaches it); in scalar code
 * (W = 1) each has the one-lane meaning given in brackets. Lanewise
 * recognizes the calls by name: they need no definition when every caller
 * is vectorized. A call of any other rv_* function in vectorized code is an
 * error. For scalar builds, define LANEWISE_RV_SCALAR before including this
 * header to get inline one-lane definitions.
 *
 * Only the float/int forms below exist; other element types use the same
 * names through a cast of the value (Lanewise accepts any scalar type).
 */
#ifndef LANEWISE_RV_H
#define LANEWISE_RV_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef LANEWISE_RV_SCALAR
#define LANEWISE_RV_DECL static inline
#else
#define LANEWISE_RV_DECL extern
#endif

/* True if `b` holds in at least one active lane. [b] */
LANEWISE_RV_DECL bool rv_any(bool b);
/* True if `b` holds in every active lane (true when no lane is active). [b] */
LANEWISE_RV_DECL bool rv_all(bool b);
/* Bit i set iff lane i is active and `b` holds there; needs W <= 32. [b ? 1 : 0] */
LANEWISE_RV_DECL uint32_t rv_ballot(bool b);
/* The number of active lanes where `b` holds. [b ? 1 : 0] */
LANEWISE_RV_DECL uint32_t rv_popcount(bool b);
/* In lane i: the number of active lanes j < i where `b` holds (exclusive
 * prefix count, the position of lane i among them). [0] */
LANEWISE_RV_DECL uint32_t rv_index(bool b);
/* True in the active lanes. [true] */
LANEWISE_RV_DECL bool rv_mask(void);
/* True in the lanes the function was entered with (the mask argument of a
 * masked variant; every lane otherwise). [true] */
LANEWISE_RV_DECL bool rv_entry_mask(void);
/* The values `v` of the k active lanes where `b` holds, packed into lanes
 * 0 .. k-1 in lane order; lanes k .. W-1 keep their own `v`. [v] */
LANEWISE_RV_DECL float rv_compact(float v, bool b);
/* This lane's number, 0 .. W-1. [0] */
LANEWISE_RV_DECL uint32_t rv_lane_id(void);
/* W, the number of lanes. [1] */
LANEWISE_RV_DECL uint32_t rv_num_lanes(void);
/* The value of `v` in lane `lane` (uniform), in every lane. [v] */
LANEWISE_RV_DECL float rv_extract(float v, uint32_t lane);
/* `v`, with lane `lane` (uniform) replaced by the uniform `x`, also when `v`
 * is uniform (RV's implementation then returns `x` in every lane).
 * [lane == 0 ? x : v] */
LANEWISE_RV_DECL float rv_insert(float v, uint32_t lane, float x);
/* Lane i gets the value of `v` in lane (i + shift) mod W; `shift` must be a
 * compile-time constant. [v] */
LANEWISE_RV_DECL float rv_shuffle(float v, int32_t shift);
/* One load, its value in every lane: through lane k's pointer `p` (`k`
 * uniform; lane k need not be active), or of p[k] when `p` is uniform.
 * Runs only when some lane reaches the call. [p[k]] */
LANEWISE_RV_DECL float rv_load(const float *p, int32_t k);
/* One store of the uniform `v` (a varying `v` is an error): through lane k's
 * pointer `p`, or to p[k] when `p` is uniform. Runs only when some lane
 * reaches the call. [p[k] = v] */
LANEWISE_RV_DECL void rv_store(float *p, int32_t k, float v);
/* `p`; tells RV that `p` is aligned to `alignment` bytes (a constant).
 * Lanewise accepts it and does not use the alignment. [p] */
LANEWISE_RV_DECL void *rv_align(void *p, int32_t alignment);

#ifdef LANEWISE_RV_SCALAR
static inline bool rv_any(bool b) { return b; }
static inline bool rv_all(bool b) { return b; }
static inline uint32_t rv_ballot(bool b) { return b ? 1u : 0u; }
static inline uint32_t rv_popcount(bool b) { return b ? 1u : 0u; }
static inline uint32_t rv_index(bool b) { (void)b; return 0u; }
static inline bool rv_mask(void) { return true; }
static inline bool rv_entry_mask(void) { return true; }
static inline float rv_compact(float v, bool b) { (void)b; return v; }
static inline uint32_t rv_lane_id(void) { return 0u; }
static inline uint32_t rv_num_lanes(void) { return 1u; }
static inline float rv_extract(float v, uint32_t lane) { (void)lane; return v; }
static inline float rv_insert(float v, uint32_t lane, float x) { return lane == 0 ? x : v; }
static inline float rv_shuffle(float v, int32_t shift) { (void)shift; return v; }
static inline float rv_load(const float *p, int32_t k) { return p[k]; }
static inline void rv_store(float *p, int32_t k, float v) { p[k] = v; }
static inline void *rv_align(void *p, int32_t alignment) { (void)alignment; return p; }
#endif

#undef LANEWISE_RV_DECL

/* Put before a function (with its `declare simd` pragma) whose lanes each
 * compute and do what they would in any group of lanes, one lane alone
 * included: the builtins only decide how the lanes share work, as in a
 * lock-step tree walk that pushes a child when any lane wants it and gives
 * every lane the node its own walk finds. Lanewise may then run a call in
 * the function's one-lane form (the builtins with their bracketed meaning,
 * each lane walking its own path, still in vector registers) when that
 * form is faster, chosen at run time (README, "Run-time safety net"). A
 * function whose results depend on the grouping must not carry it. */
#if defined(__clang__)
#define RV_LANES_INDEPENDENT __attribute__((annotate("lanewise.lanes-independent")))
#else
#define RV_LANES_INDEPENDENT
#endif

#ifdef __cplusplus
}
#endif

#endif /* LANEWISE_RV_H */
