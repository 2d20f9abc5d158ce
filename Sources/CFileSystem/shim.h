/* What Glibc's Swift module leaves out: statfs and the file systems' magic numbers, to tell a local file system. */
#include <sys/vfs.h>
#include <linux/magic.h>
