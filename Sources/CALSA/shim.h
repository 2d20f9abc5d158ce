#include <alsa/asoundlib.h>

/* alsa-lib's error handler is variadic, which Swift cannot implement: this one drops the message, so that
   the library reports failures through its own typed errors instead of alsa-lib's stderr chatter. */
static void calsa_ignore_error(const char *file, int line, const char *function, int err, const char *fmt, ...) {}
static inline void calsa_silence_errors(void) { snd_lib_error_set_handler(calsa_ignore_error); }
