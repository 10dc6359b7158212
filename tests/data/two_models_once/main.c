// The two-model application calling each model once: its test on the cluster's
// simulator takes half the time, and one call says as much about the outputs.
#define ONE_CALL_EACH
#include "../two_models_app/main.c"
