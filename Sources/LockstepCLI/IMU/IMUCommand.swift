import ArgumentParser
import Lockstep

/// `lockstep imu`: IMU traces: capture through libiio, a SQLite store, import/export, replay.
struct IMUCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imu",
        abstract: "IMU traces: record through libiio, store in SQLite, import/export gcsv and CSV, plot, replay as an IIO device.",
        subcommands: [
            IMUInfoCommand.self, IMUImportCommand.self, IMUExportCommand.self, IMUPlotCommand.self,
            IMURecordCommand.self, IMUServeCommand.self, IMUBenchStoreCommand.self
        ])
}
