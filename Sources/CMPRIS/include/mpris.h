// The MPRIS 2 server on sd-bus: the D-Bus object of org.mpris.MediaPlayer2 and org.mpris.MediaPlayer2.Player, whose
// vtables are C macros that Swift cannot spell. It keeps the published state, answers property reads and method calls
// on its own thread, and batches property changes (at most one signal per 50 ms). NowPlaying's MPRISServer is its only
// caller; every function returns 0 or a negative errno.
#ifndef VOICEMEMO_MPRIS_H
#define VOICEMEMO_MPRIS_H

#include <stdint.h>

/// A method call or a property write from a client.
typedef enum {
    MPRIS_COMMAND_PLAY,
    MPRIS_COMMAND_PAUSE,
    MPRIS_COMMAND_PLAY_PAUSE,
    MPRIS_COMMAND_STOP,
    MPRIS_COMMAND_NEXT,
    MPRIS_COMMAND_PREVIOUS,
    /// `Seek(x Offset)`: `microseconds` is the offset, forward when positive.
    MPRIS_COMMAND_SEEK,
    /// `SetPosition(o TrackId, x Position)` for the current track: `microseconds` is the position.
    MPRIS_COMMAND_SET_POSITION,
    /// A write of `Rate`: `value`.
    MPRIS_COMMAND_SET_RATE,
    /// A write of `Volume`: `value`.
    MPRIS_COMMAND_SET_VOLUME,
} mpris_command;

/// How the server reaches its owner; called on the server's thread.
typedef struct {
    void *context;
    void (*command)(void *context, mpris_command command, int64_t microseconds, double value);
    /// The position now, in microseconds.
    int64_t (*position)(void *context);
} mpris_callbacks;

/// What is published. Strings may be NULL (absent); the server copies them.
typedef struct {
    /// "Playing", "Paused" or "Stopped".
    const char *playback_status;
    /// The track's D-Bus object path, e.g. "/org/voicememo/track/3f2a9c1e0b7d"; NULL: no track.
    const char *track_id;
    const char *title;
    const char *artist;
    const char *album;
    const char *art_url;
    const char *url;
    /// ISO 8601, e.g. "2026-11-25T14:40:00Z".
    const char *content_created;
    int64_t length_microseconds;
    double rate, minimum_rate, maximum_rate, volume;
    int can_go_next, can_go_previous, can_play, can_pause, can_seek, can_control;
} mpris_state;

typedef struct mpris_server mpris_server;

/// Connects to the session bus, takes `org.mpris.MediaPlayer2.<name>` (else `<name>.instance<pid>`, as MPRIS asks
/// of a second instance), publishes `state` and starts answering on a thread of its own.
int mpris_server_open(const char *name, const char *identity, const mpris_state *state, mpris_callbacks callbacks,
                      mpris_server **server);
/// The bus name taken.
const char *mpris_server_bus_name(const mpris_server *server);
/// Publishes `state`; the properties that changed go out in one PropertiesChanged signal within 50 ms.
int mpris_server_update(mpris_server *server, const mpris_state *state);
/// Emits `Seeked` with the new position at once.
int mpris_server_seeked(mpris_server *server, int64_t position_microseconds);
/// The error that stopped the server's thread (0 while it runs).
int mpris_server_failure(const mpris_server *server);
/// Stops the thread, leaves the bus and frees the server.
void mpris_server_close(mpris_server *server);

#endif
