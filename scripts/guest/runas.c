// SPDX-License-Identifier: GPL-2.0
/*
 * runas UID GID CMD [ARGS...]
 *
 * Drop all privileges (supplementary groups, gid, uid, capabilities) and
 * exec CMD.  Built static and used by the guest init to run unprivileged
 * tests.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT			47
#define PR_CAP_AMBIENT_CLEAR_ALL	4
#endif

static unsigned long parse_id(const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *s == '\0' || *end != '\0') {
		fprintf(stderr, "runas: bad id '%s'\n", s);
		exit(127);
	}
	return v;
}

int main(int argc, char **argv)
{
	uid_t uid;
	gid_t gid;

	if (argc < 4) {
		fprintf(stderr, "usage: runas UID GID CMD [ARGS...]\n");
		return 127;
	}
	uid = parse_id(argv[1]);
	gid = parse_id(argv[2]);

	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid)) {
		perror("runas: dropping privileges");
		return 127;
	}
	/* With uid != 0 the kernel clears the permitted/effective sets. */
	if (uid != 0 && (setuid(0) == 0 || geteuid() == 0)) {
		fprintf(stderr, "runas: privileges still present\n");
		return 127;
	}
	setenv("HOME", "/tmp", 1);
	execvp(argv[3], argv + 3);
	fprintf(stderr, "runas: exec %s: %s\n", argv[3], strerror(errno));
	return 127;
}
