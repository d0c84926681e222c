// Verify module: pure checks of a scanned movie (see Provenance.swift)
