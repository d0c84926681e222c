import Foundation
import Media
import Motion
import Synchronization

/// The one way a file reaches its output's name. Every command that writes a file (movies,
/// pictures, trace exports, plots, stores, profiles, reports) goes through it:
///
/// - `check`/`checkPlace` refuse, before any work, an output that is one of the inputs under
///   any spelling (`./p.csv`, `../d/./p.csv`, `//`, a symlinked folder, a hard link), a folder,
///   a name ending in `/`, a missing folder or a name too long;
/// - an output replaces only a regular file or nothing: a device node, a named pipe or a socket
///   under the name is refused before any work (`checkKind`) and again at `commit()`, since the
///   rename would replace the node itself (as root, `-o /dev/null` made /dev/null a JSON file,
///   and a reader waiting on a FIFO waited forever); a symbolic link is written through, so
///   the file it names is replaced and the link kept;
/// - a file is written only inside `OutputPath.writing(to:) { file in ... }`: the body writes a
///   hidden temporary file in the same folder (`.<name>.lockstep-<pid>-<random>.tmp`, at
///   `file.path`), which is renamed over the output when the body returns and removed when it
///   throws, so a failure never leaves a half-written file under the output's name and never
///   touches a file the user already had there; no caller can forget either end;
/// - the temporary is removed through a descriptor of its folder, so it is removed even when
///   the folder was renamed or replaced while the job ran; `discardAll()` removes every
///   temporary of the process at once, for a process that must exit without unwinding (the
///   CLI's last resort after a stop signal);
/// - a run killed with SIGKILL cannot remove its own, so the next run into that folder removes
///   those whose process is gone (`removeStaleTemporaries`), and never one of a live run.
///
/// Errors that name the temporary (FFmpeg's, a trace writer's, a store's) are given the
/// output's name instead (`explain`): the user never saw the hidden name.
public final class OutputPath: Sendable {
    package static let containers = ["mp4": "mp4", "m4v": "mp4", "mov": "mov", "mkv": "matroska"]
    /// The longest file name (bytes) Linux file systems take.
    package static let nameMax = Int(NAME_MAX)

    /// What the user named.
    public let output: String
    /// Where the file lands: `output`, or the file a symbolic link there names.
    private let target: String
    /// The temporary file's path, for the writer to open (once, at the start).
    public let path: String
    /// The temporary's name inside `folder`.
    package let name: String
    /// The output's folder, held open (O_PATH) so the temporary can be removed wherever the
    /// folder goes.
    private let folder: Int32
    private enum State { case writing, committed, discarded }
    private let state = Mutex(State.writing)

    /// O_PATH (<fcntl.h>, behind _GNU_SOURCE, which Swift's Glibc module does not define): a
    /// descriptor that names the folder without reading it, so a folder the user may write but
    /// not list still works.
    package static let pathOnly: Int32 = 0o10000000

    /// SQLite's companions of a temporary store; nothing else makes files with these names.
    package static let companions = ["-journal", "-wal", "-shm"]

    /// Reserves a temporary beside `output` (after removing stale ones of dead runs there). The
    /// file itself is made by whoever writes it, at `path`.
    private init(for output: String) throws {
        self.output = output
        try Self.refuseStandardOutput(output)
        try Self.checkKind(output)
        target = Self.target(of: output)
        let url = URL(fileURLWithPath: target)
        let folderPath = url.deletingLastPathComponent().path
        Self.removeStaleTemporaries(in: folderPath)
        let fd = open(folderPath, Self.pathOnly | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            throw OutputPathError.folderCannotBeOpened(output, folder: folderPath, why: String(cString: strerror(errno)))
        }
        // A folder nobody may write in (a read-only mount, its mode) fails here, naming the
        // output, not later naming the temporary (`imu import -o /read-only/x.sqlite` said
        // "not a Lockstep trace store" about a hidden file).
        if access(folderPath, W_OK) != 0 {
            let why = String(cString: strerror(errno))
            close(fd)
            let spelled = (output as NSString).deletingLastPathComponent
            throw OutputPathError.folderNotWritable(output, folder: spelled.isEmpty ? "." : spelled, why: why)
        }
        folder = fd
        path = Self.temporary(beside: target)
        name = (path as NSString).lastPathComponent
        Self.live.withLock { $0[ObjectIdentifier(self)] = (fd, name) }
    }

    deinit {
        discard()
        close(folder)
    }

    // MARK: the scoped writer

    /// What a finished file does to a file found under the output's name at the end.
    public enum Landing: Sendable {
        /// Replaces it (a regular file; a node is refused, `checkKind`).
        case replacing
        /// Lands only where nothing is (link(2), not rename(2)): a file made under the name while
        /// the body ran is kept, and the move fails with `OutputPath.NameTaken`.
        case whereNothingIs
    }

    /// `Landing.whereNothingIs` found the name taken, or could not link (`code`, an errno).
    public struct NameTaken: Error, CustomStringConvertible {
        public let output: String
        public let code: Int32
        public var description: String { "\(output): cannot be made (\(String(cString: strerror(code))))" }
    }

    /// Writes one output: `body` writes the file at `file.path` (or with `file.writeAll`); when
    /// it returns, the file is moved onto the output's name (`landing`) and its value returned;
    /// when it throws, the temporary is removed and the error goes on, naming the output where it
    /// named the temporary (`explain`).
    public static func writing<T>(to output: String, landing: Landing = .replacing, _ body: (OutputPath) throws -> T) throws -> T {
        let file = try OutputPath(for: output)
        let value: T
        do { value = try body(file) } catch {
            file.discard()
            throw file.explain(error)
        }
        try file.commit(landing)
        return value
    }

    /// Several outputs written side by side, each kept or dropped on its own (`filter --variants`,
    /// whose variants fail alone): `body` gets, per output, its temporary or the reason none could
    /// be made, and returns its value with the outputs to keep (by index). On return those are
    /// moved into place (a move's failure comes back in `failures`, at its output's index) and the
    /// others removed; on throw every one is removed.
    public static func writing<T>(
        toEach outputs: [String], _ body: ([Result<OutputPath, any Error>]) throws -> (value: T, keep: [Bool])
    ) throws -> (value: T, failures: [(any Error)?]) {
        let files = outputs.map { o in Result { try OutputPath(for: o) } }
        let made = files.compactMap { try? $0.get() }
        let value: T, keep: [Bool]
        do { (value, keep) = try body(files) } catch {
            for f in made { f.discard() }
            throw made.reduce(error) { $1.explain($0) }
        }
        let failures = files.enumerated().map { i, f -> (any Error)? in
            guard case .success(let file) = f else { return nil }
            guard keep.indices.contains(i), keep[i] else {
                file.discard()
                return nil
            }
            do { try file.commit(.replacing) } catch { return error }
            return nil
        }
        return (value, failures)
    }

    /// Moves the finished temporary onto the output's name. The output lands where the user
    /// named it, in whatever folder is there now; when nothing can be there (the folder was
    /// removed, or moved to another file system) the temporary is removed and the error says why.
    private func commit(_ landing: Landing) throws {
        // Whatever happens the temporary is gone after this: `discardAll` must not look for it.
        defer { Self.live.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(self)) } }
        if landing == .whereNothingIs { return try link() }
        try state.withLock { state in
            guard state == .writing else { throw OutputPathError.alreadyEnded(output, committed: state == .committed) }
            // A node made under the name while the job ran is not replaced either.
            do { try Self.checkKind(output) } catch {
                unlinkTemporary()
                state = .discarded
                throw error
            }
            if renameat(folder, name, AT_FDCWD, target) != 0 {
                let why = errno
                unlinkTemporary()
                state = .discarded
                let spelled = (output as NSString).deletingLastPathComponent
                let folderPath = spelled.isEmpty ? "." : spelled
                let cause =
                    why == ENOENT || why == EXDEV
                    ? "the folder \(folderPath) was moved or removed while writing (\(String(cString: strerror(why))))"
                    : String(cString: strerror(why))
                throw OutputPathError.cannotMoveIntoPlace(output, cause: cause)
            }
            state = .committed
        }
    }

    /// `Landing.whereNothingIs`: links the temporary under the output's name, which fails when
    /// anything is there, then removes the temporary's own name.
    private func link() throws {
        try state.withLock { state in
            guard state == .writing else { throw OutputPathError.alreadyEnded(output, committed: state == .committed) }
            let linked = linkat(folder, name, AT_FDCWD, target, 0) == 0, why = errno
            unlinkTemporary()
            state = linked ? .committed : .discarded
            if !linked { throw NameTaken(output: output, code: why) }
        }
    }

    /// Removes the temporary (and any SQLite companions) if it was not committed. Idempotent.
    private func discard() {
        state.withLock { state in
            guard state == .writing else { return }
            unlinkTemporary()
            state = .discarded
        }
        Self.live.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(self)) }
    }

    private func unlinkTemporary() {
        unlinkat(folder, name, 0)
        for suffix in Self.companions { unlinkat(folder, name + suffix, 0) }
    }

    /// `error` with the temporary's path replaced by the output's, where the error carries a
    /// path: the hidden name means nothing to the user.
    public func explain(_ error: Error) -> Error {
        switch error {
        case var e as MediaError where e.path == path: e.path = output; return e
        case var e as TraceFileError where e.path == path: e.path = output; return e
        case var e as any PathNamingError where e.path == path: e.path = output; return e
        case let e as JobError where e.description.contains(path):
            return JobError(e.description.replacingOccurrences(of: path, with: output))
        default: return error
        }
    }

    /// Writes `data` as the whole file and commits it: the small outputs (profiles, reports,
    /// plots, manifests).
    public static func write(_ data: Data, to output: String) throws {
        try writing(to: output) { try $0.writeAll(data) }
    }

    /// Writes `data` to the temporary (made here), then syncs nothing: rename is the commit.
    public func writeAll(_ data: Data) throws {
        let fd = openat(folder, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw OutputPathError.cannotBeWritten(output, why: String(cString: strerror(errno))) }
        defer { close(fd) }
        try data.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + done, raw.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw OutputPathError.cannotBeWritten(output, why: String(cString: strerror(errno)))
                }
                done += n
            }
        }
    }

    // MARK: every temporary of the process

    /// The temporaries being written now: descriptor of the folder and name.
    private static let live = Mutex<[ObjectIdentifier: (Int32, String)]>([:])

    /// Removes every temporary this process is writing, without waiting for the jobs: for a
    /// process about to exit without unwinding (a job that did not stop after a stop signal).
    public static func discardAll() {
        live.withLock { all in
            for (fd, name) in all.values {
                unlinkat(fd, name, 0)
                for suffix in companions { unlinkat(fd, name + suffix, 0) }
            }
            all.removeAll()
        }
    }

    // MARK: checks before any work

    package static func container(for path: String) -> String {
        containers[(path as NSString).pathExtension.lowercased()] ?? "mp4"
    }

    /// Everything about the output that can be known before a job starts, as one sentence:
    /// the extension, the folder, the name's length, and that it is not one of the inputs.
    public static func check(_ output: String, inputs: [String]) throws {
        let ext = (output as NSString).pathExtension.lowercased()
        try refuseStandardOutput(output)
        guard !output.hasSuffix("/") else { throw OutputPathError.endsInSlash(output) }
        guard containers[ext] != nil else { throw OutputPathError.notAMovieName(output) }
        try checkPlace(output, inputs: inputs)
    }

    /// The checks of `check` that do not depend on the kind of file: the folder, the name's
    /// length, and that it is not one of the inputs (`thumbnail` writes images, `imu export`
    /// traces, `calibrate` profiles).
    public static func checkPlace(_ output: String, inputs: [String]) throws {
        guard !output.isEmpty else { throw OutputPathError.emptyName }
        try refuseStandardOutput(output)
        // "out.mp4/" passed every check and failed at the rename, after the whole job.
        guard !output.hasSuffix("/") else { throw OutputPathError.endsInSlash(output) }
        let url = URL(fileURLWithPath: output)
        let name = url.lastPathComponent.utf8.count
        guard name <= nameMax else {
            throw OutputPathError.nameTooLong(output, bytes: name, limit: nameMax)
        }
        let folder = url.deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw OutputPathError.missingFolder(output, folder: folder)
        }
        // A folder under the name: the file could only be written at the end, after the work,
        // and then failed with Foundation's error dump (snake --report DIR, calibrate -o DIR).
        try checkKind(output)
        if inputs.contains(where: { sameFile(output, $0) }) {
            throw OutputPathError.isAnInput(output)
        }
    }

    /// "-" is standard output to many tools, but every output here is renamed into place when
    /// complete (and movies, stores and profiles are not streams): a file named "-" was made.
    public static func refuseStandardOutput(_ output: String) throws {
        if output == "-" { throw OutputPathError.standardOutput }
    }

    /// Refuses a name under which something other than a regular file exists (through any
    /// symbolic link): a folder, a device node, a named pipe, a socket. Nothing there, or a
    /// regular file, passes.
    public static func checkKind(_ output: String) throws {
        var st = stat()
        guard stat(output, &st) == 0 else { return }
        let what: String
        switch st.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: throw OutputPathError.isAFolder(output)
        case S_IFCHR: what = "a device (character special file)"
        case S_IFBLK: what = "a device (block special file)"
        case S_IFIFO: what = "a named pipe (FIFO)"
        case S_IFSOCK: what = "a socket"
        default: what = "not a regular file"
        }
        throw OutputPathError.notARegularFile(output, what: what)
    }

    /// The file a symbolic link at `output` names (links followed to the end), so that writing
    /// replaces that file and keeps the link; `output` itself when it is no link, or a dangling one.
    static func target(of output: String) -> String {
        var st = stat()
        guard lstat(output, &st) == 0, (st.st_mode & S_IFMT) == S_IFLNK, let resolved = realpath(output, nil) else { return output }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether two names reach the same file: the same path once `.`, `..`, `//` and symbolic
    /// links are resolved, or (for files that exist) the same device and inode, which also
    /// catches a hard link.
    public static func sameFile(_ a: String, _ b: String) -> Bool {
        func real(_ p: String) -> String { URL(fileURLWithPath: p).standardizedFileURL.resolvingSymlinksInPath().path }
        if real(a) == real(b) { return true }
        var sa = stat(), sb = stat()
        guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }

    /// Each input exists, is a file (or a pipe) and can be read.
    public static func checkInput(_ input: String) throws {
        var folder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: input, isDirectory: &folder) else { throw OutputPathError.noSuchInput(input) }
        guard !folder.boolValue else { throw OutputPathError.inputIsAFolder(input) }
        guard FileManager.default.isReadableFile(atPath: input) else { throw OutputPathError.inputNotReadable(input) }
    }

    // MARK: temporary names

    package static let marker = ".lockstep-"

    /// A hidden name beside `path`, for this process. A long output name is cut (on a character
    /// boundary) so the temporary, and its SQLite companions, stay within NAME_MAX; the final
    /// name is kept.
    package static func temporary(beside path: String, pid: pid_t = getpid()) -> String {
        let url = URL(fileURLWithPath: path)
        let suffix = "\(marker)\(pid)-\(UInt32.random(in: 0...UInt32.max)).tmp"
        let room = nameMax - (companions.map(\.utf8.count).max() ?? 0)
        var name = Substring(url.lastPathComponent)
        while 1 + name.utf8.count + suffix.utf8.count > room { name = name.dropLast() }
        return url.deletingLastPathComponent().appendingPathComponent("." + name + suffix).path
    }

    /// The id of the process that owns a temporary file of ours (or one of its SQLite
    /// companions), from its name; nil for any other file.
    package static func owner(ofTemporary name: String) -> pid_t? {
        var name = Substring(name)
        if let c = companions.first(where: { name.hasSuffix(".tmp" + $0) }) { name = name.dropLast(c.count) }
        guard name.hasPrefix("."), name.hasSuffix(".tmp"), let range = name.range(of: marker, options: .backwards) else { return nil }
        let parts = name[range.upperBound...].dropLast(4).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            UInt32(parts[1]) != nil, let pid = pid_t(parts[0]), pid > 0
        else { return nil }
        return pid
    }

    /// Removes the temporaries in `folder` left by runs that no longer exist (killed with
    /// SIGKILL, a power cut). A process that exists (kill(pid, 0) succeeds, or fails with
    /// EPERM: someone else's) keeps its file. Returns the names removed.
    @discardableResult
    public static func removeStaleTemporaries(in folder: String) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        var removed: [String] = []
        for name in names {
            guard let pid = owner(ofTemporary: name), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            let path = (folder as NSString).appendingPathComponent(name)
            var st = stat()
            guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
            if unlink(path) == 0 { removed.append(name) }
        }
        return removed.sorted()
    }
}

/// An error that names its file by path, from a module the engine does not know (TraceStore's):
/// `OutputPath.explain` puts the output's name in place of the temporary's. Lockstep declares
/// the conformances.
public protocol PathNamingError: Error {
    var path: String { get set }
}
