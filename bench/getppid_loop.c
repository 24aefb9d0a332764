// bench/trace.sh's workload: N getppid() system calls (default 1000000),
// made with syscall(2) so no C library cache answers them.
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char** argv) {
  long n = argc > 1 ? strtol(argv[1], 0, 10) : 1000000;
  for (long i = 0; i < n; ++i) syscall(SYS_getppid);
  return 0;
}
