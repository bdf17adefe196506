import Foundation
import TandemCore

/// Reads the configuration and policy files (the I/O half of `Configuration.load` and `PolicySet.decode`).
enum ConfigurationLoader {
    /// The config file to use: `--config`, else `TANDEM_CONFIG`, else `Config/tandem.json`.
    static func path(option: String?, environment: [String: String]) -> String {
        option ?? environment["TANDEM_CONFIG"] ?? "Config/tandem.json"
    }

    static func configuration(at path: String, environment: [String: String]) throws(CommandFailure) -> Configuration {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CommandFailure(.configuration, "\(path): (document): cannot be read (\(Self.reason(error)))")
        }
        do {
            return try Configuration.load(data: data, file: path, environment: environment)
        } catch {
            throw CommandFailure(.configuration, error.description)
        }
    }

    /// Every `.json` file in `directory`, decoded as the policy set.
    static func policies(in directory: String) throws(CommandFailure) -> PolicySet {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }
        } catch {
            throw CommandFailure(.configuration, "\(directory): (document): cannot list the policy directory (\(Self.reason(error)))")
        }
        var files: [String: Data] = [:]
        for name in names {
            let path = directory + "/" + name
            do {
                files[name] = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw CommandFailure(.configuration, "\(path): (document): cannot be read (\(Self.reason(error)))")
            }
        }
        do {
            return try PolicySet.decode(files: files, directory: directory)
        } catch {
            throw CommandFailure(.configuration, error.description)
        }
    }

    private static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let posix = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, posix.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(posix.code)))
        }
        return nsError.localizedDescription
    }
}
