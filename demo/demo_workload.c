// sonde's bundled demo workload: a loop of two known functions, so a profile
// of it has an obvious answer: about 60% of the samples in compute_primes, and
// most of the rest in hash_strings and the libc formatting it calls
// (snprintf, strlen).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// The two functions keep their names in every build: noinline, and for gcc
// noclone (no compute_primes.constprop.0); clang has no noclone attribute.
#if defined(__clang__)
#define DEMO_KEEP_NAME __attribute__((noinline))
#else
#define DEMO_KEEP_NAME __attribute__((noinline, noclone))
#endif

DEMO_KEEP_NAME static uint64_t compute_primes(uint64_t limit) {
  uint64_t count = 0;
  for (uint64_t n = 2; n < limit; ++n) {
    int prime = 1;
    for (uint64_t d = 2; d * d <= n; ++d)
      if (n % d == 0) {
        prime = 0;
        break;
      }
    count += (uint64_t)prime;
  }
  return count;
}

DEMO_KEEP_NAME static uint64_t hash_strings(int rounds) {
  char buf[64];
  uint64_t h = 1469598103934665603ULL;
  for (int r = 0; r < rounds; ++r) {
    snprintf(buf, sizeof buf, "key-%d", r);
    for (size_t i = 0; i < strlen(buf); ++i) h = (h ^ (uint8_t)buf[i]) * 1099511628211ULL;
  }
  return h;
}

/* The process's CPU time: SECONDS is an amount of work, so a loaded machine
 * makes the run longer but does not shrink what a profile of it holds. */
static double cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char** argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 1.0;
  double start = cpu_seconds();
  uint64_t acc = 0;
  while (cpu_seconds() - start < seconds) {
    acc += compute_primes(60000);
    acc += hash_strings(40000);
  }
  printf("demo workload done (%llu)\n", (unsigned long long)(acc & 0xff));
  return 0;
}
