import ArgumentParser
import Foundation
import Lockstep

extension TraceFormat: ExpressibleByArgument {}
