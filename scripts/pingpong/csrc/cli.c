// cli PORT THREADS SECS THINK_US: a C client, a thread per connection blocking in read as libpq's
// and libmariadb's do, THINK_US of CPU between a reply and the next request (scripts/pingpong.sh).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>
#include <time.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/resource.h>
static int port, secs, think_us; static long counts[64];
static double now() { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static void *run(void *arg) {
  long id = (long)arg; int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1; setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, 4);
  struct sockaddr_in a = {0}; a.sin_family = AF_INET; a.sin_port = htons(port); a.sin_addr.s_addr = htonl(0x7f000001);
  if (connect(fd, (void *)&a, sizeof a)) { perror("connect"); exit(1); }
  char req[16] = {0}, rep[64]; double stop = now() + secs;
  while (now() < stop) {
    write(fd, req, 16); int got = 0; while (got < 64) { int n = read(fd, rep + got, 64 - got); if (n <= 0) exit(1); got += n; }
    double end = now() + think_us / 1e6; while (now() < end) ;
    counts[id]++;
  }
  return 0;
}
int main(int argc, char **argv) {
  port = atoi(argv[1]); int n = atoi(argv[2]); secs = atoi(argv[3]); think_us = atoi(argv[4]);
  pthread_t t[64]; for (long i = 0; i < n; i++) pthread_create(&t[i], 0, run, (void *)i);
  long total = 0; for (int i = 0; i < n; i++) { pthread_join(t[i], 0); total += counts[i]; }
  struct rusage ru; getrusage(RUSAGE_SELF, &ru); double cpu = ru.ru_utime.tv_sec*1e6 + ru.ru_utime.tv_usec + ru.ru_stime.tv_sec*1e6 + ru.ru_stime.tv_usec;
  printf("C       %8.0f req/s  %5.1f us CPU/req\n", total / (double)secs, cpu / total);
}
