// Compiled into every harness by scripts/fuzz.sh.
import Glibc

/// Runs one fuzzer input under a limit on the CPU time it may use (`FUZZ_CPU_TIMEOUT` seconds, 1 unless set):
/// past it, `SIGPROF` aborts the process and libFuzzer records the input as a crash, with "CPU watchdog" in the
/// log. A harness returns `fuzzInput { … }` from `LLVMFuzzerTestOneInput`.
///
/// libFuzzer's own `-timeout` counts wall-clock time. On a machine shared with other builds, a niced fuzzer
/// waits for a core for seconds at a time, so a 30 µs input "took" over a second; the CPU time an input used
/// does not depend on that. A hang is still caught by both (scripts/fuzz.sh keeps a longer wall-clock
/// `-timeout` as the backstop). Not guaranteed: the limit counts the whole process, so libFuzzer's own
/// threads' CPU time during the input (normally none) counts too.
func fuzzInput(_ body: () -> Void) -> CInt {
    _ = CPUWatchdog.installed
    var limit = itimerval(it_interval: timeval(tv_sec: 0, tv_usec: 0), it_value: timeval(tv_sec: CPUWatchdog.seconds, tv_usec: 0))
    setitimer(__itimer_which_t(ITIMER_PROF.rawValue), &limit, nil)
    body()
    var off = itimerval(it_interval: timeval(tv_sec: 0, tv_usec: 0), it_value: timeval(tv_sec: 0, tv_usec: 0))
    setitimer(__itimer_which_t(ITIMER_PROF.rawValue), &off, nil)
    return 0
}

private enum CPUWatchdog {
    static let seconds: Int = getenv("FUZZ_CPU_TIMEOUT").flatMap { Int(String(cString: $0)) }.map { max(1, $0) } ?? 1

    static let installed: Bool = {
        signal(SIGPROF) { _ in
            let message: StaticString = "==CPU watchdog== one input used more than FUZZ_CPU_TIMEOUT seconds of CPU time: a hang\n"
            _ = write(2, message.utf8Start, message.utf8CodeUnitCount)
            abort()
        }
        return true
    }()
}
