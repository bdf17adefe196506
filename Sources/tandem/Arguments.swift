/// A hand-written parser for `tandem`'s small command line: positional words, `--name value` options and
/// `--name` flags (options without a value, such as `--sandbox`).
///
/// Options may come before or after positional words and may be written `--name value` or `--name=value`.
/// Unknown options are errors; so are missing values, values given to a flag, and repeated options or flags.
struct Arguments {
    private(set) var positional: [String] = []
    private var options: [String: String] = [:]
    private var flags: Set<String> = []
    private(set) var wantsHelp = false

    /// Parses `words`, accepting only the option names in `known` and the flag names in `flags` (without
    /// the dashes).
    init(_ words: some Sequence<String>, known: Set<String>, flags knownFlags: Set<String> = []) throws(CommandFailure) {
        var iterator = words.makeIterator()
        while let word = iterator.next() {
            if word == "--help" || word == "-h" {
                wantsHelp = true
            } else if word == "--" {
                while let rest = iterator.next() { positional.append(rest) }
            } else if word.hasPrefix("--") {
                var name = String(word.dropFirst(2))
                var value: String?
                if let equals = name.firstIndex(of: "=") {
                    value = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                if knownFlags.contains(name) {
                    guard value == nil else { throw CommandFailure(.usage, "--\(name) takes no value") }
                    guard flags.insert(name).inserted else { throw CommandFailure(.usage, "--\(name) given twice") }
                    continue
                }
                guard known.contains(name) else {
                    throw CommandFailure(.usage, "unknown option --\(name)")
                }
                guard options[name] == nil else { throw CommandFailure(.usage, "--\(name) given twice") }
                guard let given = value ?? iterator.next(), !given.isEmpty else {
                    throw CommandFailure(.usage, "--\(name) needs a value")
                }
                options[name] = given
            } else if word.hasPrefix("-") && word.count > 1 {
                throw CommandFailure(.usage, "unknown option \(word)")
            } else {
                positional.append(word)
            }
        }
    }

    /// Parses a command's words; when `--help` is among them, prints `usage` and returns nil.
    static func parse(_ words: [String], known: Set<String>, flags: Set<String> = [],
                      usage: String) throws(CommandFailure) -> Arguments? {
        let parsed = try Arguments(words, known: known, flags: flags)
        if parsed.wantsHelp {
            ProcessIO.writeOutput(usage)
            return nil
        }
        return parsed
    }

    func option(_ name: String) -> String? { options[name] }

    /// Whether the flag `--name` was given.
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// Refuses any option or flag given that is not in `allowed`, for commands whose subcommands take
    /// different options (parse with all of them, then check per subcommand).
    func expectOnly(_ allowed: Set<String>, usage: String) throws(CommandFailure) {
        if let extra = (Set(options.keys).union(flags)).subtracting(allowed).sorted().first {
            throw CommandFailure(.usage, "--\(extra) does not apply here\nusage: \(usage)")
        }
    }

    /// An integer option in `range`, or `fallback` when absent.
    func integer(_ name: String, in range: ClosedRange<Int>, default fallback: Int) throws(CommandFailure) -> Int {
        guard let text = options[name] else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw CommandFailure(.usage, "--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), got \"\(text)\"")
        }
        return value
    }

    /// Exactly `count` positional words, named in `usage` for the error.
    func expectPositional(_ count: Int, usage: String) throws(CommandFailure) -> [String] {
        guard positional.count == count else {
            let problem = positional.count < count ? "missing argument" : "unexpected argument \"\(positional[count])\""
            throw CommandFailure(.usage, "\(problem)\nusage: \(usage)")
        }
        return positional
    }
}
