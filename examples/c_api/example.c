/* The README's "From C" section: the code between the [from-c] markers, compiled and run
 * by the suite (examples/c_api/meson.build). */
/* [from-c] */
#include <stdio.h>

#include <costdsl/c/costdsl.h>

int main(void) {
  costdsl_model* model = NULL;
  if (costdsl_model_open("{\"arch\": \"llama3_70b\", \"gpu\": \"h100\", \"tp\": 8}", &model) != COSTDSL_OK) {
    fprintf(stderr, "costdsl: %s\n", costdsl_last_error());
    return 1;
  }
  costdsl_prefill_chunk chunk = {0, 4096};  /* 0 tokens cached, 4096 computed */
  uint32_t kv[64];
  for (int i = 0; i < 64; ++i) kv[i] = 1024;  /* 64 decodes at KV length 1024 */
  costdsl_iteration it;
  if (costdsl_model_iteration(model, &chunk, 1, kv, 64, &it) != COSTDSL_OK) {
    fprintf(stderr, "costdsl: %s\n", costdsl_last_error());
    return 1;
  }
  printf("iteration %.3f ms, of which GEMMs %.3f ms, communication %.3f ms%s\n", it.time_s * 1e3,
         it.family_s[COSTDSL_FAMILY_GEMM] * 1e3, it.family_s[COSTDSL_FAMILY_COMMUNICATION] * 1e3,
         (it.coverage & COSTDSL_COVERAGE_ANALYTIC) ? " (some leaves on the roofline)" : "");

  char* json = NULL;  /* a whole deployment, as `costdsl simulate ... --json` prints it */
  if (costdsl_run_json("simulate", "{\"arch\": \"llama3_8b\", \"gpu\": \"h100\", \"batch\": 8, "
                                   "\"isl\": 1024, \"osl\": 128}", &json) != COSTDSL_OK) {
    fprintf(stderr, "costdsl: %s\n", costdsl_last_error());
    return 1;
  }
  printf("%.60s...\n", json);
  costdsl_string_free(json);
  costdsl_model_close(model);
  return 0;
}
/* [from-c] */
