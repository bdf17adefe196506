import Testing
import TandemCore
@testable import TandemAPI

/// Found by schemathesis (`positive_data_acceptance` against docs/openapi.json): `"pinLength": 10.0` is an integer
/// in JSON Schema, and what a JSON encoder writes for a float holding 10, but the admin API refused it.
@Suite("Admin request bodies")
struct AdminRequestBodyTests {
    private func pinLength(_ json: String) throws(AdminFailure) -> Int? {
        try AdminRequestBody(Array(json.utf8), keys: ["pinLength"]).int("pinLength")
    }

    @Test("a whole number is read whether written 10, 10.0, 1e1 or 1.0E+1", arguments: ["10", "10.0", "1e1", "1.0E+1", "10.000"])
    func wholeNumbers(_ written: String) throws {
        #expect(try pinLength(#"{"pinLength":\#(written)}"#) == 10)
    }

    @Test("a number with a fraction, or too large to be exact, is 400 naming the key and the number",
          arguments: ["10.5", "1e-1", "1e300", "9007199254740993.0"])
    func notWhole(_ written: String) {
        #expect {
            try pinLength(#"{"pinLength":\#(written)}"#)
        } throws: { error in
            guard let failure = error as? AdminFailure else { return false }
            return failure.status == .badRequest && failure.message == "\"pinLength\" must be a whole number, not \(written)"
        }
    }

    @Test("a negative whole number stays negative; the caller checks the range")
    func negative() throws {
        #expect(try pinLength(#"{"pinLength":-4.0}"#) == -4)
    }
}
