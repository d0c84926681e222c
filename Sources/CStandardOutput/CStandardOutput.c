// CStandardOutput.h says what this is and why.
#define _GNU_SOURCE
#include "CStandardOutput.h"

#include <errno.h>
#include <stdatomic.h>
#include <unistd.h>

static atomic_int first_error;

// All of `size` to descriptor 1 (a short write goes on, an interrupted one is retried); on a
// failure its errno is kept (the first only) and the bytes written returned: fewer than asked,
// so C marks the stream's error flag.
static ssize_t write_all(void *cookie, const char *buffer, size_t size) {
    (void)cookie;
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(1, buffer + done, size - done);
        if (n >= 0) {
            done += (size_t)n;
            continue;
        }
        if (errno == EINTR) continue;
        int expected = 0;
        atomic_compare_exchange_strong(&first_error, &expected, errno);
        break;
    }
    return (ssize_t)done;
}

int cso_install(int by_line) {
    cookie_io_functions_t io = {.read = NULL, .write = write_all, .seek = NULL, .close = NULL};
    FILE *stream = fopencookie(NULL, "w", io);
    if (stream == NULL) return -1;
    setvbuf(stream, NULL, by_line ? _IOLBF : _IOFBF, BUFSIZ);
    fflush(stdout);
    stdout = stream;
    return 0;
}

int cso_finish(int *cause) {
    errno = 0;
    int flushed = fflush(stdout) == 0;
    int kept = atomic_load(&first_error);
    *cause = kept != 0 ? kept : errno;
    return flushed && !ferror(stdout) ? 0 : 1;
}
