// GNU libmicrohttpd. MHD_start_daemon is variadic: the shim builds its option list as an MHD_OPTION_ARRAY.
#ifndef TANDEM_CMICROHTTPD_SHIM_H
#define TANDEM_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Options Tandem sets on every daemon. `listen_fd` is a socket the caller has bound and put in listening state.
struct tandem_mhd_options {
    unsigned int flags;
    int listen_fd;
    unsigned int thread_pool_size;
    size_t connection_memory_limit;
    unsigned int connection_timeout_seconds;
    unsigned int connection_limit;
    unsigned int listen_backlog;
};

/// URI-log callback type: sees the raw request-target before the access handler; its result becomes *req_cls.
typedef void *(*tandem_mhd_uri_log_callback)(void *cls, const char *uri, struct MHD_Connection *connection);

/// Connection start/close notification callback type (MHD_OPTION_NOTIFY_CONNECTION).
typedef void (*tandem_mhd_notify_connection_callback)(void *cls, struct MHD_Connection *connection,
                                                      void **socket_context, enum MHD_ConnectionNotificationCode toe);

static inline struct MHD_Daemon *tandem_mhd_start(const struct tandem_mhd_options *o,
                                                  MHD_AccessHandlerCallback access_handler, void *access_cls,
                                                  MHD_RequestCompletedCallback completed, void *completed_cls,
                                                  tandem_mhd_uri_log_callback uri_log, void *uri_log_cls,
                                                  MHD_AcceptPolicyCallback accept_policy, void *accept_policy_cls,
                                                  tandem_mhd_notify_connection_callback notify, void *notify_cls) {
    struct MHD_OptionItem items[] = {
        { MHD_OPTION_LISTEN_SOCKET, o->listen_fd, NULL },
        { MHD_OPTION_THREAD_POOL_SIZE, o->thread_pool_size, NULL },
        { MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)o->connection_memory_limit, NULL },
        { MHD_OPTION_CONNECTION_TIMEOUT, o->connection_timeout_seconds, NULL },
        { MHD_OPTION_CONNECTION_LIMIT, o->connection_limit, NULL },
        { MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed, completed_cls },
        { MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)uri_log, uri_log_cls },
        { MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)notify, notify_cls },
        { MHD_OPTION_END, 0, NULL },
    };
    return MHD_start_daemon(o->flags, 0, accept_policy, accept_policy_cls, access_handler, access_cls,
                            MHD_OPTION_ARRAY, items, MHD_OPTION_END);
}

/// Number of open connections (MHD_DAEMON_INFO_CURRENT_CONNECTIONS), or -1.
static inline int tandem_mhd_current_connections(struct MHD_Daemon *d) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info ? (int)info->num_connections : -1;
}

/// The peer's address of a connection, or NULL.
static inline const struct sockaddr *tandem_mhd_client_address(struct MHD_Connection *c) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info ? info->client_addr : NULL;
}

/// The connection's socket context (set by the connection-notification callback), or NULL.
static inline void *tandem_mhd_socket_context(struct MHD_Connection *c) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

/// Sets one connection's idle timeout in seconds (MHD_set_connection_option is variadic).
static inline int tandem_mhd_set_connection_timeout(struct MHD_Connection *c, unsigned int seconds) {
    return MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, seconds) == MHD_YES;
}
#endif
