/// The dashboard's files, kept as Swift raw string literals (`#"""…"""#`, so the HTML, CSS and JavaScript
/// read exactly as they are served: no escapes, no interpolation).
///
/// Why literals: the files stay plain, editable text in the repository, the binary serves them with nothing
/// to find at run time (no `Bundle` lookup, no install path), and there is no generation step to forget.
/// Nothing is fetched from elsewhere: no CDN, no fonts, no JavaScript packages.
enum DashboardAssets {
    /// Path below `/dashboard/` → (content type, body).
    static let files: [String: (contentType: String, body: String)] = [
        "dashboard.css": ("text/css; charset=utf-8", style),
        "metrics.js": ("text/javascript; charset=utf-8", metricsScript),
        "timeline.js": ("text/javascript; charset=utf-8", timelineScript),
        "dashboard.js": ("text/javascript; charset=utf-8", script),
    ]
}
