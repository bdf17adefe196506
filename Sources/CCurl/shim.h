// Typed, non-variadic wrappers for libcurl's variadic calls, which Swift cannot call directly.
#ifndef TANDEM_CCURL_SHIM_H
#define TANDEM_CCURL_SHIM_H
#include <curl/curl.h>

static inline CURLcode tandem_curl_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode tandem_curl_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode tandem_curl_easy_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode tandem_curl_easy_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode tandem_curl_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode tandem_curl_easy_setopt_write_callback(CURL *h, curl_write_callback cb) { return curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, cb); }
static inline CURLcode tandem_curl_easy_setopt_header_callback(CURL *h, curl_write_callback cb) { return curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, cb); }
static inline CURLcode tandem_curl_easy_setopt_read_callback(CURL *h, curl_read_callback cb) { return curl_easy_setopt(h, CURLOPT_READFUNCTION, cb); }

static inline CURLcode tandem_curl_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode tandem_curl_easy_getinfo_double(CURL *h, CURLINFO i, double *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode tandem_curl_easy_getinfo_string(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode tandem_curl_easy_getinfo_pointer(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode tandem_curl_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }

static inline CURLMcode tandem_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
static inline CURLMcode tandem_curl_multi_setopt_pointer(CURLM *m, CURLMoption o, void *v) { return curl_multi_setopt(m, o, v); }
static inline CURLMcode tandem_curl_multi_setopt_socket_callback(CURLM *m, curl_socket_callback cb) { return curl_multi_setopt(m, CURLMOPT_SOCKETFUNCTION, cb); }
static inline CURLMcode tandem_curl_multi_setopt_timer_callback(CURLM *m, curl_multi_timer_callback cb) { return curl_multi_setopt(m, CURLMOPT_TIMERFUNCTION, cb); }

#endif
