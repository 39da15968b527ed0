// srv PORT WORK_US: a server with a thread per connection, as PostgreSQL and MariaDB have: each
// reads a 16-byte request, spends WORK_US of CPU and replies 64 bytes (scripts/pingpong.sh).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>
#include <time.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
static int work_us;
static double now() { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static void *serve(void *arg) {
  int fd = (int)(long)arg; char req[16], rep[64]; memset(rep, 'x', 64);
  for (;;) {
    int got = 0; while (got < 16) { int n = read(fd, req + got, 16 - got); if (n <= 0) { close(fd); return 0; } got += n; }
    double end = now() + work_us / 1e6; while (now() < end) ;
    if (write(fd, rep, 64) != 64) { close(fd); return 0; }
  }
}
int main(int argc, char **argv) {
  work_us = atoi(argv[2]);
  int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1; setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, 4);
  struct sockaddr_in a = {0}; a.sin_family = AF_INET; a.sin_port = htons(atoi(argv[1])); a.sin_addr.s_addr = htonl(0x7f000001);
  if (bind(ls, (void *)&a, sizeof a) || listen(ls, 16)) { perror("bind"); return 1; }
  for (;;) { int fd = accept(ls, 0, 0); setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, 4); pthread_t t; pthread_create(&t, 0, serve, (void *)(long)fd); pthread_detach(t); }
}
