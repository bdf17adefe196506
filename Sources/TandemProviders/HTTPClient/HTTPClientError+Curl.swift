import CCurl

extension HTTPClientError {
    /// Maps a finished transfer's `CURLcode` to an error. `bodyLimitExceeded` tells a write
    /// callback refusal caused by the size limit apart from any other write error.
    static func fromCurl(_ code: CURLcode, message: String, bodyLimitExceeded: Bool, limit: Int) -> HTTPClientError {
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return .timeout
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .connectFailed(message)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
             CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR,
             CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE,
             CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED,
             CURLE_USE_SSL_FAILED, CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CLIENTCERT:
            return .tls(message)
        case CURLE_FILESIZE_EXCEEDED:
            return .responseTooLarge(limit: limit)
        case CURLE_WRITE_ERROR where bodyLimitExceeded:
            return .responseTooLarge(limit: limit)
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            return .invalidRequest(message)
        default: // CURLcode is curl's open C enum, not ours: everything else is a transport error.
            return .transport(code: Int(code.rawValue), message: message)
        }
    }

    /// A failure of the multi handle itself (`CURLMcode`), which fails every transfer on it.
    static func fromMulti(_ code: CURLMcode) -> HTTPClientError {
        .transport(code: Int(code.rawValue), message: String(cString: curl_multi_strerror(code)))
    }
}
