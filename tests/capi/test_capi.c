/* The C API from plain C: results, every bad input a clear error (never a crash), and
 * concurrent evaluations on one model equal to the single-threaded ones. Built with the C
 * compiler; run under ASan + UBSan where the build has them (tests/capi/meson.build). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <costdsl/c/costdsl.h>

static int failures = 0;

#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) {                                         \
      ++failures;                                          \
      fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                        \
      fprintf(stderr, "\n");                               \
    }                                                      \
  } while (0)

/* A failed call's status and a message containing `needle`. */
static void expect_error(costdsl_status got, costdsl_status want, const char* needle, const char* what) {
  CHECK(got == want, "%s: status %d, want %d (%s)", what, (int)got, (int)want, costdsl_last_error());
  CHECK(strstr(costdsl_last_error(), needle) != NULL, "%s: message '%s' lacks '%s'", what, costdsl_last_error(),
        needle);
}

static const char* llama = "{\"arch\": \"llama3_70b\", \"gpu\": \"h100\", \"tp\": 8}";

struct job {
  costdsl_model* model;
  uint32_t kv;
  double want;
  int bad;
};

static void* worker(void* p) {
  struct job* j = (struct job*)p;
  uint32_t kv[32];
  for (int i = 0; i < 32; ++i) kv[i] = j->kv;
  costdsl_prefill_chunk chunk = {128, 512};
  for (int r = 0; r < 200; ++r) {
    double s = 0;
    if (costdsl_model_time(j->model, &chunk, 1, kv, 32, &s) != COSTDSL_OK || s != j->want) ++j->bad;
  }
  return NULL;
}

int main(void) {
  CHECK(costdsl_api_version() == COSTDSL_C_API_VERSION, "api version %d", costdsl_api_version());
  CHECK(strlen(costdsl_version()) > 0, "empty version");

  costdsl_model* m = NULL;
  CHECK(costdsl_model_open(llama, &m) == COSTDSL_OK && m != NULL, "open: %s", costdsl_last_error());
  CHECK(strcmp(costdsl_last_error(), "") == 0, "a success leaves no message: '%s'", costdsl_last_error());

  /* One iteration: a positive time whose family parts add up to it; time == iteration's. */
  costdsl_prefill_chunk chunk = {0, 4096};
  uint32_t kv[64];
  for (int i = 0; i < 64; ++i) kv[i] = 1024 + (uint32_t)i;
  costdsl_iteration it;
  memset(&it, 0, sizeof it);
  CHECK(costdsl_model_iteration(m, &chunk, 1, kv, 64, &it) == COSTDSL_OK, "iteration: %s", costdsl_last_error());
  double parts = 0;
  for (int f = 0; f < COSTDSL_FAMILY_COUNT; ++f) {
    CHECK(it.family_s[f] >= 0, "family %d negative", f);
    parts += it.family_s[f];
  }
  CHECK(it.time_s > 0 && fabs(parts - it.time_s) <= 1e-9 * it.time_s, "families %.17g vs total %.17g", parts,
        it.time_s);
  CHECK(it.family_s[COSTDSL_FAMILY_GEMM] > 0 && it.family_s[COSTDSL_FAMILY_COMMUNICATION] > 0,
        "TP 8 runs GEMMs and all-reduces");
  CHECK(it.flops > 0 && it.bytes > 0 && it.energy_j > 0, "work and energy");
  double s = 0;
  CHECK(costdsl_model_time(m, &chunk, 1, kv, 64, &s) == COSTDSL_OK && s == it.time_s, "time %.17g vs %.17g", s,
        it.time_s);
  /* More decodes cost more; an empty batch costs nothing but is valid. */
  double fewer = 0;
  CHECK(costdsl_model_time(m, &chunk, 1, kv, 8, &fewer) == COSTDSL_OK && fewer < s, "8 vs 64 decodes");
  CHECK(costdsl_model_time(m, NULL, 0, NULL, 0, &fewer) == COSTDSL_OK, "empty batch: %s", costdsl_last_error());

  /* Bad input: each a status and a message, the model still usable after. */
  costdsl_model* bad = (costdsl_model*)1;
  expect_error(costdsl_model_open(NULL, &bad), COSTDSL_ERROR_NULL, "options_json is NULL", "open(NULL options)");
  CHECK(bad == NULL, "a failed open sets *out to NULL");
  expect_error(costdsl_model_open(llama, NULL), COSTDSL_ERROR_NULL, "out is NULL", "open(NULL out)");
  expect_error(costdsl_model_open("{\"arch\": \"llama3_70b\", \"gpu\": \"h100\", \"tp\": 7}", &bad),
               COSTDSL_ERROR_CONFIG, "tp 7 does not divide", "tp 7");
  CHECK(bad == NULL, "a failed open sets *out to NULL");
  expect_error(costdsl_model_open("{\"arch\": \"llama3_70b\", \"gpu\": \"h300\"}", &bad), COSTDSL_ERROR_INPUT,
               "unknown gpu 'h300'", "unknown gpu");
  expect_error(costdsl_model_open("{\"arch\": \"llama3_70b\"}", &bad), COSTDSL_ERROR_INPUT, "--gpu", "no gpu");
  expect_error(costdsl_model_open("{\"arch\": \"llama3_70b\", \"gpu\": \"h100\", \"tp\": 0}", &bad),
               COSTDSL_ERROR_INPUT, "--tp", "tp 0");
  expect_error(costdsl_model_open("{\"arch\": \"llama3_70b\", \"gpu\": \"h100\", \"tp\": {}}", &bad),
               COSTDSL_ERROR_INPUT, "option 'tp'", "tp as an object");
  expect_error(costdsl_model_open("[1, 2]", &bad), COSTDSL_ERROR_INPUT, "must be a JSON object", "array options");
  expect_error(costdsl_model_open("{\"arch\": ", &bad), COSTDSL_ERROR_INPUT, "not JSON", "truncated JSON");
  expect_error(costdsl_model_open("{\"arch\": \"llama3_70b\", \"gpu\": \"h100\", \"--tp\": 8}", &bad),
               COSTDSL_ERROR_INPUT, "without its dashes", "dashed name");
  expect_error(costdsl_model_open("{\"arch\": \"llama3_70b\", \"gpu\": \"h100\", \"speed\": 8}", &bad),
               COSTDSL_ERROR_INPUT, "--speed", "unknown option");
  expect_error(costdsl_model_open("{\"arch\": \"llama3_70b\", \"gpu\": \"h100\", \"routing-skew\": -1}", &bad),
               COSTDSL_ERROR_INPUT, "--routing-skew", "negative skew");
  expect_error(costdsl_model_open("{\"model-config\": \"/nonexistent.json\", \"gpu\": \"h100\"}", &bad),
               COSTDSL_ERROR_INPUT, "/nonexistent.json", "missing config.json");

  expect_error(costdsl_model_iteration(NULL, &chunk, 1, kv, 64, &it), COSTDSL_ERROR_NULL, "model is NULL",
               "iteration(NULL model)");
  expect_error(costdsl_model_iteration(m, &chunk, 1, kv, 64, NULL), COSTDSL_ERROR_NULL, "out is NULL",
               "iteration(NULL out)");
  expect_error(costdsl_model_iteration(m, NULL, 2, kv, 64, &it), COSTDSL_ERROR_NULL, "prefill is NULL with n_prefill 2",
               "NULL prefill");
  expect_error(costdsl_model_time(m, &chunk, 1, NULL, 3, &s), COSTDSL_ERROR_NULL, "decode_kv is NULL with n_decode 3",
               "NULL decode");
  expect_error(costdsl_model_time(m, &chunk, 1, kv, 64, NULL), COSTDSL_ERROR_NULL, "seconds is NULL",
               "NULL seconds");
  uint32_t zero_kv[3] = {5, 0, 7};
  expect_error(costdsl_model_time(m, NULL, 0, zero_kv, 3, &s), COSTDSL_ERROR_INPUT, "decode request 1", "KV length 0");
  costdsl_prefill_chunk empty_chunk = {10, 0};
  expect_error(costdsl_model_time(m, &empty_chunk, 1, NULL, 0, &s), COSTDSL_ERROR_INPUT, "append_len is 0",
               "empty chunk");
  double again = 0;
  CHECK(costdsl_model_time(m, &chunk, 1, kv, 64, &again) == COSTDSL_OK && again == it.time_s,
        "the model answers as before after rejected batches");

  /* Concurrent evaluations on one model: each thread its own batch, every answer equal to
   * the single-threaded one. */
  enum { threads = 4 };
  pthread_t t[threads];
  struct job jobs[threads];
  for (int i = 0; i < threads; ++i) {
    uint32_t kvs[32];
    for (int k = 0; k < 32; ++k) kvs[k] = 100u * (uint32_t)(i + 1);
    costdsl_prefill_chunk c = {128, 512};
    jobs[i].model = m;
    jobs[i].kv = 100u * (uint32_t)(i + 1);
    jobs[i].bad = 0;
    CHECK(costdsl_model_time(m, &c, 1, kvs, 32, &jobs[i].want) == COSTDSL_OK, "thread %d baseline", i);
  }
  for (int i = 0; i < threads; ++i) pthread_create(&t[i], NULL, worker, &jobs[i]);
  for (int i = 0; i < threads; ++i) pthread_join(t[i], NULL);
  for (int i = 0; i < threads; ++i) CHECK(jobs[i].bad == 0, "thread %d: %d answers differed", i, jobs[i].bad);

  /* simulate and plan through the CLI's own code, as JSON. */
  char* json = (char*)1;
  CHECK(costdsl_run_json("simulate",
                         "{\"arch\": \"llama3_8b\", \"gpu\": \"h100\", \"batch\": 4, \"isl\": 512, \"osl\": 32}",
                         &json) == COSTDSL_OK && json != NULL && strstr(json, "\"ttft_ms\"") != NULL,
        "simulate: %s", costdsl_last_error());
  costdsl_string_free(json);
  expect_error(costdsl_run_json("simulate", "{\"arch\": \"llama3_8b\", \"gpu\": \"h100\", \"batch\": 4}", &json),
               COSTDSL_ERROR_INPUT, "--isl is required", "simulate without --isl");
  CHECK(json == NULL, "a failed run sets *out_json to NULL");
  expect_error(costdsl_run_json("import", "{}", &json), COSTDSL_ERROR_INPUT, "command 'import'", "unknown command");
  expect_error(costdsl_run_json("plan", "{\"help\": true}", &json), COSTDSL_ERROR_INPUT, "--help` lists them",
               "help asked through the API");
  expect_error(costdsl_run_json(NULL, "{}", &json), COSTDSL_ERROR_NULL, "command is NULL", "NULL command");
  expect_error(costdsl_run_json("plan", NULL, &json), COSTDSL_ERROR_NULL, "options_json is NULL", "NULL options");
  expect_error(costdsl_run_json("plan", "{}", NULL), COSTDSL_ERROR_NULL, "out_json is NULL", "NULL out");
  expect_error(costdsl_run_json("simulate", "{\"arch\": \"llama3_8b\", \"isl\": 1e999}", &json), COSTDSL_ERROR_INPUT,
               "", "a number beyond a double");

  /* A closed handle is an error, not a crash; closing twice or NULL does nothing. */
  costdsl_model_close(m);
  expect_error(costdsl_model_time(m, &chunk, 1, kv, 64, &s), COSTDSL_ERROR_CLOSED, "closed", "closed model");
  costdsl_model_close(m);
  costdsl_model_close(NULL);
  expect_error(costdsl_model_time((costdsl_model*)&chunk, &chunk, 1, kv, 64, &s), COSTDSL_ERROR_CLOSED, "closed",
               "a pointer that was never a model");

  if (failures == 0) printf("test_capi: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
