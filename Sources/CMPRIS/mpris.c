#include "mpris.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#define OBJECT_PATH "/org/mpris/MediaPlayer2"
#define ROOT_INTERFACE "org.mpris.MediaPlayer2"
#define PLAYER_INTERFACE "org.mpris.MediaPlayer2.Player"
#define NO_TRACK "/org/mpris/MediaPlayer2/TrackList/NoTrack"
/// The shortest time between two PropertiesChanged signals.
#define BATCH_MICROSECONDS 50000

/// The player properties that signal their changes, in the order of their bits in `changed`.
static const char *const player_properties[] = {
    "PlaybackStatus", "Metadata", "Rate", "MinimumRate", "MaximumRate", "Volume",
    "CanGoNext", "CanGoPrevious", "CanPlay", "CanPause", "CanSeek", "CanControl",
};
#define PLAYER_PROPERTY_COUNT (sizeof player_properties / sizeof player_properties[0])

struct mpris_server {
    sd_bus *bus;
    sd_bus_slot *root_slot, *player_slot;
    mpris_callbacks callbacks;
    char *bus_name, *identity;
    pthread_t thread;
    int wake_fd;

    pthread_mutex_t lock;
    // Under the lock:
    mpris_state state;   // its strings owned
    unsigned changed;    // bits of player_properties
    int seeked;
    int64_t seeked_position;
    int stopping;
    int failure;
    uint64_t last_signal;
};

static uint64_t now_microseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000 + (uint64_t)now.tv_nsec / 1000;
}

static int same_text(const char *a, const char *b) {
    if (a == NULL || b == NULL) return a == b;
    return strcmp(a, b) == 0;
}

static char *copy_text(const char *text) { return text ? strdup(text) : NULL; }

static void free_state(mpris_state *state) {
    free((char *)state->playback_status);
    free((char *)state->track_id);
    free((char *)state->title);
    free((char *)state->artist);
    free((char *)state->album);
    free((char *)state->art_url);
    free((char *)state->url);
    free((char *)state->content_created);
}

/// Copies `from` into `to` (whose strings it frees) and returns the bits of the player properties that differ.
static unsigned take_state(mpris_state *to, const mpris_state *from) {
    unsigned changed = 0;
    if (!same_text(to->playback_status, from->playback_status)) changed |= 1u << 0;
    if (!same_text(to->track_id, from->track_id) || !same_text(to->title, from->title)
        || !same_text(to->artist, from->artist) || !same_text(to->album, from->album)
        || !same_text(to->art_url, from->art_url) || !same_text(to->url, from->url)
        || !same_text(to->content_created, from->content_created)
        || to->length_microseconds != from->length_microseconds)
        changed |= 1u << 1;
    if (to->rate != from->rate) changed |= 1u << 2;
    if (to->minimum_rate != from->minimum_rate) changed |= 1u << 3;
    if (to->maximum_rate != from->maximum_rate) changed |= 1u << 4;
    if (to->volume != from->volume) changed |= 1u << 5;
    if (to->can_go_next != from->can_go_next) changed |= 1u << 6;
    if (to->can_go_previous != from->can_go_previous) changed |= 1u << 7;
    if (to->can_play != from->can_play) changed |= 1u << 8;
    if (to->can_pause != from->can_pause) changed |= 1u << 9;
    if (to->can_seek != from->can_seek) changed |= 1u << 10;
    if (to->can_control != from->can_control) changed |= 1u << 11;
    free_state(to);
    *to = *from;
    to->playback_status = copy_text(from->playback_status ? from->playback_status : "Stopped");
    to->track_id = copy_text(from->track_id);
    to->title = copy_text(from->title);
    to->artist = copy_text(from->artist);
    to->album = copy_text(from->album);
    to->art_url = copy_text(from->art_url);
    to->url = copy_text(from->url);
    to->content_created = copy_text(from->content_created);
    return changed;
}

static void wake(mpris_server *server) {
    uint64_t one = 1;
    ssize_t written = write(server->wake_fd, &one, sizeof one);
    (void)written;  // A full counter still wakes the thread.
}

// MARK: Properties

static int append_metadata_entry(sd_bus_message *reply, const char *key, char type, const void *value) {
    char signature[2] = {type, 0};
    int r = sd_bus_message_open_container(reply, 'e', "sv");
    if (r >= 0) r = sd_bus_message_append_basic(reply, 's', key);
    if (r >= 0) r = sd_bus_message_open_container(reply, 'v', signature);
    if (r >= 0) r = sd_bus_message_append_basic(reply, type, value);
    if (r >= 0) r = sd_bus_message_close_container(reply);
    if (r >= 0) r = sd_bus_message_close_container(reply);
    return r;
}

static int append_metadata(sd_bus_message *reply, const mpris_state *state) {
    int r = sd_bus_message_open_container(reply, 'a', "{sv}");
    if (r < 0) return r;
    r = append_metadata_entry(reply, "mpris:trackid", 'o', state->track_id ? state->track_id : NO_TRACK);
    if (r >= 0 && state->track_id) {
        if (state->length_microseconds > 0) r = append_metadata_entry(reply, "mpris:length", 'x', &state->length_microseconds);
        if (r >= 0 && state->title) r = append_metadata_entry(reply, "xesam:title", 's', state->title);
        if (r >= 0 && state->album) r = append_metadata_entry(reply, "xesam:album", 's', state->album);
        if (r >= 0 && state->art_url) r = append_metadata_entry(reply, "mpris:artUrl", 's', state->art_url);
        if (r >= 0 && state->url) r = append_metadata_entry(reply, "xesam:url", 's', state->url);
        if (r >= 0 && state->content_created)
            r = append_metadata_entry(reply, "xesam:contentCreated", 's', state->content_created);
        if (r >= 0 && state->artist) {
            // xesam:artist is a list of names.
            r = sd_bus_message_open_container(reply, 'e', "sv");
            if (r >= 0) r = sd_bus_message_append_basic(reply, 's', "xesam:artist");
            if (r >= 0) r = sd_bus_message_open_container(reply, 'v', "as");
            if (r >= 0) r = sd_bus_message_open_container(reply, 'a', "s");
            if (r >= 0) r = sd_bus_message_append_basic(reply, 's', state->artist);
            for (int level = 0; r >= 0 && level < 3; level++) r = sd_bus_message_close_container(reply);
        }
    }
    if (r >= 0) r = sd_bus_message_close_container(reply);
    return r;
}

static int get_property(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    (void)bus; (void)path; (void)interface; (void)error;
    mpris_server *server = userdata;
    if (strcmp(property, "Position") == 0) {
        int64_t position = server->callbacks.position(server->callbacks.context);
        return sd_bus_message_append_basic(reply, 'x', &position);
    }
    pthread_mutex_lock(&server->lock);
    const mpris_state *state = &server->state;
    int r = -ENOENT, yes;
    if (strcmp(property, "PlaybackStatus") == 0) r = sd_bus_message_append_basic(reply, 's', state->playback_status);
    else if (strcmp(property, "Metadata") == 0) r = append_metadata(reply, state);
    else if (strcmp(property, "Rate") == 0) r = sd_bus_message_append_basic(reply, 'd', &state->rate);
    else if (strcmp(property, "MinimumRate") == 0) r = sd_bus_message_append_basic(reply, 'd', &state->minimum_rate);
    else if (strcmp(property, "MaximumRate") == 0) r = sd_bus_message_append_basic(reply, 'd', &state->maximum_rate);
    else if (strcmp(property, "Volume") == 0) r = sd_bus_message_append_basic(reply, 'd', &state->volume);
    else if (strcmp(property, "CanGoNext") == 0) { yes = state->can_go_next; r = sd_bus_message_append_basic(reply, 'b', &yes); }
    else if (strcmp(property, "CanGoPrevious") == 0) { yes = state->can_go_previous; r = sd_bus_message_append_basic(reply, 'b', &yes); }
    else if (strcmp(property, "CanPlay") == 0) { yes = state->can_play; r = sd_bus_message_append_basic(reply, 'b', &yes); }
    else if (strcmp(property, "CanPause") == 0) { yes = state->can_pause; r = sd_bus_message_append_basic(reply, 'b', &yes); }
    else if (strcmp(property, "CanSeek") == 0) { yes = state->can_seek; r = sd_bus_message_append_basic(reply, 'b', &yes); }
    else if (strcmp(property, "CanControl") == 0) { yes = state->can_control; r = sd_bus_message_append_basic(reply, 'b', &yes); }
    else if (strcmp(property, "Identity") == 0) r = sd_bus_message_append_basic(reply, 's', server->identity);
    else if (strcmp(property, "CanQuit") == 0 || strcmp(property, "CanRaise") == 0 || strcmp(property, "HasTrackList") == 0) {
        yes = 0;
        r = sd_bus_message_append_basic(reply, 'b', &yes);
    } else if (strcmp(property, "SupportedUriSchemes") == 0 || strcmp(property, "SupportedMimeTypes") == 0) {
        r = sd_bus_message_open_container(reply, 'a', "s");
        if (r >= 0) r = sd_bus_message_close_container(reply);
    }
    pthread_mutex_unlock(&server->lock);
    return r;
}

static int set_property(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *value, void *userdata, sd_bus_error *error) {
    (void)bus; (void)path; (void)interface; (void)error;
    mpris_server *server = userdata;
    double number;
    int r = sd_bus_message_read_basic(value, 'd', &number);
    if (r < 0) return r;
    mpris_command command = strcmp(property, "Rate") == 0 ? MPRIS_COMMAND_SET_RATE : MPRIS_COMMAND_SET_VOLUME;
    server->callbacks.command(server->callbacks.context, command, 0, number);
    return 1;
}

// MARK: Methods

static int call(sd_bus_message *message, void *userdata, mpris_command command, int64_t microseconds) {
    mpris_server *server = userdata;
    server->callbacks.command(server->callbacks.context, command, microseconds, 0);
    return sd_bus_reply_method_return(message, "");
}

static int method_play(sd_bus_message *m, void *u, sd_bus_error *e) { (void)e; return call(m, u, MPRIS_COMMAND_PLAY, 0); }
static int method_pause(sd_bus_message *m, void *u, sd_bus_error *e) { (void)e; return call(m, u, MPRIS_COMMAND_PAUSE, 0); }
static int method_play_pause(sd_bus_message *m, void *u, sd_bus_error *e) { (void)e; return call(m, u, MPRIS_COMMAND_PLAY_PAUSE, 0); }
static int method_stop(sd_bus_message *m, void *u, sd_bus_error *e) { (void)e; return call(m, u, MPRIS_COMMAND_STOP, 0); }
static int method_next(sd_bus_message *m, void *u, sd_bus_error *e) { (void)e; return call(m, u, MPRIS_COMMAND_NEXT, 0); }
static int method_previous(sd_bus_message *m, void *u, sd_bus_error *e) { (void)e; return call(m, u, MPRIS_COMMAND_PREVIOUS, 0); }
static int method_nothing(sd_bus_message *m, void *u, sd_bus_error *e) { (void)u; (void)e; return sd_bus_reply_method_return(m, ""); }

static int method_seek(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    (void)error;
    int64_t offset;
    int r = sd_bus_message_read_basic(message, 'x', &offset);
    if (r < 0) return r;
    return call(message, userdata, MPRIS_COMMAND_SEEK, offset);
}

static int method_set_position(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    (void)error;
    mpris_server *server = userdata;
    const char *track;
    int64_t position;
    int r = sd_bus_message_read(message, "ox", &track, &position);
    if (r < 0) return r;
    // MPRIS: a position for another track than the current one, or outside the track, is ignored.
    pthread_mutex_lock(&server->lock);
    int applies = server->state.track_id && strcmp(track, server->state.track_id) == 0 && position >= 0
        && (server->state.length_microseconds <= 0 || position <= server->state.length_microseconds);
    pthread_mutex_unlock(&server->lock);
    if (!applies) return sd_bus_reply_method_return(message, "");
    return call(message, userdata, MPRIS_COMMAND_SET_POSITION, position);
}

static const sd_bus_vtable root_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Raise", "", "", method_nothing, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Quit", "", "", method_nothing, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_PROPERTY("CanQuit", "b", get_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("CanRaise", "b", get_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("HasTrackList", "b", get_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Identity", "s", get_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("SupportedUriSchemes", "as", get_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("SupportedMimeTypes", "as", get_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_VTABLE_END,
};

static const sd_bus_vtable player_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Next", "", "", method_next, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Previous", "", "", method_previous, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Pause", "", "", method_pause, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("PlayPause", "", "", method_play_pause, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Stop", "", "", method_stop, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Play", "", "", method_play, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Seek", "x", "", method_seek, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("SetPosition", "ox", "", method_set_position, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("OpenUri", "s", "", method_nothing, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_SIGNAL("Seeked", "x", 0),
    SD_BUS_PROPERTY("PlaybackStatus", "s", get_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("Metadata", "a{sv}", get_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_WRITABLE_PROPERTY("Rate", "d", get_property, set_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE | SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_WRITABLE_PROPERTY("Volume", "d", get_property, set_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE | SD_BUS_VTABLE_UNPRIVILEGED),
    // Clients work the position out from the rate and the Seeked signal: it signals no change.
    SD_BUS_PROPERTY("Position", "x", get_property, 0, 0),
    SD_BUS_PROPERTY("MinimumRate", "d", get_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("MaximumRate", "d", get_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("CanGoNext", "b", get_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("CanGoPrevious", "b", get_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("CanPlay", "b", get_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("CanPause", "b", get_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("CanSeek", "b", get_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("CanControl", "b", get_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_VTABLE_END,
};

// MARK: The server's thread

/// Under the lock: sends what is due (Seeked at once, changed properties once the batch interval has passed) and
/// returns how long the thread may sleep before the next batch is due, in microseconds, or UINT64_MAX.
static uint64_t send_due(mpris_server *server) {
    int r = 0;
    if (server->seeked) {
        server->seeked = 0;
        r = sd_bus_emit_signal(server->bus, OBJECT_PATH, PLAYER_INTERFACE, "Seeked", "x", server->seeked_position);
    }
    if (r >= 0 && server->changed) {
        uint64_t now = now_microseconds();
        if (now - server->last_signal < BATCH_MICROSECONDS) return server->last_signal + BATCH_MICROSECONDS - now;
        char *names[PLAYER_PROPERTY_COUNT + 1];
        size_t count = 0;
        for (size_t bit = 0; bit < PLAYER_PROPERTY_COUNT; bit++)
            if (server->changed & (1u << bit)) names[count++] = (char *)player_properties[bit];
        names[count] = NULL;
        server->changed = 0;
        server->last_signal = now;
        // The getters run inside the call and take the lock: let it go meanwhile.
        pthread_mutex_unlock(&server->lock);
        r = sd_bus_emit_properties_changed_strv(server->bus, OBJECT_PATH, PLAYER_INTERFACE, names);
        pthread_mutex_lock(&server->lock);
    }
    if (r < 0) server->failure = r;
    return UINT64_MAX;
}

static void *run(void *argument) {
    mpris_server *server = argument;
    for (;;) {
        pthread_mutex_lock(&server->lock);
        uint64_t batch_wait = server->stopping || server->failure ? 0 : send_due(server);
        int done = server->stopping || server->failure;
        pthread_mutex_unlock(&server->lock);
        if (done) break;
        int r;
        while ((r = sd_bus_process(server->bus, NULL)) > 0) {}
        if (r >= 0) r = sd_bus_flush(server->bus);
        if (r < 0) {
            pthread_mutex_lock(&server->lock);
            server->failure = r;
            pthread_mutex_unlock(&server->lock);
            break;
        }
        uint64_t bus_timeout = UINT64_MAX;
        sd_bus_get_timeout(server->bus, &bus_timeout);
        uint64_t wait = batch_wait;
        if (bus_timeout != UINT64_MAX) {
            uint64_t now = now_microseconds();
            uint64_t until = bus_timeout > now ? bus_timeout - now : 0;
            if (until < wait) wait = until;
        }
        struct pollfd fds[2] = {
            {.fd = sd_bus_get_fd(server->bus), .events = (short)sd_bus_get_events(server->bus)},
            {.fd = server->wake_fd, .events = POLLIN},
        };
        int timeout = wait == UINT64_MAX ? -1 : (int)((wait + 999) / 1000);
        if (poll(fds, 2, timeout) > 0 && (fds[1].revents & POLLIN)) {
            uint64_t count;
            ssize_t got = read(server->wake_fd, &count, sizeof count);
            (void)got;
        }
    }
    return NULL;
}

// MARK: Opening and closing

static void free_server(mpris_server *server) {
    sd_bus_slot_unref(server->root_slot);
    sd_bus_slot_unref(server->player_slot);
    if (server->bus) sd_bus_flush_close_unref(server->bus);
    if (server->wake_fd >= 0) close(server->wake_fd);
    free_state(&server->state);
    free(server->bus_name);
    free(server->identity);
    pthread_mutex_destroy(&server->lock);
    free(server);
}

int mpris_server_open(const char *name, const char *identity, const mpris_state *state, mpris_callbacks callbacks,
                      mpris_server **result) {
    mpris_server *server = calloc(1, sizeof *server);
    if (!server) return -ENOMEM;
    pthread_mutex_init(&server->lock, NULL);
    server->callbacks = callbacks;
    server->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    server->identity = strdup(identity);
    take_state(&server->state, state);
    int r = server->wake_fd < 0 ? -errno : 0;
    if (r >= 0) r = sd_bus_open_user(&server->bus);
    if (r >= 0) r = sd_bus_add_object_vtable(server->bus, &server->root_slot, OBJECT_PATH, ROOT_INTERFACE, root_vtable, server);
    if (r >= 0) r = sd_bus_add_object_vtable(server->bus, &server->player_slot, OBJECT_PATH, PLAYER_INTERFACE, player_vtable, server);
    if (r >= 0) {
        char bus_name[256];
        snprintf(bus_name, sizeof bus_name, "org.mpris.MediaPlayer2.%s", name);
        r = sd_bus_request_name(server->bus, bus_name, 0);
        if (r == -EEXIST) {
            snprintf(bus_name, sizeof bus_name, "org.mpris.MediaPlayer2.%s.instance%d", name, (int)getpid());
            r = sd_bus_request_name(server->bus, bus_name, 0);
        }
        if (r >= 0) server->bus_name = strdup(bus_name);
    }
    if (r >= 0) r = -pthread_create(&server->thread, NULL, run, server);
    if (r < 0) {
        free_server(server);
        return r;
    }
    *result = server;
    return 0;
}

const char *mpris_server_bus_name(const mpris_server *server) { return server->bus_name; }

int mpris_server_update(mpris_server *server, const mpris_state *state) {
    pthread_mutex_lock(&server->lock);
    server->changed |= take_state(&server->state, state);
    int failure = server->failure;
    pthread_mutex_unlock(&server->lock);
    wake(server);
    return failure;
}

int mpris_server_seeked(mpris_server *server, int64_t position) {
    pthread_mutex_lock(&server->lock);
    server->seeked = 1;
    server->seeked_position = position;
    int failure = server->failure;
    pthread_mutex_unlock(&server->lock);
    wake(server);
    return failure;
}

int mpris_server_failure(const mpris_server *server) {
    pthread_mutex_lock((pthread_mutex_t *)&server->lock);
    int failure = server->failure;
    pthread_mutex_unlock((pthread_mutex_t *)&server->lock);
    return failure;
}

void mpris_server_close(mpris_server *server) {
    pthread_mutex_lock(&server->lock);
    server->stopping = 1;
    pthread_mutex_unlock(&server->lock);
    wake(server);
    pthread_join(server->thread, NULL);
    free_server(server);
}
