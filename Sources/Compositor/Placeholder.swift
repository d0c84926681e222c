// Compositor module
