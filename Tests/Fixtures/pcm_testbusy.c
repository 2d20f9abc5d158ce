/* A PCM only one opener may hold at a time, as a sound card's hw device: an alsa-lib external PCM plugin
 * (<alsa/pcm_external.h>) for tests. Opening takes an exclusive flock on a lock file; a second opener, in this
 * process or another, gets -EBUSY until the first closes it (or a test holds the lock itself, as another program
 * would hold the device). While the file LOCK.taken exists, a running stream is taken away: it fails with -EBUSY,
 * and so does preparing it again, until the file is removed. It captures silence, and plays into nothing or, given a
 * file, appends what is played to it as it is written (raw frames in the format opened: what the device got, in
 * order), on the monotonic clock; a reader that falls behind finds the buffer full rather than overrun. Given an
 * infile and an origin, it captures a microphone that hears the infile's raw frames (in the format opened) from the
 * monotonic time ORIGIN (nanoseconds) on, and silence before and after: what was said before the stream started is
 * not captured, as from a real microphone, and a reader a whole buffer behind overruns, as from a sound card.
 *
 * Configuration (written by Tests/TestSupport/ALSATestDevices.swift):
 *     pcm_type.testbusy { lib "/path/to/libasound_module_pcm_testbusy.so" }
 *     pcm.testbusy { @args [ LOCK FILE ] @args.LOCK { type string } @args.FILE { type string default "" }
 *                    type testbusy lock $LOCK file $FILE }
 *     pcm.testclockedmic { @args [ LOCK INFILE ORIGIN STALL ] ...
 *                          type testbusy lock $LOCK infile $INFILE origin $ORIGIN stall $STALL }
 * With a stall (nanoseconds), the read that captures the infile's first frame is held that long, once: a capture
 * thread run late. */
#include <alsa/asoundlib.h>
#include <alsa/pcm_external.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

typedef struct {
	snd_pcm_ioplug_t io;
	int lock;
	int out; /* what is played is appended here; -1 for nothing */
	char taken[PATH_MAX]; /* while this file exists, the running stream is taken away: -EBUSY */
	struct timespec started;
	snd_pcm_uframes_t base; /* the device's position at the start: what was written before it is still to play */
	int in; /* what the microphone hears, from `origin` on; -1 for silence */
	long long origin; /* CLOCK_MONOTONIC nanoseconds at which the infile's first frame is heard */
	long long heard; /* the infile's frame heard at the next frame captured (negative: before its start) */
	long long stall; /* nanoseconds the read that captures the infile's first frame is held, as a late thread */
} testbusy_t;

static snd_pcm_uframes_t elapsed(testbusy_t *pcm)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	double seconds = (now.tv_sec - pcm->started.tv_sec) + (now.tv_nsec - pcm->started.tv_nsec) / 1e9;
	return (snd_pcm_uframes_t)(seconds * pcm->io.rate);
}

static int testbusy_start(snd_pcm_ioplug_t *io)
{
	testbusy_t *pcm = io->private_data;
	clock_gettime(CLOCK_MONOTONIC, &pcm->started);
	pcm->base = io->hw_ptr;
	long long now = pcm->started.tv_sec * 1000000000LL + pcm->started.tv_nsec;
	pcm->heard = (long long)((double)(now - pcm->origin) * io->rate / 1e9);
	return 0;
}

static int testbusy_stop(snd_pcm_ioplug_t *io)
{
	return 0;
}

static int testbusy_prepare(snd_pcm_ioplug_t *io)
{
	testbusy_t *pcm = io->private_data;
	return access(pcm->taken, F_OK) == 0 ? -EBUSY : 0;
}

/* Frames played (never past what was written) or captured since the start, in the buffer. */
static snd_pcm_sframes_t testbusy_pointer(snd_pcm_ioplug_t *io)
{
	testbusy_t *pcm = io->private_data;
	if (access(pcm->taken, F_OK) == 0) return -EBUSY;
	snd_pcm_uframes_t position = pcm->base + elapsed(pcm);
	if (io->stream == SND_PCM_STREAM_PLAYBACK) {
		if (position > io->appl_ptr) position = io->appl_ptr;
	} else if (position > io->appl_ptr + io->buffer_size) {
		/* A microphone's reader that fell behind a whole buffer overruns, as from a sound card: what it did not read
		 * in time is gone. Otherwise the reader finds the buffer full: the silent test device loses nothing. */
		if (pcm->in >= 0 && io->state == SND_PCM_STATE_RUNNING) return -EPIPE;
		pcm->base -= position - (io->appl_ptr + io->buffer_size);
		position = io->appl_ptr + io->buffer_size;
	}
	return position % io->buffer_size;
}

static snd_pcm_sframes_t testbusy_transfer(snd_pcm_ioplug_t *io, const snd_pcm_channel_area_t *areas,
                                           snd_pcm_uframes_t offset, snd_pcm_uframes_t size)
{
	testbusy_t *pcm = io->private_data;
	if (io->stream == SND_PCM_STREAM_CAPTURE) {
		snd_pcm_areas_silence(areas, offset, io->channels, size, io->format);
		if (pcm->in >= 0 && pcm->stall > 0 && pcm->heard + (long long)size > 0) {
			/* Once: the reader is held up, as a system busy elsewhere would hold it, and the clock goes on. */
			struct timespec stall = { pcm->stall / 1000000000LL, pcm->stall % 1000000000LL };
			pcm->stall = 0;
			nanosleep(&stall, NULL);
		}
		if (pcm->in >= 0) {
			/* The infile's frames heard during these, where they fall within it. */
			size_t frame = io->channels * snd_pcm_format_physical_width(io->format) / 8;
			char *frames = (char *)areas[0].addr + (areas[0].first + areas[0].step * offset) / 8;
			long long skip = pcm->heard < 0 ? -pcm->heard : 0;
			if (skip < (long long)size) {
				ssize_t got = pread(pcm->in, frames + skip * frame, (size - skip) * frame, (pcm->heard + skip) * frame);
				if (got < 0) return -EIO;
			}
			pcm->heard += size;
		}
	} else if (pcm->out >= 0) {
		/* Interleaved: the frames are one run of bytes from the first channel's. */
		const char *frames = (const char *)areas[0].addr + (areas[0].first + areas[0].step * offset) / 8;
		size_t bytes = size * io->channels * snd_pcm_format_physical_width(io->format) / 8;
		if (write(pcm->out, frames, bytes) != (ssize_t)bytes) return -EIO;
	}
	return size;
}

static int testbusy_close(snd_pcm_ioplug_t *io)
{
	testbusy_t *pcm = io->private_data;
	if (pcm->out >= 0) close(pcm->out);
	if (pcm->in >= 0) close(pcm->in);
	close(pcm->lock);
	free(pcm);
	return 0;
}

static const snd_pcm_ioplug_callback_t callbacks = {
	.start = testbusy_start,
	.stop = testbusy_stop,
	.prepare = testbusy_prepare,
	.pointer = testbusy_pointer,
	.transfer = testbusy_transfer,
	.close = testbusy_close,
};

SND_PCM_PLUGIN_DEFINE_FUNC(testbusy)
{
	const char *path = NULL, *file = "", *infile = "", *origin = "0", *stall = "0";
	snd_config_iterator_t i, next;
	snd_config_for_each(i, next, conf) {
		snd_config_t *n = snd_config_iterator_entry(i);
		const char *id;
		if (snd_config_get_id(n, &id) < 0) continue;
		if (strcmp(id, "comment") == 0 || strcmp(id, "type") == 0 || strcmp(id, "hint") == 0) continue;
		/* The string settings, each into its variable. */
		static const char *const names[] = { "lock", "file", "infile", "origin", "stall" };
		const char **values[] = { &path, &file, &infile, &origin, &stall };
		int known = 0;
		for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
			if (strcmp(id, names[k]) != 0) continue;
			if (snd_config_get_string(n, values[k]) < 0) return -EINVAL;
			known = 1;
		}
		if (!known) return -EINVAL;
	}
	if (!path) return -EINVAL;
	int lock = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lock < 0) return -errno;
	if (flock(lock, LOCK_EX | LOCK_NB) < 0) {
		close(lock);
		return -EBUSY;
	}
	/* Opened only once the device is had: a refused opener leaves no file. */
	int out = *file ? open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600) : -1;
	int in = *infile ? open(infile, O_RDONLY | O_CLOEXEC) : -1;
	if ((*file && out < 0) || (*infile && in < 0)) {
		int error = errno;
		if (out >= 0) close(out);
		if (in >= 0) close(in);
		close(lock);
		return -error;
	}
	testbusy_t *pcm = calloc(1, sizeof(*pcm));
	if (!pcm) {
		if (out >= 0) close(out);
		if (in >= 0) close(in);
		close(lock);
		return -ENOMEM;
	}
	pcm->lock = lock;
	pcm->out = out;
	pcm->in = in;
	pcm->origin = atoll(origin);
	pcm->stall = atoll(stall);
	snprintf(pcm->taken, sizeof(pcm->taken), "%s.taken", path);
	pcm->io.version = SND_PCM_IOPLUG_VERSION;
	pcm->io.name = "testbusy";
	pcm->io.mmap_rw = 0;
	pcm->io.callback = &callbacks;
	pcm->io.private_data = pcm;
	int err = snd_pcm_ioplug_create(&pcm->io, name, stream, mode);
	if (err < 0) {
		if (out >= 0) close(out);
		if (in >= 0) close(in);
		close(lock);
		free(pcm);
		return err;
	}
	snd_pcm_ioplug_set_param_minmax(&pcm->io, SND_PCM_IOPLUG_HW_CHANNELS, 1, 8);
	snd_pcm_ioplug_set_param_minmax(&pcm->io, SND_PCM_IOPLUG_HW_RATE, 8000, 192000);
	static const unsigned int formats[] = { SND_PCM_FORMAT_S16_LE, SND_PCM_FORMAT_S32_LE, SND_PCM_FORMAT_FLOAT_LE };
	snd_pcm_ioplug_set_param_list(&pcm->io, SND_PCM_IOPLUG_HW_FORMAT, 3, formats);
	static const unsigned int access[] = { SND_PCM_ACCESS_RW_INTERLEAVED };
	snd_pcm_ioplug_set_param_list(&pcm->io, SND_PCM_IOPLUG_HW_ACCESS, 1, access);
	snd_pcm_ioplug_set_param_minmax(&pcm->io, SND_PCM_IOPLUG_HW_PERIODS, 2, 64);
	snd_pcm_ioplug_set_param_minmax(&pcm->io, SND_PCM_IOPLUG_HW_PERIOD_BYTES, 64, 1 << 20);
	*pcmp = pcm->io.pcm;
	return 0;
}

SND_PCM_PLUGIN_SYMBOL(testbusy);
