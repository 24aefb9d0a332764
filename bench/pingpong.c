// A context-switch-heavy workload for bench/offcpu.sh: two threads pass a
// byte back and forth over two pipes, N round trips (each round trip is two
// blocking reads, so about four context switches). Prints the round trips
// per second it achieved and the elapsed time: "rt_per_s=N elapsed_ns=N".
// Pinned to one CPU (the caller's taskset), every hand-off is a switch.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int ab[2], ba[2];
static long rounds;

static void* echo(void* arg) {
  (void)arg;
  char c;
  for (long i = 0; i < rounds; i++) {
    if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1) exit(1);
  }
  return NULL;
}

int main(int argc, char** argv) {
  rounds = argc > 1 ? atol(argv[1]) : 200000;
  if (pipe(ab) || pipe(ba)) return 1;
  pthread_t t;
  pthread_create(&t, NULL, echo, NULL);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  char c = 'x';
  for (long i = 0; i < rounds; i++) {
    if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1) return 1;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  pthread_join(t, NULL);
  long long ns = (t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec);
  printf("rt_per_s=%.0f elapsed_ns=%lld\n", rounds * 1e9 / (double)ns, ns);
  return 0;
}
