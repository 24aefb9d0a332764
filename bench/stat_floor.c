/* The floor of `stat -- CMD` on this machine: what any counting tool must do,
 * and nothing else. Forks CMD parked on a pipe, opens perf stat's default
 * events on it (4 software counters with enable_on_exec, 4 hardware ones the
 * kernel may refuse), lets it exec, waits, reads and prints the counts.
 * bench/stat.sh times it beside sonde and perf: no tool can start and stop
 * faster than this program. usage: stat_floor [--] CMD [ARGS...] */
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int open_counter(unsigned type, unsigned long long config, pid_t pid) {
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = type;
  a.config = config;
  a.disabled = 1;
  a.inherit = 1;
  a.enable_on_exec = 1;
  a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  return (int)syscall(SYS_perf_event_open, &a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

int main(int argc, char** argv) {
  static const unsigned long long sw[] = {PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_CONTEXT_SWITCHES,
                                          PERF_COUNT_SW_CPU_MIGRATIONS, PERF_COUNT_SW_PAGE_FAULTS};
  int go[2], fds[8], status = 0;
  if (argc > 1 && strcmp(argv[1], "--") == 0) argv++, argc--;
  if (argc < 2 || pipe(go) != 0) return 2;
  pid_t child = fork();
  if (child == 0) {
    char c;
    close(go[1]);
    if (read(go[0], &c, 1) != 1) _exit(127);
    execvp(argv[1], argv + 1);
    _exit(127);
  }
  for (int i = 0; i < 4; i++) fds[i] = open_counter(PERF_TYPE_SOFTWARE, sw[i], child);
  for (int i = 0; i < 4; i++) fds[4 + i] = open_counter(PERF_TYPE_HARDWARE, (unsigned long long)i, child);
  close(go[0]);
  if (write(go[1], "x", 1) != 1) return 1;
  waitpid(child, &status, 0);
  for (int i = 0; i < 8; i++) {
    unsigned long long v[3] = {0, 0, 0};
    if (fds[i] < 0 || read(fds[i], v, sizeof v) != sizeof v) {
      fprintf(stderr, "%18s      event %d\n", "<not supported>", i);
      continue;
    }
    fprintf(stderr, "%18llu      event %d\n", v[0], i);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
