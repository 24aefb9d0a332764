// sonde's bundled demo workload: a loop of two known functions, so a profile
// of it has an obvious answer: about 60% of the samples in compute_primes, and
// most of the rest in hash_strings and the libc formatting it calls
// (snprintf, strlen).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>

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

/* SECONDS is an amount of the process's CPU time, so a loaded machine makes
 * the run longer but does not shrink what a profile of it holds. A timer
 * signal ends the loop rather than a clock read per round: clock_gettime
 * runs in the vdso, whose symbols change with the kernel build. */
static volatile sig_atomic_t done;
static void on_cpu_timer(int sig) {
  (void)sig;
  done = 1;
}

static void stop_after_cpu(double seconds) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_cpu_timer;
  sigaction(SIGPROF, &sa, NULL);
  struct itimerval t;
  memset(&t, 0, sizeof t);
  if (seconds < 1e-6) seconds = 1e-6;
  t.it_value.tv_sec = (time_t)seconds;
  t.it_value.tv_usec = (suseconds_t)((seconds - (double)t.it_value.tv_sec) * 1e6);
  setitimer(ITIMER_PROF, &t, NULL);
}

int main(int argc, char** argv) {
  stop_after_cpu(argc > 1 ? atof(argv[1]) : 1.0);
  uint64_t acc = 0;
  while (!done) {
    acc += compute_primes(60000);
    acc += hash_strings(40000);
  }
  printf("demo workload done (%llu)\n", (unsigned long long)(acc & 0xff));
  return 0;
}
