/*
 * remote_rootdir.c: a standard-universe test job for `rootdir`: every
 * path it names is inside the directory the job was confined to on the
 * submitting host, whatever the path says ("/", "..", symbolic links
 * out, /proc).  It prints what it finds; the pool test compares the
 * lines with what the jail holds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void
show_file(const char *what, const char *path)
{
	char buf[128];
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY)) == -1) {
		printf("%-22s %s\n", what, strerrorname_np(errno));
		return;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	printf("%-22s [%s]\n", what, buf);
}

int
main(void)
{
	struct stat root, up;
	char cwd[256];
	FILE *f;

	if (getcwd(cwd, sizeof(cwd)) == NULL)
		strcpy(cwd, strerrorname_np(errno));
	printf("%-22s %s\n", "cwd", cwd);
	show_file("/marker.txt", "/marker.txt");
	show_file("../../../marker.txt", "../../../marker.txt");
	show_file("in.txt", "in.txt");
	show_file("/etc/hostname", "/etc/hostname");
	show_file("escape link", "escape");
	show_file("/proc/self/status", "/proc/self/status");
	if (stat("/", &root) == 0 && stat("../../../../..", &up) == 0)
		printf("%-22s %s\n", "../../../../.. is /",
		    root.st_ino == up.st_ino && root.st_dev == up.st_dev ?
		    "yes" : "no");
	if ((f = fopen("/written.txt", "w")) != NULL) {
		fprintf(f, "written in the jail\n");
		fclose(f);
		printf("%-22s ok\n", "write /written.txt");
	} else
		printf("%-22s %s\n", "write /written.txt",
		    strerrorname_np(errno));
	printf("done\n");
	return 0;
}
