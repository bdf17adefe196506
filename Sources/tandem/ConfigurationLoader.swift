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
        let configuration: Configuration
        do {
            configuration = try Configuration.load(data: data, file: path, directory: directory(of: path),
                                                   environment: environment)
        } catch {
            throw CommandFailure(.configuration, error.description)
        }
        try checkPaths(configuration.paths, file: path)
        return configuration
    }

    /// The absolute directory holding `file`, against which the file's relative paths are resolved.
    static func directory(of file: String) -> String {
        let absolute = file.hasPrefix("/") ? file : FileManager.default.currentDirectoryPath + "/" + file
        return (absolute as NSString).deletingLastPathComponent
    }

    /// Fails on the first path that must exist and does not, naming the key, the path as written and as resolved.
    private static func checkPaths(_ paths: [ConfiguredPath], file: String) throws(CommandFailure) {
        for path in paths {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: path.resolved, isDirectory: &isDirectory)
            let problem: String
            switch path.expectation {
            case .none: continue
            case .directory where exists && isDirectory.boolValue: continue
            case .file where exists && !isDirectory.boolValue: continue
            case .directory: problem = exists ? "is not a directory" : "no such directory"
            case .file: problem = exists ? "is a directory, not a file" : "no such file"
            }
            let resolution = path.written == path.resolved ? "" : " (resolved against the file's directory: \(path.resolved))"
            throw CommandFailure(.configuration, "\(file): \(path.key): \(problem) \"\(path.written)\"\(resolution)")
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
