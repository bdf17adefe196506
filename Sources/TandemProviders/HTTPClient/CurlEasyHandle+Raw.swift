import CCurl

/// A `CURL *` together with the C memory whose lifetime is tied to it: the request header
/// list and the error buffer. `deinit` releases them in the order curl requires (the easy
/// handle first). Not Sendable: created, used and released on the loop thread only.
final class CurlEasyHandle {
    let raw: UnsafeMutableRawPointer
    /// `CURLOPT_ERRORBUFFER`: curl writes a NUL-terminated message here on failure.
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var headerList: UnsafeMutablePointer<curl_slist>?

    init() throws(HTTPClientError) {
        guard let raw = curl_easy_init() else {
            throw .transport(code: Int(CURLE_FAILED_INIT.rawValue), message: "curl_easy_init returned NULL")
        }
        self.raw = raw
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        try set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
    }

    deinit {
        curl_easy_cleanup(raw)
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    /// curl's text for the failure: the error buffer, or the generic text for `code`.
    func errorMessage(for code: CURLcode) -> String {
        errorBuffer.pointee != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
    }

    // MARK: Options. Each throws `.invalidRequest` naming the option curl refused.

    func set(_ option: CURLoption, _ value: Int) throws(HTTPClientError) {
        try check(tandem_curl_easy_setopt_long(raw, option, value), option)
    }

    func set(_ option: CURLoption, offset value: Int64) throws(HTTPClientError) {
        try check(tandem_curl_easy_setopt_off(raw, option, curl_off_t(value)), option)
    }

    /// curl copies string options (all but `CURLOPT_POSTFIELDS`, which is never used here).
    func set(_ option: CURLoption, _ value: String) throws(HTTPClientError) {
        try check(value.withCString { tandem_curl_easy_setopt_string(raw, option, $0) }, option)
    }

    func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?) throws(HTTPClientError) {
        try check(tandem_curl_easy_setopt_pointer(raw, option, pointer), option)
    }

    /// Sends `bytes` as the body; curl copies them (`CURLOPT_COPYPOSTFIELDS`), so they may
    /// contain NULs and need not outlive the call.
    func setBody(_ bytes: [UInt8]) throws(HTTPClientError) {
        try set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(bytes.count))
        let code = bytes.withUnsafeBytes { buffer in
            "".withCString { empty in
                let start = buffer.baseAddress.map { UnsafeMutableRawPointer(mutating: $0) }
                    ?? UnsafeMutableRawPointer(mutating: empty)
                return tandem_curl_easy_setopt_pointer(raw, CURLOPT_COPYPOSTFIELDS, start)
            }
        }
        try check(code, CURLOPT_COPYPOSTFIELDS)
    }

    /// Replaces the request header lines (`CURLOPT_HTTPHEADER`), each `Name: value`,
    /// `Name;` (empty value) or `Name:` (suppress curl's own field).
    func setHeaderLines(_ lines: [String]) throws(HTTPClientError) {
        var list: UnsafeMutablePointer<curl_slist>? = nil
        for line in lines {
            guard let extended = curl_slist_append(list, line) else {
                curl_slist_free_all(list)
                throw .transport(code: Int(CURLE_OUT_OF_MEMORY.rawValue), message: "curl_slist_append failed")
            }
            list = extended
        }
        let code = tandem_curl_easy_setopt_slist(raw, CURLOPT_HTTPHEADER, list)
        curl_slist_free_all(headerList)
        headerList = list
        try check(code, CURLOPT_HTTPHEADER)
    }

    func setWriteCallback(_ callback: curl_write_callback, context: UnsafeMutableRawPointer) throws(HTTPClientError) {
        try check(tandem_curl_easy_setopt_write_callback(raw, callback), CURLOPT_WRITEFUNCTION)
        try set(CURLOPT_WRITEDATA, pointer: context)
    }

    func setHeaderCallback(_ callback: curl_write_callback, context: UnsafeMutableRawPointer) throws(HTTPClientError) {
        try check(tandem_curl_easy_setopt_header_callback(raw, callback), CURLOPT_HEADERFUNCTION)
        try set(CURLOPT_HEADERDATA, pointer: context)
    }

    private func check(_ code: CURLcode, _ option: CURLoption) throws(HTTPClientError) {
        guard code == CURLE_OK else {
            throw .invalidRequest("curl_easy_setopt(\(option.rawValue)): \(String(cString: curl_easy_strerror(code)))")
        }
    }

    // MARK: Information about a finished transfer.

    func infoLong(_ info: CURLINFO) -> Int? {
        var value = 0
        return tandem_curl_easy_getinfo_long(raw, info, &value) == CURLE_OK ? value : nil
    }

    func infoOffset(_ info: CURLINFO) -> Int64? {
        var value: curl_off_t = 0
        return tandem_curl_easy_getinfo_off(raw, info, &value) == CURLE_OK ? Int64(value) : nil
    }

    /// The `CURLOPT_PRIVATE` value of any easy handle.
    static func privatePointer(of easy: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
        var value: UnsafeMutableRawPointer? = nil
        return tandem_curl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &value) == CURLE_OK ? value : nil
    }
}
