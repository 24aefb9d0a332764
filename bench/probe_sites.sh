# Writes a C program with N functions site_0..site_{N-1}(struct req *r, int a,
# long b) (sourced by bench/probe.sh). It prints `live NS` (CLOCK_REALTIME at
# main's start: when the workload runs) and `loop_ns NS` for CALLS calls spread
# over the sites, so a bench can take the time to live and the cost per hit.
# Usage: write_sites_program N FILE.c
write_sites_program() {
  local n=$1 out=$2 i
  {
    echo '#include <stdio.h>'
    echo '#include <stdlib.h>'
    echo '#include <time.h>'
    echo 'struct req { int id; long size; };'
    echo '#define SITE(n) __attribute__((noinline)) long site_##n(struct req *r, int a, long b) { return r->id + a + b + n; }'
    for ((i = 0; i < n; i++)); do echo "SITE($i)"; done
    echo 'static long (*const sites[])(struct req *, int, long) = {'
    for ((i = 0; i < n; i++)); do echo "  site_$i,"; done
    echo '};'
    cat <<'C'
static long ns(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}
int main(int argc, char **argv) {
  printf("live %ld\n", ns(CLOCK_REALTIME));
  long calls = argc > 1 ? atol(argv[1]) : 0, n = sizeof sites / sizeof sites[0];
  volatile long sum = 0;
  struct req r = {0, 2};
  long t0 = ns(CLOCK_MONOTONIC);
  for (long i = 0; i < calls; i++) {
    r.id = (int)i;
    sum += sites[i % n](&r, (int)i, i * 2);
  }
  printf("loop_ns %ld\n", ns(CLOCK_MONOTONIC) - t0);
  return 0;
}
C
  } >"$out"
}
