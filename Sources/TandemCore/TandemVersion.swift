/// The release this build belongs to, reported by `tandem --version` and `GET /healthz`.
public enum TandemVersion {
    public static let current = "0.1.0"
}
