import GRDB

/// A store problem, naming the store file; SQLite's own message is kept where there is one.
public struct TraceStoreError: Error, Equatable, CustomStringConvertible, Sendable {
    public var path: String
    public var message: String
    public init(path: String, _ message: String) { self.path = path; self.message = message }
    public var description: String { "\(path): \(message)" }

    static func wrap<T>(_ path: String, _ doing: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let e as TraceStoreError { throw e } catch let e as DatabaseError {
            throw TraceStoreError(path: path, "\(doing) failed (\(e.message ?? "\(e.resultCode)"))")
        }
    }
}

/// The SQLite library this process runs with, for `lockstep --version`.
public enum SQLiteVersion {
    public static var description: String {
        (try? DatabaseQueue().read { try String.fetchOne($0, sql: "SELECT sqlite_version()") }).flatMap { $0 } ?? "unknown"
    }
}
