// Lockstep module
