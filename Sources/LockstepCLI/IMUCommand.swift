import ArgumentParser

// Owned by the IMU work (issue 4): replaced by the real `lockstep imu` command group.
struct IMUCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "imu", abstract: "IMU traces.")
}
