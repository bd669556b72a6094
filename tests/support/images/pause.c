/*
 * The sandbox ("pause") process for denolet's test images: holds the pod's namespaces open,
 * reaps zombies when it is PID 1 of a shared PID namespace, exits 0 on SIGINT/SIGTERM.
 * Built with `gcc -static -Os` by tests/support/images.ts.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void on_exit_signal(int sig) {
  (void)sig;
  _exit(0);
}

static void on_child(int sig) {
  (void)sig;
  while (waitpid(-1, NULL, WNOHANG) > 0) {
  }
}

static int install(int sig, void (*handler)(int)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
  return sigaction(sig, &sa, NULL);
}

int main(int argc, char **argv) {
  (void)argv;
  if (argc > 1) {
    puts("denolet-pause 1.0");
    return 0;
  }
  if (getpid() != 1) {
    fprintf(stderr, "pause: warning: not running as PID 1\n");
  }
  if (install(SIGINT, on_exit_signal) < 0 || install(SIGTERM, on_exit_signal) < 0 ||
      install(SIGCHLD, on_child) < 0) {
    perror("pause: sigaction");
    return 1;
  }
  for (;;) {
    pause();
  }
  return 42; /* unreachable */
}
