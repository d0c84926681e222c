import Foundation
import Media

/// The output is written to a hidden temporary file in the same folder and renamed over the
/// output only when complete, so a failure never leaves a half-written file under the output's
/// name and never touches a file the user already had there.
///
/// The temporary's name carries the writing process's id (`.<name>.lockstep-<pid>-<random>.tmp`):
/// a run killed with SIGKILL cannot remove its own, so the next run into that folder removes
/// those whose process is gone, and never one of a live run.
public enum OutputPath {
    static let containers = ["mp4": "mp4", "m4v": "mp4", "mov": "mov", "mkv": "matroska"]
    /// The longest file name (bytes) Linux file systems take.
    static let nameMax = Int(NAME_MAX)

    static func container(for path: String) -> String {
        containers[(path as NSString).pathExtension.lowercased()] ?? "mp4"
    }

    /// Everything about the output that can be known before a job starts, as one sentence:
    /// the extension, the folder, the name's length, and that it is not one of the inputs.
    public static func check(_ output: String, inputs: [String]) throws {
        let ext = (output as NSString).pathExtension.lowercased()
        guard containers[ext] != nil else { throw JobError("\(output): the output must end in .mp4, .m4v, .mov or .mkv.") }
        try checkPlace(output, inputs: inputs)
    }

    /// The checks of `check` that do not depend on the kind of file: the folder, the name's
    /// length, and that it is not one of the inputs (`thumbnail` writes images).
    public static func checkPlace(_ output: String, inputs: [String]) throws {
        let url = URL(fileURLWithPath: output)
        let name = url.lastPathComponent.utf8.count
        guard name <= nameMax else {
            throw JobError("\(output): the file name is \(name) bytes long; the longest a folder takes is \(nameMax).")
        }
        let folder = url.deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw JobError("\(output): the folder \(folder) does not exist.")
        }
        // A folder under the name: the file could only be written at the end, after the work,
        // and then failed with Foundation's error dump (snake --report DIR, calibrate -o DIR).
        if FileManager.default.fileExists(atPath: output, isDirectory: &isFolder), isFolder.boolValue {
            throw JobError("\(output) is a folder; give a file name.")
        }
        let real = url.standardizedFileURL.resolvingSymlinksInPath().path
        if inputs.contains(where: { URL(fileURLWithPath: $0).standardizedFileURL.resolvingSymlinksInPath().path == real }) {
            throw JobError("\(output) is also an input; write the output somewhere else.")
        }
    }

    /// Each input exists, is a file (or a pipe) and can be read.
    public static func checkInput(_ input: String) throws {
        var folder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: input, isDirectory: &folder) else { throw JobError("\(input): no such file.") }
        guard !folder.boolValue else { throw JobError("\(input): is a folder, not a movie.") }
        guard FileManager.default.isReadableFile(atPath: input) else { throw JobError("\(input): permission denied.") }
    }

    static let marker = ".lockstep-"

    /// A hidden name beside `path`, for this process. A long output name is cut (on a character
    /// boundary) so the temporary stays within NAME_MAX; the final name is kept.
    static func temporary(beside path: String, pid: pid_t = getpid()) -> String {
        let url = URL(fileURLWithPath: path)
        let suffix = "\(marker)\(pid)-\(UInt32.random(in: 0...UInt32.max)).tmp"
        var name = Substring(url.lastPathComponent)
        while 1 + name.utf8.count + suffix.utf8.count > nameMax { name = name.dropLast() }
        return url.deletingLastPathComponent().appendingPathComponent("." + name + suffix).path
    }

    /// The id of the process that owns a temporary file of ours, from its name; nil for any
    /// other file.
    static func owner(ofTemporary name: String) -> pid_t? {
        guard name.hasPrefix("."), name.hasSuffix(".tmp"), let range = name.range(of: marker, options: .backwards) else { return nil }
        let parts = name[range.upperBound...].dropLast(4).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              UInt32(parts[1]) != nil, let pid = pid_t(parts[0]), pid > 0 else { return nil }
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
        return removed
    }

    static func commit(_ temporary: String, to path: String) throws {
        if rename(temporary, path) != 0 {
            throw MediaError("cannot move the finished file into place: \(String(cString: strerror(errno)))", path: path)
        }
    }
}
