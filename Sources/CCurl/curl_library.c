// libcurl, opened the first time AudioIO downloads rather than linked: linked, it brings some thirty libraries (TLS,
// LDAP, SSH, IDN...) that the dynamic loader maps and relocates on every start of the process, for runs that mostly
// never play or import an address (library_loader.h).
#include "shim.h"

#include <library_loader.h>

// Every libcurl function AudioIO calls; the variadic ones through the shims below.
#define CCURL_FUNCTIONS(FUNCTION, PROCEDURE, FOUND) \
    PROCEDURE(curl_easy_cleanup, (CURL *curl), (curl)) \
    FUNCTION(CURL *, curl_easy_init, (void), ()) \
    PROCEDURE(curl_easy_reset, (CURL *curl), (curl)) \
    FUNCTION(const char *, curl_easy_strerror, (CURLcode code), (code)) \
    FUNCTION(CURLcode, curl_global_init, (long flags), (flags)) \
    FUNCTION(CURLMcode, curl_multi_add_handle, (CURLM *multi_handle, CURL *curl_handle), (multi_handle, curl_handle)) \
    FUNCTION(CURLMcode, curl_multi_cleanup, (CURLM *multi_handle), (multi_handle)) \
    FUNCTION(CURLMsg *, curl_multi_info_read, (CURLM *multi_handle, int *msgs_in_queue), (multi_handle, msgs_in_queue)) \
    FUNCTION(CURLM *, curl_multi_init, (void), ()) \
    FUNCTION(CURLMcode, curl_multi_perform, (CURLM *multi_handle, int *running_handles), (multi_handle, running_handles)) \
    FUNCTION(CURLMcode, curl_multi_poll, (CURLM *multi_handle, struct curl_waitfd extra_fds[], unsigned int extra_nfds, int timeout_ms, int *ret), (multi_handle, extra_fds, extra_nfds, timeout_ms, ret)) \
    FUNCTION(CURLMcode, curl_multi_remove_handle, (CURLM *multi_handle, CURL *curl_handle), (multi_handle, curl_handle)) \
    FUNCTION(CURLMcode, curl_multi_wakeup, (CURLM *multi_handle), (multi_handle)) \
    FUNCTION(struct curl_slist *, curl_slist_append, (struct curl_slist *list, const char *data), (list, data)) \
    PROCEDURE(curl_slist_free_all, (struct curl_slist *list), (list)) \
    FOUND(curl_easy_setopt) \
    FOUND(curl_easy_getinfo) \
    FOUND(curl_version_info)

// The SONAME libcurl has kept since 7.16 (2006), whichever TLS library it was built with.
LIBRARY_FUNCTIONS("libcurl.so.4", CCURL_FUNCTIONS)

const char *ccurl_load(void) { return library_load(&this_library); }

CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value) {
    return LIBRARY_CALL(curl_easy_setopt)(handle, option, value);
}
CURLcode ccurl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return LIBRARY_CALL(curl_easy_setopt)(handle, option, value);
}
CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return LIBRARY_CALL(curl_easy_setopt)(handle, option, value);
}
CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return LIBRARY_CALL(curl_easy_setopt)(handle, option, value);
}
CURLcode ccurl_setopt_list(CURL *handle, CURLoption option, struct curl_slist *value) {
    return LIBRARY_CALL(curl_easy_setopt)(handle, option, value);
}
CURLcode ccurl_setopt_function(CURL *handle, CURLoption option, ccurl_data_function function) {
    return LIBRARY_CALL(curl_easy_setopt)(handle, option, function);
}
CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return LIBRARY_CALL(curl_easy_getinfo)(handle, info, value);
}
CURLcode ccurl_getinfo_offset(CURL *handle, CURLINFO info, curl_off_t *value) {
    return LIBRARY_CALL(curl_easy_getinfo)(handle, info, value);
}
CURLcode ccurl_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return LIBRARY_CALL(curl_easy_getinfo)(handle, info, value);
}
const curl_version_info_data *ccurl_version_info(void) { return LIBRARY_CALL(curl_version_info)(CURLVERSION_NOW); }
