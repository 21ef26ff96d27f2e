/* costdsl's C API: cost models for simulators and planners that are not C++.
 *
 * A model is opened once from options (a shipped arch or a config.json, its parallel
 * layout, quantization, GPU and timing source) and then asked for one iteration's GPU
 * time as often as a simulator steps: no allocation, no parsing on that path. simulate,
 * plan and eval run exactly as the command line does and hand back its --json output.
 *
 * Options are one JSON object whose keys are the command line's long flags without the
 * dashes ("tp", "model-config" or "model_config", "gpu", "kv-dtype", ...): a string or a
 * number is the flag's value, true sets a switch (false and null leave it out), an array
 * repeats the flag once per element. So every option, its default and its error message
 * are the CLI's (`costdsl eval --help`, `costdsl simulate --help`, `costdsl plan --help`).
 *
 * Errors: every call returns a costdsl_status; on failure costdsl_last_error() holds the
 * message (the field, the value and the rule, as the CLI prints it) until the calling
 * thread's next call. No C++ exception crosses this boundary.
 *
 * Threads: calls on one model may run concurrently (each thread evaluates on its own copy
 * of the model's tree, made on first use); closing a model while another thread uses it
 * is safe (the last call in flight releases it). A handle used after it was closed is an
 * error (COSTDSL_ERROR_CLOSED), not a crash.
 *
 * Link with pkg-config's costdsl-c (libcostdsl-c). */
#ifndef COSTDSL_C_COSTDSL_H
#define COSTDSL_C_COSTDSL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define COSTDSL_C_API_VERSION 1

typedef enum costdsl_status {
  COSTDSL_OK = 0,
  COSTDSL_ERROR_INPUT = 1,    /* a bad option, value, batch or input file */
  COSTDSL_ERROR_CONFIG = 2,   /* the model rejects the layout (e.g. a degree that does not divide its heads) */
  COSTDSL_ERROR_DATA = 3,     /* a malformed data file (FILE:LINE:COL) */
  COSTDSL_ERROR_NULL = 4,     /* a required pointer argument is NULL */
  COSTDSL_ERROR_CLOSED = 5,   /* the model handle was closed (or never opened) */
  COSTDSL_ERROR_INTERNAL = 6  /* a bug in costdsl: the message says what; please report it */
} costdsl_status;

/* Kernel families, the order of costdsl_iteration.family_s. */
enum {
  COSTDSL_FAMILY_GEMM = 0,
  COSTDSL_FAMILY_ATTENTION = 1,
  COSTDSL_FAMILY_MEMORY = 2,
  COSTDSL_FAMILY_COMMUNICATION = 3,
  COSTDSL_FAMILY_OTHER = 4,
  COSTDSL_FAMILY_COUNT = 5
};

/* Coverage flags: how the leaves of an iteration were timed (0: every leaf measured). */
enum {
  COSTDSL_COVERAGE_EXTRAPOLATED = 1 << 0, /* a query left a measured grid */
  COSTDSL_COVERAGE_NO_COVERAGE = 1 << 1,  /* no data at all: not to be trusted */
  COSTDSL_COVERAGE_ANALYTIC = 1 << 2,     /* the calibrated roofline answered, not a measurement */
  COSTDSL_COVERAGE_RENORMALIZED = 1 << 3, /* an interpolation corner was missing and estimated */
  COSTDSL_COVERAGE_SCALED = 1 << 4        /* a measured neighbour's config scaled by the roofline */
};

typedef struct costdsl_model costdsl_model;

/* One prefill chunk of an iteration: `cached` tokens already in the KV cache, `new_tokens`
 * computed now (at least 1). */
typedef struct costdsl_prefill_chunk {
  uint32_t cached;
  uint32_t new_tokens;
} costdsl_prefill_chunk;

/* One iteration's cost. family_s splits time_s by kernel family along the critical path
 * (the parts add up to time_s); coverage ORs every leaf's COSTDSL_COVERAGE_* flags. */
typedef struct costdsl_iteration {
  double time_s;
  double energy_j;
  double flops;
  double bytes;
  double family_s[COSTDSL_FAMILY_COUNT];
  uint32_t coverage;
} costdsl_iteration;

/* "1.0.0" style version of the library, and COSTDSL_C_API_VERSION as it was built. */
const char* costdsl_version(void);
int costdsl_api_version(void);

/* The message of the calling thread's last failed call ("" after a success). Valid until
 * that thread's next costdsl call. */
const char* costdsl_last_error(void);

/* Opens a model: the options of `costdsl eval` but the batch (arch or model-config,
 * family, quant, kv-dtype, tp, ep, dp, hp, kv-replicate, hop-b, routing-skew, gpu,
 * timing, profile-dir, kernel-framework). On success *out is the new handle. */
costdsl_status costdsl_model_open(const char* options_json, costdsl_model** out);

/* Releases the handle (NULL: nothing to do). A later call with it fails with
 * COSTDSL_ERROR_CLOSED. */
void costdsl_model_close(costdsl_model* model);

/* One iteration of `n_prefill` prefill chunks and `n_decode` decodes (decode_kv[i]: the
 * KV length request i attends to, at least 1) into *out. An array may be NULL when its
 * count is 0. The same numbers as `costdsl eval --json` for the same model and batch. */
costdsl_status costdsl_model_iteration(costdsl_model* model, const costdsl_prefill_chunk* prefill, size_t n_prefill,
                                       const uint32_t* decode_kv, size_t n_decode, costdsl_iteration* out);

/* The same iteration's time alone, in seconds: the call a simulator makes every step
 * (no breakdown, so a little cheaper). Bitwise costdsl_model_iteration's time_s. */
costdsl_status costdsl_model_time(costdsl_model* model, const costdsl_prefill_chunk* prefill, size_t n_prefill,
                                  const uint32_t* decode_kv, size_t n_decode, double* seconds);

/* Runs a command ("simulate", "plan" or "eval") with `options_json` as its flags and
 * --json, exactly as `costdsl <command> ... --json` prints it. On success *out_json is a
 * NUL-terminated string to release with costdsl_string_free. */
costdsl_status costdsl_run_json(const char* command, const char* options_json, char** out_json);

void costdsl_string_free(char* s);

#ifdef __cplusplus
}
#endif

#endif /* COSTDSL_C_COSTDSL_H */
