import Testing
import TandemCore
@testable import TandemEngine

@Suite("Keyed pages")
struct KeyedPagesTests {
    final class Box: Equatable {
        let value: Int
        init(_ value: Int) { self.value = value }
        static func == (a: Box, b: Box) -> Bool { a === b }
    }

    @Test("reads and writes like a dictionary, across page boundaries, negative keys and emptied pages")
    func likeADictionary() {
        var pages = KeyedPages<Box>()
        var dictionary: [DeliveryKey: Box] = [:]
        // A fixed pseudo-random walk over keys around zero and around page edges (size 16), setting and removing.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let keys: [Int64] = [-33, -17, -16, -15, -1, 0, 1, 15, 16, 17, 31, 32, 47, 48, 1_000_000, 1_000_015]
        for step in 0..<5_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let key = DeliveryKey(keys[Int(state >> 33) % keys.count])
            let value: Box? = (state >> 20) % 3 == 0 ? nil : Box(step)
            pages[key] = value
            dictionary[key] = value
            #expect(pages.count == dictionary.count)
            for probe in keys { #expect(pages[DeliveryKey(probe)] === dictionary[DeliveryKey(probe)]) }
        }
        for key in keys { pages[DeliveryKey(key)] = nil }
        #expect(pages.count == 0)
    }

    @Test("removing an absent key, or setting a present one again, leaves the count right")
    func countStaysRight() {
        var pages = KeyedPages<Box>()
        pages[DeliveryKey(5)] = nil
        #expect(pages.count == 0)
        let box = Box(1)
        pages[DeliveryKey(5)] = box
        pages[DeliveryKey(5)] = Box(2)
        #expect(pages.count == 1 && pages[DeliveryKey(5)]?.value == 2)
        pages[DeliveryKey(6)] = box
        pages[DeliveryKey(5)] = nil
        pages[DeliveryKey(5)] = nil
        #expect(pages.count == 1 && pages[DeliveryKey(6)] === box && pages[DeliveryKey(5)] == nil)
    }
}
