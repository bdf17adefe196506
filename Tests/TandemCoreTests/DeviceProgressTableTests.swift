import Foundation
import Testing
@testable import TandemCore

@Suite("Device progress table")
struct DeviceProgressTableTests {
    static let devices = (1...3).map { DeviceID("00000000-0000-4000-8000-00000000000\($0)")! }
    typealias Progress = Delivery.DeviceProgress

    static func progress(accepted: Bool = false, acknowledged: Bool = false, rejection: PushRejection? = nil) -> Progress {
        var progress = Progress()
        progress.accepted = accepted
        progress.acknowledged = acknowledged
        progress.rejection = rejection
        return progress
    }

    @Test("reads and writes like a dictionary through none, one and many entries and back")
    func likeADictionary() {
        var table = DeviceProgressTable()
        var dictionary: [DeviceID: Progress] = [:]
        let (a, b, c) = (Self.devices[0], Self.devices[1], Self.devices[2])
        let steps: [(DeviceID, Progress?)] = [
            (a, Self.progress()), (a, Self.progress(accepted: true)), (b, Self.progress(rejection: .tokenDead)),
            (c, Self.progress(acknowledged: true)), (a, nil), (b, nil), (c, Self.progress(accepted: true)), (c, nil),
            (b, nil), (a, Self.progress(acknowledged: true)),
        ]
        for (device, value) in steps {
            table[device] = value
            dictionary[device] = value
            #expect(table.count == dictionary.count && table.isEmpty == dictionary.isEmpty)
            for id in Self.devices { #expect(table[id] == dictionary[id]) }
            #expect(table.dictionary == dictionary)
            #expect(Dictionary(uniqueKeysWithValues: table.map { ($0.device, $0.progress) }) == dictionary)
        }
    }

    @Test("equal contents are equal and hash alike, however they were reached")
    func oneRepresentation() {
        var grown = DeviceProgressTable()
        for device in Self.devices { grown[device] = Self.progress(accepted: true) }
        grown[Self.devices[1]] = nil
        grown[Self.devices[2]] = nil
        let direct = DeviceProgressTable([Self.devices[0]: Self.progress(accepted: true)])
        #expect(grown == direct)
        #expect(grown.hashValue == direct.hashValue)
        var emptied = direct
        emptied[Self.devices[0]] = nil
        #expect(emptied == DeviceProgressTable())
        #expect(emptied.hashValue == DeviceProgressTable().hashValue)
    }

    @Test("a copy keeps its contents while the original changes (value semantics for one and many)")
    func copiesAreIndependent() {
        var one = DeviceProgressTable([Self.devices[0]: Self.progress()])
        let oneBefore = one
        one[Self.devices[0]]?.acknowledged = true
        #expect(oneBefore[Self.devices[0]]?.acknowledged == false)
        #expect(one[Self.devices[0]]?.acknowledged == true)

        var many = DeviceProgressTable([Self.devices[0]: Self.progress(), Self.devices[1]: Self.progress()])
        let manyBefore = many
        many[Self.devices[1]]?.acknowledged = true
        many[Self.devices[2]] = Self.progress(accepted: true)
        #expect(manyBefore.dictionary == [Self.devices[0]: Self.progress(), Self.devices[1]: Self.progress()])
        #expect(many.count == 3 && many[Self.devices[1]]?.acknowledged == true)
    }

    @Test("encoded exactly as the dictionary it replaced, and decoded from it")
    func codableLikeADictionary() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for count in 0...3 {
            let dictionary = Dictionary(uniqueKeysWithValues: Self.devices.prefix(count).map { ($0, Self.progress(accepted: true)) })
            let table = DeviceProgressTable(dictionary)
            let encoded = try encoder.encode(table)
            #expect(encoded == (try encoder.encode(dictionary)))
            #expect(try JSONDecoder().decode(DeviceProgressTable.self, from: encoded) == table)
        }
        let json = try #require(String(data: try encoder.encode(DeviceProgressTable([Self.devices[0]: Self.progress()])), encoding: .utf8))
        #expect(json == #"{"00000000-0000-4000-8000-000000000001":{"accepted":false,"acknowledged":false,"read":false}}"#)
    }
}
