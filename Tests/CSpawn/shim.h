// glibc's GNU extensions that the tests' ChildProcess spawns children with. Swift's Glibc module is built
// without _GNU_SOURCE, which hides their declarations; the functions themselves are in every glibc ≥ 2.34.
#ifndef TANDEM_CSPAWN_SHIM_H
#define TANDEM_CSPAWN_SHIM_H
#include <spawn.h>

int pipe2(int pipefd[2], int flags);
int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

#endif
