#ifndef VOICEMEMO_CCURL_H
#define VOICEMEMO_CCURL_H

#include <curl/curl.h>

// libcurl is not linked: the first download loads it (curl_library.c, on CLibraryLoader), and the functions curl.h
// declares reach it from there.

/// Loads libcurl (once, whichever thread asks first) and finds every function AudioIO calls. Returns NULL when it is
/// there, else the dynamic loader's sentence for what is missing. Call it before any other libcurl function: one called
/// while libcurl could not be loaded ends the process.
const char *ccurl_load(void);

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one function per argument type.
CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode ccurl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value);
CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode ccurl_setopt_list(CURL *handle, CURLoption option, struct curl_slist *value);
typedef size_t (*ccurl_data_function)(char *data, size_t size, size_t count, void *context);
CURLcode ccurl_setopt_function(CURL *handle, CURLoption option, ccurl_data_function function);
CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode ccurl_getinfo_offset(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode ccurl_getinfo_string(CURL *handle, CURLINFO info, char **value);
// The result of a finished transfer sits in a union.
static inline CURLcode ccurl_message_result(const CURLMsg *message) { return message->data.result; }
static inline int ccurl_message_is_done(const CURLMsg *message) { return message->msg == CURLMSG_DONE; }
// CURLVERSION_NOW is a macro.
const curl_version_info_data *ccurl_version_info(void);

#endif
