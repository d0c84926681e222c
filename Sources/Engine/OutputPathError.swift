import Foundation

/// Why an output cannot be written under the name the user gave, or an input cannot be read
/// (`OutputPath`'s checks and its writing). Each case renders the one line the user reads.
public enum OutputPathError: JobFailure, Equatable {
    // The name, before any work.
    case emptyName
    /// `-o -`.
    case standardOutput
    case endsInSlash(String)
    case notAMovieName(String)
    case nameTooLong(String, bytes: Int, limit: Int)
    case missingFolder(String, folder: String)
    case isAnInput(String)
    case isAFolder(String)
    /// A device node, a named pipe or a socket under the name: `what` it is.
    case notARegularFile(String, what: String)
    // The inputs, before any work.
    case noSuchInput(String)
    case inputIsAFolder(String)
    case inputNotReadable(String)
    // While writing: `why` is the system's reason (strerror).
    case folderCannotBeOpened(String, folder: String, why: String)
    case folderNotWritable(String, folder: String, why: String)
    case cannotBeWritten(String, why: String)
    case cannotMoveIntoPlace(String, cause: String)
    /// A scope's file committed or dropped already (a programming error, said rather than trapped).
    case alreadyEnded(String, committed: Bool)

    public var description: String {
        switch self {
        case .emptyName: "the output's name is empty; give a file name."
        case .standardOutput: "-o -: Lockstep does not write its outputs to standard output; give a file name."
        case .endsInSlash(let o): "\(o): ends in /, a folder's name; give a file name."
        case .notAMovieName(let o): "\(o): the output must end in .mp4, .m4v, .mov or .mkv."
        case .nameTooLong(let o, let bytes, let limit): "\(o): the file name is \(bytes) bytes long; the longest a folder takes is \(limit)."
        case .missingFolder(let o, let folder): "\(o): the folder \(folder) does not exist."
        case .isAnInput(let o): "\(o) is also an input; write the output somewhere else."
        case .isAFolder(let o): "\(o) is a folder; give a file name."
        case .notARegularFile(let o, let what): "\(o) is \(what); an output replaces only a regular file, so give a file's name."
        case .noSuchInput(let i): "\(i): no such file."
        case .inputIsAFolder(let i): "\(i): is a folder, not a movie."
        case .inputNotReadable(let i): "\(i): permission denied."
        case .folderCannotBeOpened(let o, let folder, let why): "\(o): the folder \(folder) cannot be opened (\(why))"
        case .folderNotWritable(let o, let folder, let why): "\(o): cannot be written: the folder \(folder) is not writable (\(why))."
        case .cannotBeWritten(let o, let why): "\(o): cannot be written (\(why))"
        case .cannotMoveIntoPlace(let o, let cause): "\(o): cannot move the finished file into place: \(cause); nothing was written"
        case .alreadyEnded(let o, let committed): "\(o): already \(committed ? "written" : "abandoned")"
        }
    }

    /// The same failure told of another name (`TestSourceJob` asks the checks about its name as
    /// a .mov): every occurrence of `name` in the line's paths becomes `other`.
    public func naming(_ name: String, as other: String) -> JobError {
        JobError(description.replacingOccurrences(of: name, with: other))
    }
}
