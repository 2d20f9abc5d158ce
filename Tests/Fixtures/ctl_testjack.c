/* A sound card's control device for tests, as an alsa-lib external control plugin (<alsa/control_external.h>):
 * the jack controls of card N, which a test plugs and unplugs by rewriting a state file.
 *
 * Configuration (written by Tests/TestSupport/ALSATestDevices.swift):
 *     ctl_type.testjack { lib "/path/to/libasound_module_ctl_testjack.so" }
 *     ctl.!hw { @args [ CARD ] @args.CARD { type string } type testjack card $CARD jacks "/path/to/dir" }
 * so that snd_ctl_open("hw:N") opens this plugin for card N, whose state is the file DIR/cardN, one jack a line:
 *     Headphone Jack=1
 *     Mic Jack=0
 * There is no card N when the file does not exist (-ENODEV, as the kernel's hw control says).
 *
 * Each jack is an element of interface CARD, boolean, read-only, as a kernel driver's jack controls are.
 * The poll descriptor is an inotify descriptor on DIR: when the state file is rewritten it becomes readable,
 * and reading events re-reads the file and queues a VALUE event for each jack whose state changed. */
#include <alsa/asoundlib.h>
#include <alsa/control_external.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#define MAX_JACKS 8

typedef struct {
	snd_ctl_ext_t ext;
	char path[PATH_MAX];
	int count;
	char names[MAX_JACKS][44];
	int values[MAX_JACKS];
	unsigned int pending; /* bit i: a VALUE event for jack i is queued */
} testjack_t;

/* Reads the state file: the jacks' names the first time (`learn`), their values every time. */
static int load(testjack_t *card, int learn)
{
	FILE *file = fopen(card->path, "r");
	char line[128];
	if (!file)
		return -ENODEV;
	int index = 0;
	while (index < MAX_JACKS && fgets(line, sizeof(line), file)) {
		char *equals = strrchr(line, '=');
		if (!equals)
			continue;
		*equals = 0;
		int value = atoi(equals + 1) != 0;
		if (learn) {
			snprintf(card->names[index], sizeof(card->names[index]), "%.43s", line);
			card->values[index] = value;
			card->count = index + 1;
		} else if (index < card->count && card->values[index] != value) {
			card->values[index] = value;
			if (card->ext.subscribed)
				card->pending |= 1u << index;
		}
		index++;
	}
	fclose(file);
	return 0;
}

static int elem_count(snd_ctl_ext_t *ext)
{
	return ((testjack_t *)ext->private_data)->count;
}

static int elem_list(snd_ctl_ext_t *ext, unsigned int offset, snd_ctl_elem_id_t *id)
{
	testjack_t *card = ext->private_data;
	if (offset >= (unsigned int)card->count)
		return -EINVAL;
	snd_ctl_elem_id_set_interface(id, SND_CTL_ELEM_IFACE_CARD);
	snd_ctl_elem_id_set_name(id, card->names[offset]);
	return 0;
}

static snd_ctl_ext_key_t find_elem(snd_ctl_ext_t *ext, const snd_ctl_elem_id_t *id)
{
	testjack_t *card = ext->private_data;
	unsigned int numid = snd_ctl_elem_id_get_numid(id);
	if (numid > 0 && numid <= (unsigned int)card->count)
		return numid - 1;
	for (int index = 0; index < card->count; index++)
		if (snd_ctl_elem_id_get_interface(id) == SND_CTL_ELEM_IFACE_CARD
		    && strcmp(snd_ctl_elem_id_get_name(id), card->names[index]) == 0)
			return index;
	return SND_CTL_EXT_KEY_NOT_FOUND;
}

static int get_attribute(snd_ctl_ext_t *ext, snd_ctl_ext_key_t key, int *type, unsigned int *acc, unsigned int *count)
{
	*type = SND_CTL_ELEM_TYPE_BOOLEAN;
	*acc = SND_CTL_EXT_ACCESS_READ;
	*count = 1;
	return 0;
}

static int get_integer_info(snd_ctl_ext_t *ext, snd_ctl_ext_key_t key, long *imin, long *imax, long *istep)
{
	*imin = 0;
	*imax = 1;
	*istep = 1;
	return 0;
}

static int read_integer(snd_ctl_ext_t *ext, snd_ctl_ext_key_t key, long *value)
{
	*value = ((testjack_t *)ext->private_data)->values[key];
	return 0;
}

/* Drains the inotify descriptor and, when the directory changed, re-reads the state file; then hands out one
 * queued event, or -EAGAIN when none is left (the descriptor is then no longer readable). */
static int read_event(snd_ctl_ext_t *ext, snd_ctl_elem_id_t *id, unsigned int *event_mask)
{
	testjack_t *card = ext->private_data;
	char buffer[4096];
	int changed = 0;
	while (read(ext->poll_fd, buffer, sizeof(buffer)) > 0)
		changed = 1;
	if (changed)
		load(card, 0);
	for (int index = 0; index < card->count; index++) {
		if (card->pending & (1u << index)) {
			card->pending &= ~(1u << index);
			snd_ctl_elem_id_clear(id);
			elem_list(ext, index, id);
			snd_ctl_elem_id_set_numid(id, index + 1);
			*event_mask = SND_CTL_EVENT_MASK_VALUE;
			return 1;
		}
	}
	return -EAGAIN;
}

static void close_card(snd_ctl_ext_t *ext)
{
	testjack_t *card = ext->private_data;
	close(ext->poll_fd);
	free(card);
}

static const snd_ctl_ext_callback_t callbacks = {
	.close = close_card,
	.elem_count = elem_count,
	.elem_list = elem_list,
	.find_elem = find_elem,
	.get_attribute = get_attribute,
	.get_integer_info = get_integer_info,
	.read_integer = read_integer,
	.read_event = read_event,
};

SND_CTL_PLUGIN_DEFINE_FUNC(testjack)
{
	snd_config_iterator_t i, next;
	const char *number = NULL, *jacks = NULL;
	snd_config_for_each(i, next, conf) {
		snd_config_t *entry = snd_config_iterator_entry(i);
		const char *key;
		if (snd_config_get_id(entry, &key) < 0 || strcmp(key, "comment") == 0 || strcmp(key, "type") == 0)
			continue;
		if (strcmp(key, "card") == 0 && snd_config_get_string(entry, &number) >= 0)
			continue;
		if (strcmp(key, "jacks") == 0 && snd_config_get_string(entry, &jacks) >= 0)
			continue;
		SNDERR("Invalid field %s", key);
		return -EINVAL;
	}
	if (!number || !jacks)
		return -EINVAL;
	testjack_t *card = calloc(1, sizeof(*card));
	if (!card)
		return -ENOMEM;
	snprintf(card->path, sizeof(card->path), "%s/card%d", jacks, atoi(number));
	int err = load(card, 1);
	if (err < 0) {
		free(card);
		return err;
	}
	card->ext.poll_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (card->ext.poll_fd < 0 || inotify_add_watch(card->ext.poll_fd, jacks, IN_CLOSE_WRITE | IN_MOVED_TO) < 0) {
		err = -errno;
		if (card->ext.poll_fd >= 0)
			close(card->ext.poll_fd);
		free(card);
		return err;
	}
	card->ext.version = SND_CTL_EXT_VERSION;
	card->ext.card_idx = atoi(number);
	snprintf(card->ext.id, sizeof(card->ext.id), "TestJacks%d", atoi(number));
	snprintf(card->ext.driver, sizeof(card->ext.driver), "testjack");
	snprintf(card->ext.name, sizeof(card->ext.name), "Test Jacks %d", atoi(number));
	snprintf(card->ext.longname, sizeof(card->ext.longname), "Test card %d with jack controls", atoi(number));
	snprintf(card->ext.mixername, sizeof(card->ext.mixername), "testjack");
	card->ext.callback = &callbacks;
	card->ext.private_data = card;
	err = snd_ctl_ext_create(&card->ext, name, mode);
	if (err < 0) {
		close(card->ext.poll_fd);
		free(card);
		return err;
	}
	*handlep = card->ext.handle;
	return 0;
}

SND_CTL_PLUGIN_SYMBOL(testjack);
