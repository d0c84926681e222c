import Foundation

/// What a test class makes once for its tests (clips, stores, a job's output), by key, in one
/// folder of its own outside the tests' scratch folders: made by the first test that asks,
/// removed by the class's `tearDown()` (`removeAll()`), so a class's tests share the cost of a
/// fixture that none of them changes. XCTest runs a class's tests one after another, never at
/// once: the state needs no lock.
public final class ClassFixtures<Key: Hashable, Value>: @unchecked Sendable {
    private let name: String
    private var folder: URL?
    private var made: [Key: Value] = [:]

    /// `name` names the folder (`lockstep-NAME-...` under the temporary directory).
    public init(_ name: String) { self.name = name }

    /// The value under `key`, made by `make` (given the class's folder) the first time.
    public func value(_ key: Key, make: (URL) throws -> Value) throws -> Value {
        if let done = made[key] { return done }
        let folder = try self.folder ?? Scratch.makeFolder("lockstep-\(name)")
        self.folder = folder
        let done = try make(folder)
        made[key] = done
        return done
    }

    /// How many values are made (a file name that stays unique in the folder).
    public var count: Int { made.count }

    /// Removes the folder and forgets every value: the class's `tearDown()`.
    public func removeAll() {
        if let folder { try? FileManager.default.removeItem(at: folder) }
        folder = nil
        made = [:]
    }
}

/// One value a class makes once (`ClassFixtures` with a single key).
public typealias ClassFixture<Value> = ClassFixtures<Int, Value>

extension ClassFixtures where Key == Int {
    /// The class's one value, made by `make` (given the class's folder) the first time.
    public func value(make: (URL) throws -> Value) throws -> Value { try value(0, make: make) }
}
