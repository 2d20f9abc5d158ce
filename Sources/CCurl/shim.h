#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one function per argument type.
static inline CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_list(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
typedef size_t (*ccurl_data_function)(char *data, size_t size, size_t count, void *context);
static inline CURLcode ccurl_setopt_function(CURL *handle, CURLoption option, ccurl_data_function function) {
    return curl_easy_setopt(handle, option, function);
}
static inline CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode ccurl_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}
// The result of a finished transfer sits in a union.
static inline CURLcode ccurl_message_result(const CURLMsg *message) { return message->data.result; }
static inline int ccurl_message_is_done(const CURLMsg *message) { return message->msg == CURLMSG_DONE; }
// CURLVERSION_NOW is a macro.
static inline const curl_version_info_data *ccurl_version_info(void) { return curl_version_info(CURLVERSION_NOW); }
